// The landing page: the chapters, in order, each a card with a picture of its hero figure, its title and what
// the reader will be able to do after it.
import { page, CHAPTERS } from './components/page.js';
import { chapterPicture } from './index-pictures.js';
import { offlineKeeper } from './offline-keeper.js';

page(async () => {
  const toc = document.querySelector('#toc');
  CHAPTERS.forEach((c, k) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `./chapters/${c.file}`;
    a.className = 'card';
    const title = document.createElement('span');
    title.className = 'card-title';
    title.textContent = c.title;
    const number = document.createElement('span');
    number.className = 'card-number';
    number.textContent = `Chapter ${k + 1}`;
    const lesson = document.createElement('p');
    lesson.className = 'lesson';
    lesson.textContent = c.lesson;
    a.append(chapterPicture(c.file), number, title, lesson);
    li.append(a);
    toc.appendChild(li);
  });
  offlineKeeper(document.querySelector('#keep-offline'), document.querySelector('#offline-status'));
});
