// The page stays responsive: the WebAssembly module and the model live in a worker.
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });

worker.addEventListener('message', ({ data }) => {
  if (data.error) throw new Error(data.error);
  document.querySelector('#weights').value = data.weights;
  document.querySelector('#next-word').value = data.nextWord;
  worker.terminate();
});
worker.postMessage({ prompt: 'The cats, which slept near the dog,' });
