// Adding and editing notes.
import { h, field, say, toLocalInput, fromLocalInput } from './dom.js';
import { nsPath } from './api.js';

function splitList(s) {
  return s.split(',').map((t) => t.trim()).filter(Boolean);
}

function readMeta(s) {
  const out = {};
  for (const line of s.split('\n')) {
    if (!line.trim()) continue;
    const i = line.indexOf('=');
    if (i < 1) throw new Error(`metadata line ${JSON.stringify(line)} is not key=value`);
    out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

// The event time is edited in the browser's time zone (datetime-local
// holds no zone) and sent as UTC.
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

function noteFields(n) {
  const initial = n ? toLocalInput(n.event_time) : '';
  // A time with seconds would not fit the default step of a minute,
  // which the browser would refuse to submit.
  const time = h('input', { id: 'w-time', name: 'time', type: 'datetime-local', value: initial,
    step: /:\d\d:\d\d$/.test(initial) ? '1' : null, 'aria-describedby': 'w-time-help' });
  return [
    field('Content', h('textarea', { id: 'w-content', name: 'content', required: true, rows: 6, value: n ? n.content : '',
      placeholder: n ? null : 'What should be remembered?' })),
    h('div', { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'w-time' }, 'Event time'), time,
        h('p', { class: 'hint', id: 'w-time-help' }, n ? `When it happened, in your time zone (${zone}).`
          : `When it happened, in your time zone (${zone}). Empty: now.`)),
      field('Tags', h('input', { id: 'w-tags', name: 'tags', value: n ? n.tags.join(', ') : '', placeholder: 'comma-separated: family, travel' }))),
    field('Metadata (key=value, one a line)', h('textarea', { id: 'w-meta', name: 'meta', rows: 3,
      value: n ? Object.entries(n.metadata || {}).map(([k, v]) => k + '=' + v).join('\n') : '', placeholder: 'source=chat' })),
  ];
}

export async function newView({ api, ns, el, go }) {
  const form = h('form', { class: 'stack card', 'aria-labelledby': 'new-h' },
    h('div', { class: 'page-head' }, h('h1', { id: 'new-h' }, 'Add a note'), h('span', { class: 'ns-badge', title: 'Namespace' }, ns)),
    noteFields(null),
    h('div', null, h('label', { class: 'check', for: 'w-wait' }, h('input', { id: 'w-wait', name: 'wait', type: 'checkbox' }),
      'Wait for enrichment (keywords, tags, context, links) before showing it')),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Add note'),
      h('a', { class: 'button ghost', href: '#/notes' }, 'Cancel')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const d = new FormData(form);
    try {
      const body = { content: d.get('content') };
      if (d.get('time')) body.time = fromLocalInput(d.get('time'));
      const tags = splitList(d.get('tags'));
      if (tags.length) body.tags = tags;
      const meta = readMeta(d.get('meta'));
      if (Object.keys(meta).length) body.metadata = meta;
      const q = new URLSearchParams(d.get('wait') ? { wait: 'true' } : {});
      say('Adding…');
      const n = await api.call('POST', nsPath(ns, 'notes'), { query: q, body });
      say('Note added.');
      go(['note', n.id]);
    } catch (err) {
      say(err.message, true);
    }
  });
  el.append(form);
  form.querySelector('textarea').focus();
}

export async function editView({ api, ns, parts, el, go }) {
  const base = nsPath(ns, 'notes', parts[1] || '');
  const n = await api.get(base);
  const form = h('form', { class: 'stack card', 'aria-labelledby': 'edit-h' },
    h('div', { class: 'page-head' }, h('h1', { id: 'edit-h' }, 'Edit note'), h('code', { class: 'id' }, n.id)),
    noteFields(n),
    field('Context', h('input', { id: 'w-context', name: 'context', value: n.context })),
    field('Why (kept in the history)', h('input', { id: 'w-reason', name: 'reason', placeholder: 'optional' })),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Save'),
      h('a', { class: 'button ghost', href: '#/note/' + encodeURIComponent(n.id) }, 'Cancel')));
  const initialTime = toLocalInput(n.event_time);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const d = new FormData(form);
    try {
      // The form is the whole note: cleared metadata is sent as {}.
      const body = { content: d.get('content'), tags: splitList(d.get('tags')), context: d.get('context'), metadata: readMeta(d.get('meta')) };
      if (d.get('reason')) body.reason = d.get('reason');
      // Sent only when changed: the field holds no fraction of a second.
      if (d.get('time') !== initialTime) {
        if (!d.get('time')) throw new Error('A note keeps an event time: give one, or put back the old one.');
        body.time = fromLocalInput(d.get('time'));
      }
      await api.call('PATCH', base, { body });
      say('Saved.');
      go(['note', n.id]);
    } catch (err) {
      say(err.message, true);
    }
  });
  el.append(form);
}
