// Browsing: a page of notes, newest or oldest first, filtered by state,
// tags, time, metadata and text.
import { h, field, route, snippet, timeEl, tagsEl, stateEl } from './dom.js';
import { nsPath } from './api.js';
import { filterFields, readFilters } from './filters.js';

const PAGE = 50;

function select(id, name, value, options) {
  return h('select', { id, name }, options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
}

export async function notesView({ api, ns, query, el, go }) {
  const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filter notes' },
    field('Text', h('input', { id: 'nl-q', name: 'q', type: 'search', value: query.get('q') || '' })),
    field('Order', select('nl-order', 'order', query.get('order') || 'newest', [['newest', 'Newest first'], ['oldest', 'Oldest first']])),
    field('Enrichment', select('nl-state', 'state', query.get('state') || '', [['', 'Any state'], ['pending', 'Pending'], ['done', 'Done'], ['failed', 'Failed']])),
    filterFields('nl', query),
    h('div', null, h('button', { class: 'primary', type: 'submit' }, 'Apply')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const d = new FormData(form);
    const p = new URLSearchParams();
    for (const k of ['q', 'order', 'state']) if (d.get(k)) p.set(k, d.get(k));
    go(['notes'], readFilters(form, p));
  });
  el.append(h('h1', null, 'Notes in ', h('q', null, ns)), form);

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
    p.set('order', query.get('order') || 'newest');
    p.set('limit', String(PAGE));
    if (state) p.set('state', state);
    if (query.get('after')) p.set('after', query.get('after'));
    ({ notes, next = '' } = await api.get(nsPath(ns, 'notes'), p));
  }
  el.append(notesTable(notes));
  const pager = h('div', { class: 'actions' });
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

export function notesTable(notes) {
  if (notes.length === 0) return h('p', { class: 'muted', id: 'no-notes' }, 'No notes match.');
  return h('table', { id: 'notes' },
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Content'), h('th', { scope: 'col' }, 'Time'),
      h('th', { scope: 'col' }, 'Tags'), h('th', { scope: 'col' }, 'State'))),
    h('tbody', null, notes.map((n) => h('tr', { 'data-id': n.id },
      h('td', { class: 'content' }, h('a', { href: route('note', n.id) }, snippet(n.content))),
      h('td', null, timeEl(n.event_time)),
      h('td', null, tagsEl(n.tags)),
      h('td', null, stateEl(n.enrichment.state))))));
}
