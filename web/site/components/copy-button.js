// A button that copies a text to the clipboard, and the status line beside it
// that says whether it did. Browsers may refuse (no permission, an insecure
// origin); then `refused` shows the text some other way, ready to select.
//
// text():          the text to copy now, or null for nothing to copy
// copied():        does what a copy needs on the page; gives the status to show
// refused(text):   shows the text for the reader to select; gives the status to show
export function copyButton({ label, text, copied, refused }) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = label;
  const status = document.createElement('span');
  status.className = 'note-text';
  status.setAttribute('role', 'status');
  button.addEventListener('click', async () => {
    const value = text();
    if (value == null) return;
    try {
      await navigator.clipboard.writeText(value);
      status.textContent = copied();
    } catch {
      status.textContent = refused(value);
    }
  });
  return { button, status };
}
