// Browsing: a page of notes, by event time (the time the list shows) or
// by when they were added, filtered by state, tags, time, metadata and
// text.
import { h, field, route, snippet, timeEl, tagsEl, stateEl, emptyState, supersededEl } from './dom.js';
import { nsPath } from './api.js';
import { filterFields, readFilters } from './filters.js';

const PAGE = 50;

function select(id, name, value, options) {
  return h('select', { id, name }, options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
}

// ORDERS are the list's orders: the API's order values and their names.
// By event time is the default, as the list shows event times.
export const ORDERS = [['newest_event', 'Newest first'], ['oldest_event', 'Oldest first'],
  ['newest', 'Recently added'], ['oldest', 'First added']];

export async function notesView({ api, ns, query, el, go }) {
  const order = ORDERS.some(([v]) => v === query.get('order')) ? query.get('order') : 'newest_event';
  const form = h('form', { class: 'filterbar', role: 'search', 'aria-label': 'Filter notes' },
    field('Text', h('input', { id: 'nl-q', name: 'q', type: 'search', value: query.get('q') || '', placeholder: 'Find words…' }), 'f-text'),
    field('Order', select('nl-order', 'order', order, ORDERS)),
    field('Enrichment', select('nl-state', 'state', query.get('state') || '', [['', 'Any state'], ['pending', 'Pending'], ['done', 'Done'], ['failed', 'Failed']])),
    filterFields('nl', query),
    h('div', { class: 'f-buttons' }, h('button', { class: 'primary', type: 'submit' }, 'Apply'),
      filtered(query) ? h('a', { class: 'button ghost', href: '#/notes', id: 'nl-clear' }, 'Clear') : null));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const d = new FormData(form);
    const p = new URLSearchParams();
    for (const k of ['q', 'order', 'state']) if (d.get(k)) p.set(k, d.get(k));
    go(['notes'], readFilters(form, p));
  });
  el.append(h('div', { class: 'page-head' },
    h('h1', null, 'Notes'), h('span', { class: 'ns-badge', title: 'Namespace' }, ns),
    h('a', { class: 'button primary push', href: '#/new' }, 'Add a note')), form);

  const p = new URLSearchParams();
  for (const k of ['tag', 'meta']) for (const v of query.getAll(k)) p.append(k, v);
  for (const k of ['from', 'to']) if (query.get(k)) p.set(k, query.get(k));
  const state = query.get('state') || '';
  let notes, next = '';
  if (query.get('q')) {
    // A text query ranks instead of paging: the best 100 lexical matches.
    // Results carry no enrichment state, so the notes are read for it.
    p.set('q', query.get('q'));
    p.set('mode', 'lexical');
    p.set('k', '100');
    p.set('links', 'false');
    const { results } = await api.get(nsPath(ns, 'search'), p);
    notes = await Promise.all(results.map((r) => api.get(nsPath(ns, 'notes', r.id))));
    if (state) notes = notes.filter((n) => n.enrichment.state === state);
  } else {
    p.set('order', order);
    p.set('limit', String(PAGE));
    if (state) p.set('state', state);
    if (query.get('after')) p.set('after', query.get('after'));
    ({ notes, next = '' } = await api.get(nsPath(ns, 'notes'), p));
  }
  if (notes.length === 0 && !filtered(query) && !query.get('after')) {
    form.remove(); // nothing to filter
    el.append(emptyState('no-notes', 'No notes in this namespace yet. Agents add them through the API or MCP; you can too.',
      h('a', { class: 'button primary', href: '#/new' }, 'Add the first note')));
    return;
  }
  // The time shown is the one the list is ordered by.
  el.append(notesTable(notes, order === 'newest' || order === 'oldest' ? 'ingest_time' : 'event_time'));
  const pager = h('div', { class: 'pager' });
  if (query.get('after')) {
    const first = new URLSearchParams(query);
    first.delete('after');
    pager.append(h('a', { href: '#/notes?' + first }, 'First page'));
  }
  if (next) {
    const more = new URLSearchParams(query);
    more.set('after', next);
    pager.append(h('a', { href: '#/notes?' + more, id: 'next-page' }, 'Next page'));
  }
  el.append(pager);
}

// filtered says whether the query narrows the list.
function filtered(query) {
  return ['q', 'state', 'tag', 'meta', 'from', 'to'].some((k) => query.get(k));
}

// notesTable lists notes with their time (field: event_time, or
// ingest_time when the list is in the order they were added).
export function notesTable(notes, field = 'event_time') {
  if (notes.length === 0) return emptyState('no-notes', 'No notes match these filters.', h('a', { class: 'button', href: '#/notes' }, 'Clear the filters'));
  return h('table', { id: 'notes', class: 'list' },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Content'),
      h('th', { scope: 'col', class: 'col-time' }, field === 'ingest_time' ? 'Added' : 'Event time'),
      h('th', { scope: 'col' }, 'Tags'), h('th', { scope: 'col', class: 'col-state' }, 'State'))),
    h('tbody', null, notes.map((n) => {
      const old = supersededEl(n);
      return h('tr', { 'data-id': n.id, class: old ? 'superseded' : null },
        h('td', { class: 'content' }, h('a', { href: route('note', n.id) }, snippet(n.content)), old ? [' ', old] : null),
        h('td', { class: 'col-time' }, timeEl(n[field])),
        h('td', null, tagsEl(n.tags)),
        h('td', { class: 'col-state' }, stateEl(n.enrichment.state)));
    })));
}
