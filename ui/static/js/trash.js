// The trash: the namespace's deleted notes, each restorable until it
// expires, and the Undo offered right after a delete.
import { h, route, say, snippet, timeEl, confirmDialog, emptyState } from './dom.js';
import { nsPath } from './api.js';

const PAGE = 50;
// How long Undo stays offered after a delete; the trash keeps the note
// far longer.
const UNDO_MS = 15000;

export async function trashView({ api, ns, query, el, go }) {
  const p = new URLSearchParams({ limit: String(PAGE) });
  if (query.get('after')) p.set('after', query.get('after'));
  const { notes, next = '' } = await api.get(nsPath(ns, 'trash'), p);

  const act = async (label, fn) => {
    try {
      await fn();
      say(label);
    } catch (e) {
      say(e.message, true);
    }
  };
  const empty = h('button', { type: 'button', class: 'danger', id: 'empty-trash', disabled: notes.length === 0 }, 'Empty the trash');
  empty.addEventListener('click', async () => {
    if (!await confirmDialog('Delete every note in the trash for good? This cannot be undone.', 'Empty the trash')) return;
    act('The trash is empty.', async () => {
      await api.call('DELETE', nsPath(ns, 'trash'));
      go(['trash']);
    });
  });
  el.append(h('div', { class: 'page-head' },
    h('h1', null, 'Trash'), h('span', { class: 'ns-badge', title: 'Namespace' }, ns)),
    h('p', { class: 'muted' }, 'Deleted notes are kept here, with their links and history, until they expire; restoring one brings it back as a new version.'),
    h('div', { class: 'actions' }, empty));

  if (notes.length === 0) {
    el.append(emptyState('no-trash', 'The trash is empty.'));
  } else {
    el.append(h('table', { id: 'trash', class: 'list' },
      h('thead', null, h('tr', null, ['Content', 'Deleted', 'Expires', ''].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', null, notes.map((t) => trashRow(api, ns, t, act, go)))));
  }
  if (next) {
    const more = new URLSearchParams(query);
    more.set('after', next);
    el.append(h('div', { class: 'actions' }, h('a', { href: '#/trash?' + more, id: 'trash-next' }, 'Next page')));
  }
}

function trashRow(api, ns, t, act, go) {
  const id = t.note.id;
  const restore = h('button', { type: 'button', class: 'primary', 'data-restore': id }, 'Restore');
  restore.addEventListener('click', () => act('Note restored.', async () => {
    restore.disabled = true;
    try { await api.call('POST', nsPath(ns, 'trash', id, 'restore')); } finally { restore.disabled = false; }
    go(['note', id]);
  }));
  const purge = h('button', { type: 'button', class: 'danger', 'data-purge': id }, 'Delete for good');
  purge.addEventListener('click', async () => {
    if (!await confirmDialog('Delete this note for good? This cannot be undone.', 'Delete for good')) return;
    act('Note deleted for good.', async () => {
      await api.call('DELETE', nsPath(ns, 'trash', id));
      go(['trash']);
    });
  });
  return h('tr', { 'data-id': id },
    h('td', { class: 'content' }, snippet(t.note.content)),
    h('td', null, timeEl(t.deleted_at)),
    h('td', null, timeEl(t.expires_at)),
    h('td', null, h('div', { class: 'actions' }, restore, purge)));
}

// deleteNote moves a note to the trash, goes to the list and offers Undo
// in the status region for a while: Undo restores it and opens it again.
export async function deleteNote(api, ns, id, go) {
  await api.call('DELETE', nsPath(ns, 'notes', id));
  go(['notes']);
  const status = document.getElementById('status');
  say('');
  const undo = h('button', { type: 'button', id: 'undo-delete' }, 'Undo');
  const timer = setTimeout(() => { if (undo.isConnected) say(''); }, UNDO_MS);
  undo.addEventListener('click', async () => {
    clearTimeout(timer);
    undo.disabled = true;
    try {
      await api.call('POST', nsPath(ns, 'trash', id, 'restore'));
      say('Note restored.');
      go(['note', id]);
    } catch (e) {
      say(e.message, true);
    }
  });
  status.append('Note moved to the trash. ', undo, ' ', h('a', { href: route('trash') }, 'Open the trash'));
}
