// "Copy as PyTorch" beside a chapter's figures: the script that rebuilds them
// (chapters/pytorch.js), kept current as the reader edits, shown on request
// and copied with one button. While the inputs are not valid there is no
// script, and the panel says why.
import { copyButton } from './copy-button.js';

export function pytorchPanel(container) {
  let current = null;
  const { button, status } = copyButton({
    label: 'Copy as PyTorch',
    text: () => current?.code ?? null,
    copied: () => 'Copied: paste it into a file or a notebook cell.',
    refused: () => {
      details.open = true;
      return 'This browser did not allow copying; the script is below, ready to select.';
    },
  });
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = 'Show the script';
  const about = document.createElement('p');
  about.className = 'note-text';
  about.textContent = 'The notebooks’ own code for what this page shows, with your inputs: it runs with PyTorch ' +
    '(python3 script.py) and prints the numbers in the figures above.';
  const code = document.createElement('code');
  const pre = document.createElement('pre');
  pre.className = 'pytorch-code';
  pre.tabIndex = 0; // scrollable by keyboard
  pre.appendChild(code);
  details.append(summary, about, pre);
  const row = document.createElement('div');
  row.className = 'controls';
  row.append(button, status);
  container.replaceChildren(row, details);

  return {
    /** The script for the figures as they are now, or null while an input is not valid. */
    update(script) {
      current = script;
      button.disabled = !script;
      code.textContent = script ? script.code : '';
      status.textContent = script ? '' : 'Fix the input above to get the script.';
      if (script) container.dataset.prints = JSON.stringify(script.prints);
      else delete container.dataset.prints;
    },
  };
}
