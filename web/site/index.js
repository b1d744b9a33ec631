// The landing page: the chapters, in order.
import { page, CHAPTERS } from './components/page.js';

page(async () => {
  const toc = document.querySelector('#toc');
  for (const c of CHAPTERS) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `./chapters/${c.file}`;
    a.textContent = c.title;
    const lesson = document.createElement('p');
    lesson.className = 'lesson';
    lesson.textContent = c.lesson;
    li.append(a, lesson);
    toc.appendChild(li);
  }
});
