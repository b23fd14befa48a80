// The UI's shell: sign-in, the namespace, and hash routes (#/notes,
// #/note/ID, #/search, #/graph, #/new, #/edit/ID, #/stats, #/trash), each a view
// that fills a fresh element from the API.
import { API } from './api.js';
import { h, replace, say, field } from './dom.js';
import { notesView } from './notes.js';
import { noteView } from './note.js';
import { searchView } from './search.js';
import { graphView } from './graph.js';
import { newView, editView } from './write.js';
import { statsView } from './stats.js';
import { trashView } from './trash.js';

const views = { notes: notesView, note: noteView, search: searchView, graph: graphView, new: newView, edit: editView, stats: statsView, trash: trashView };

// The key lives in this tab's sessionStorage: gone when the tab closes,
// never in a cookie (so no cross-site request can use it) or a URL.
const KEY = 'amem.key';
const NS = 'amem.ns';
let session = null; // { api, ns, names, admin }

function parseHash() {
  const [path, qs = ''] = location.hash.slice(2).split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { parts, query: new URLSearchParams(qs) };
}

// go navigates to a route; the hash keeps back and forward working.
function go(parts, query) {
  const qs = query && query.toString();
  const hash = '#/' + [].concat(parts).map(encodeURIComponent).join('/') + (qs ? '?' + qs : '');
  if (location.hash === hash) render();
  else location.hash = hash;
}

async function render(ev) {
  const moved = ev instanceof HashChangeEvent;
  // Another anchor (the skip link) is not a route.
  if (location.hash && !location.hash.startsWith('#/')) return;
  const main = document.getElementById('main');
  if (!session) {
    showSignIn(main);
    return;
  }
  const { parts, query } = parseHash();
  const name = views[parts[0]] ? parts[0] : 'notes';
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.getAttribute('href') === '#/' + name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  // A view fills its own element: one still loading when the person
  // moves on writes into an element no longer shown.
  const el = h('div');
  replace(main, el);
  if (!session.ns) {
    el.append(h('p', null, 'Choose a namespace above.'));
    return;
  }
  try {
    await views[name]({ api: session.api, ns: session.ns, parts, query, el, go });
    // A screen reader hears the new page from its start, as after a
    // page load; the first render leaves focus where the browser put it.
    if (moved && el.isConnected && !main.contains(document.activeElement)) main.focus({ preventScroll: true });
  } catch (e) {
    if (e.status === 401) {
      signOut('The key was refused; sign in again.');
      return;
    }
    say(e.message, true);
    el.append(h('p', { class: 'state-failed' }, e.message));
  }
}

function showSignIn(main) {
  document.getElementById('nav').hidden = true;
  document.getElementById('session').hidden = true;
  const input = h('input', { id: 'key', name: 'key', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const form = h('form', { class: 'stack', 'aria-labelledby': 'signin-h' },
    h('h1', { id: 'signin-h' }, 'Sign in'),
    field('API key', input),
    h('p', { class: 'muted' }, 'The key is kept in this tab only and sent to this server’s API.'),
    h('div', null, h('button', { class: 'primary', type: 'submit' }, 'Sign in')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await signIn(input.value.trim());
      say('Signed in.');
      render();
    } catch (err) {
      say(err.status === 401 ? 'That key was refused.' : err.message, true);
    }
  });
  replace(main, form);
  input.focus();
}

async function signIn(key) {
  const api = new API(key);
  const info = await api.get('/v1/key');
  let names = info.namespaces;
  if (info.admin) names = (await api.get('/v1/namespaces')).namespaces.map((n) => n.name);
  sessionStorage.setItem(KEY, key);
  const stored = sessionStorage.getItem(NS);
  const ns = names.includes(stored) || (info.admin && stored) ? stored : names[0] || '';
  session = { api, ns, names, admin: info.admin };
  showSession();
}

function showSession() {
  const sel = document.getElementById('ns-select');
  const names = session.names.includes(session.ns) || !session.ns ? session.names : [...session.names, session.ns];
  replace(sel, names.map((n) => h('option', { value: n, selected: n === session.ns }, n)));
  document.getElementById('nav').hidden = false;
  document.getElementById('session').hidden = false;
  const other = document.getElementById('ns-other');
  if (session.admin && !other) {
    // An admin key reaches namespaces that hold no notes yet, which the
    // listing leaves out.
    const input = h('input', { id: 'ns-other', placeholder: 'another namespace', 'aria-label': 'Another namespace' });
    const form = h('form', { class: 'session' }, input, h('button', { type: 'submit' }, 'Open'));
    form.addEventListener('submit', (e) => { e.preventDefault(); if (input.value.trim()) useNamespace(input.value.trim()); });
    document.getElementById('sign-out').before(form);
  }
}

function useNamespace(ns) {
  session.ns = ns;
  sessionStorage.setItem(NS, ns);
  showSession();
  go(['notes']);
}

function signOut(msg) {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(NS);
  session = null;
  document.getElementById('ns-other')?.closest('form').remove();
  say(msg || 'Signed out.', Boolean(msg));
  if (location.hash) history.replaceState(null, '', location.pathname);
  render();
}

document.getElementById('ns-select').addEventListener('change', (e) => useNamespace(e.target.value));
document.getElementById('sign-out').addEventListener('click', () => signOut());
window.addEventListener('hashchange', render);

(async () => {
  const key = sessionStorage.getItem(KEY);
  if (key) {
    try { await signIn(key); } catch { sessionStorage.removeItem(KEY); }
  }
  render();
})();
