// The UI's shell: sign-in, the namespace, and hash routes (#/notes,
// #/note/ID, #/search, #/graph, #/new, #/edit/ID, #/stats, #/trash), each a view
// that fills a fresh element from the API.
import { API } from './api.js';
import { h, replace, say, field, clearStatus } from './dom.js';
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
  // A message belongs to the page it was said on.
  if (moved) clearStatus();
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
  const el = h('div', { class: 'view view-' + name });
  replace(main, el);
  if (!session.ns) {
    el.append(h('div', { class: 'empty' }, h('p', null, 'This key reaches no namespace yet. ',
      session.admin ? 'Type one in “another namespace” above.' : 'Ask for a key with a namespace: amem keys create --namespace NAME.')));
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
    // Said once, on the page: the status line would repeat it.
    el.append(h('div', { class: 'error-box', role: 'alert', id: 'view-error' },
      h('strong', null, e.status === 404 ? 'Not found' : 'Something went wrong'), h('p', null, e.message),
      h('a', { href: '#/notes' }, 'Back to the notes')));
  }
}

function showSignIn(main) {
  document.getElementById('nav').hidden = true;
  document.getElementById('session').hidden = true;
  const input = h('input', { id: 'key', name: 'key', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false',
    placeholder: 'amem_…' });
  const problem = h('p', { class: 'form-error', id: 'signin-error', role: 'alert' });
  const form = h('form', { class: 'signin card', 'aria-labelledby': 'signin-h' },
    h('h1', { id: 'signin-h' }, 'Sign in to amem'),
    h('p', { class: 'muted' }, 'Browse, search and edit the memories your agents keep.'),
    field('API key', input),
    problem,
    h('button', { class: 'primary wide', type: 'submit' }, 'Sign in'),
    h('p', { class: 'muted small' }, 'The key stays in this tab (gone when you close it) and is sent only to this server’s API.'));
  const help = h('section', { class: 'firstrun card', id: 'first-run', 'aria-labelledby': 'firstrun-h' },
    h('h2', { id: 'firstrun-h' }, 'No key yet?'),
    h('p', null, 'Create one on the machine that runs ', h('code', null, 'amem serve'), ', with the same ', h('code', null, '--db'), ':'),
    h('pre', null, h('code', null, 'amem keys create --namespace alice')),
    h('p', null, 'It prints the key once; paste it above. ', h('code', null, '--namespace a,b'),
      ' gives several namespaces, ', h('code', null, '--admin'), ' every namespace; ',
      h('code', null, 'amem keys list'), ' and ', h('code', null, 'amem keys revoke ID'), ' manage them.'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    problem.textContent = '';
    try {
      await signIn(input.value.trim());
      say('Signed in.');
      render();
    } catch (err) {
      problem.textContent = err.status === 401 ? 'That key was refused: it is unknown or revoked.' : err.message;
    }
  });
  replace(main, h('div', { class: 'signin-page' }, form, help));
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
    const form = h('form', { class: 'ns-other' }, input, h('button', { type: 'submit' }, 'Open'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const ns = input.value.trim();
      input.value = '';
      if (ns) useNamespace(ns);
    });
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
