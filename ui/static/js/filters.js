// The filter fields that listing and search share: tags, event-time
// range and metadata pairs, as the API's tag, from, to and meta
// parameters. They sit in one compact bar (app.css .filterbar); the
// metadata pairs, seldom used, fold under "More filters".
import { h, field } from './dom.js';

// filterFields are the shared fields, prefix naming their IDs. extra, if
// given, are fields put first under the fold, which is then named "More"
// (with how many of its fields are set: extraSet of extra's, and metadata).
export function filterFields(prefix, q, extra = [], extraSet = 0) {
  const meta = q.getAll('meta');
  const set = extraSet + (meta.length ? 1 : 0);
  const summary = extra.length ? (set ? `More (${set})` : 'More') : meta.length ? `Metadata (${meta.length})` : 'Metadata';
  return [
    field('Tags', h('input', { id: prefix + '-tags', name: 'tags', value: q.getAll('tag').join(', '), placeholder: 'all of: a, b',
      title: 'Comma-separated; a note must have all of them' }), 'f-tags'),
    field('From', h('input', { id: prefix + '-from', name: 'from', type: 'date', value: q.get('from') || '',
      title: 'Event time on or after this day' }), 'f-date'),
    field('Before', h('input', { id: prefix + '-to', name: 'to', type: 'date', value: q.get('to') || '',
      title: 'Event time before this day' }), 'f-date'),
    h('details', { class: 'more', open: meta.length > 0, id: prefix + '-more' },
      h('summary', null, summary),
      h('div', { class: 'more-panel' }, extra,
        field('Metadata (key=value, one a line)', h('textarea', { id: prefix + '-meta', name: 'meta', rows: 3, value: meta.join('\n') })))),
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
