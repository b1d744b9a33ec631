// Asks before something is replaced or deleted: a modal <dialog> (focus moves
// into it, Escape cancels) that resolves to the choice made.

/**
 * @param {string} message
 * @param {{confirm: string, cancel?: string}} labels
 * @returns {Promise<boolean>} true when the reader confirmed
 */
export function confirmDialog(message, { confirm, cancel = 'Cancel' }) {
  const dialog = document.createElement('dialog');
  dialog.className = 'confirm';
  const text = document.createElement('p');
  text.textContent = message;
  text.id = `confirm-${Math.random().toString(36).slice(2)}`;
  dialog.setAttribute('aria-labelledby', text.id);
  const form = document.createElement('form');
  form.method = 'dialog';
  const no = Object.assign(document.createElement('button'), { value: 'cancel', textContent: cancel, className: 'cancel' });
  const yes = Object.assign(document.createElement('button'), { value: 'confirm', textContent: confirm, className: 'confirm-button' });
  form.append(no, yes);
  dialog.append(text, form);
  document.body.appendChild(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    dialog.showModal();
    no.focus();
  });
}
