// The filter fields that listing and search share: tags, event-time
// range and metadata pairs, as the API's tag, from, to and meta
// parameters.
import { h, field } from './dom.js';

export function filterFields(prefix, q) {
  return [
    field('Tags (comma-separated, all must match)', h('input', { id: prefix + '-tags', name: 'tags', value: q.getAll('tag').join(', ') })),
    field('From (event time)', h('input', { id: prefix + '-from', name: 'from', type: 'date', value: q.get('from') || '' })),
    field('To (before)', h('input', { id: prefix + '-to', name: 'to', type: 'date', value: q.get('to') || '' })),
    field('Metadata (key=value, one a line)', h('textarea', { id: prefix + '-meta', name: 'meta', rows: 2, value: q.getAll('meta').join('\n') })),
  ];
}

// readFilters adds the form's filters to params.
export function readFilters(form, params) {
  const d = new FormData(form);
  for (const t of String(d.get('tags') || '').split(',')) if (t.trim()) params.append('tag', t.trim());
  for (const k of ['from', 'to']) if (d.get(k)) params.set(k, d.get(k));
  for (const m of String(d.get('meta') || '').split('\n')) if (m.trim()) params.append('meta', m.trim());
  return params;
}
