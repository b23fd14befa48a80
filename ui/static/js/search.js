// Search: direct hits and the notes linked to them, shown apart.
import { h, append, field, route, say, snippet, timeEl, tagsEl, emptyState, supersededEl, toLocalInput, fromLocalInput } from './dom.js';
import { nsPath } from './api.js';
import { filterFields, readFilters } from './filters.js';

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export async function searchView({ api, ns, query, el, go }) {
  const mode = query.get('mode') || 'hybrid';
  const asOf = toLocalInput(query.get('as_of') || '');
  const form = h('form', { class: 'filterbar', role: 'search', 'aria-label': 'Search notes' },
    field('Query', h('input', { id: 's-q', name: 'q', type: 'search', required: true, value: query.get('q') || '', placeholder: 'What do you want to recall?' }), 'f-query'),
    field('Mode', h('select', { id: 's-mode', name: 'mode' },
      [['hybrid', 'Hybrid'], ['vector', 'Meaning'], ['lexical', 'Words']].map(([m, t]) => h('option', { value: m, selected: m === mode }, t)))),
    field('Hits', h('input', { id: 's-k', name: 'k', type: 'number', min: 1, max: 1000, value: query.get('k') || '10' }), 'f-num'),
    // Two switches stacked in one column keep the bar one row high.
    h('div', { class: 'field f-checks' },
      h('label', { class: 'check', for: 's-links' },
        h('input', { id: 's-links', name: 'links', type: 'checkbox', checked: query.get('links') !== 'false' }), 'Linked notes'),
      h('label', { class: 'check', for: 's-hide', title: 'Leave out the notes no longer true (at the as-of time, or now)' },
        h('input', { id: 's-hide', name: 'exclude_superseded', type: 'checkbox', checked: query.get('exclude_superseded') === 'true' }), 'Hide superseded')),
    // What was true at a time (as_of), in the browser's time zone: under
    // the fold beside metadata.
    filterFields('s', query, [
      h('div', { class: 'field' }, h('label', { for: 's-asof' }, 'As of'),
        h('input', { id: 's-asof', name: 'as_of', type: 'datetime-local', value: asOf, step: /:\d\d:\d\d$/.test(asOf) ? '1' : null,
          'aria-describedby': 's-asof-help' }),
        h('p', { class: 'hint', id: 's-asof-help' }, `What was true then, in your time zone (${zone}); empty: now.`))], asOf ? 1 : 0),
    h('div', { class: 'f-buttons' }, h('button', { class: 'primary', type: 'submit' }, 'Search')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const d = new FormData(form);
    const p = new URLSearchParams({ q: d.get('q'), mode: d.get('mode'), k: d.get('k') });
    if (!d.get('links')) p.set('links', 'false');
    try {
      if (d.get('as_of')) p.set('as_of', fromLocalInput(d.get('as_of'), 'as of'));
    } catch (err) {
      say(err.message, true);
      return;
    }
    if (d.get('exclude_superseded')) p.set('exclude_superseded', 'true');
    go(['search'], readFilters(form, p));
  });
  el.append(h('div', { class: 'page-head' }, h('h1', null, 'Search'), h('span', { class: 'ns-badge', title: 'Namespace' }, ns)), form);
  if (!query.get('q')) {
    el.append(emptyState('search-help', 'Search by meaning and words at once (hybrid), or by either alone. Direct hits come first; the notes linked to them follow, each naming the hit it came through.'));
    return;
  }

  const { results } = await api.get(nsPath(ns, 'search'), query);
  const direct = results.filter((r) => r.kind === 'direct');
  const linked = results.filter((r) => r.kind !== 'direct');
  const hitText = new Map(direct.map((r) => [r.id, r.content]));
  append(el,
    query.get('as_of') ? h('p', { class: 'muted', id: 'as-of-note' }, 'What was true on ', timeEl(query.get('as_of')),
      ': notes said later are left out.') : null,
    h('h2', null, `Direct hits (${direct.length})`),
    resultsTable('direct', direct, 'Score', null),
    h('h2', null, `Linked notes (${linked.length})`),
    resultsTable('linked', linked, 'Link strength', (r) => h('a', { href: route('note', r.via) }, snippet(hitText.get(r.via) || r.via, 80))));
}

function resultsTable(id, rows, scoreName, via) {
  if (rows.length === 0) return h('p', { class: 'muted', id: id + '-none' }, id === 'direct' ? 'No note matches.' : 'None.');
  const cols = ['Content', scoreName, 'Event time', 'Tags'].concat(via ? ['Through hit'] : []);
  return h('table', { id, class: 'list' },
    h('thead', null, h('tr', null, cols.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', null, rows.map((r) => {
      // A note no longer true stays listed, right below the one that
      // superseded it, and says so.
      const old = supersededEl(r);
      return h('tr', { 'data-id': r.id, class: old ? 'superseded' : null },
        h('td', { class: 'content' }, h('a', { href: route('note', r.id) }, snippet(r.content)), old ? [' ', old] : null),
        h('td', { class: 'num' }, r.score.toFixed(3)),
        h('td', { class: 'col-time' }, timeEl(r.event_time)),
        h('td', null, tagsEl(r.tags)),
        via ? h('td', null, via(r)) : null);
    })));
}
