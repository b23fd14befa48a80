// Adding and editing notes.
import { h, field, say } from './dom.js';
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

function noteFields(n) {
  return [
    field('Content', h('textarea', { id: 'w-content', name: 'content', required: true, rows: 6, value: n ? n.content : '' })),
    field('Tags (comma-separated)', h('input', { id: 'w-tags', name: 'tags', value: n ? n.tags.join(', ') : '' })),
    field('Metadata (key=value, one a line)', h('textarea', { id: 'w-meta', name: 'meta', rows: 3,
      value: n ? Object.entries(n.metadata || {}).map(([k, v]) => k + '=' + v).join('\n') : '' })),
  ];
}

export async function newView({ api, ns, el, go }) {
  const form = h('form', { class: 'stack', 'aria-labelledby': 'new-h' },
    h('h1', { id: 'new-h' }, 'Add a note to ', h('q', null, ns)),
    noteFields(null),
    h('div', null, h('label', { class: 'check', for: 'w-wait' }, h('input', { id: 'w-wait', name: 'wait', type: 'checkbox' }),
      'Wait for enrichment (keywords, tags, context, links) before showing it')),
    h('div', null, h('button', { class: 'primary', type: 'submit' }, 'Add note')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const d = new FormData(form);
    try {
      const body = { content: d.get('content') };
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
  const form = h('form', { class: 'stack', 'aria-labelledby': 'edit-h' },
    h('h1', { id: 'edit-h' }, 'Edit note'),
    noteFields(n),
    field('Context', h('input', { id: 'w-context', name: 'context', value: n.context })),
    field('Why (kept in the history)', h('input', { id: 'w-reason', name: 'reason' })),
    h('div', { class: 'actions' }, h('button', { class: 'primary', type: 'submit' }, 'Save'),
      h('a', { href: '#/note/' + encodeURIComponent(n.id) }, 'Cancel')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const d = new FormData(form);
    try {
      // The form is the whole note: cleared metadata is sent as {}.
      const body = { content: d.get('content'), tags: splitList(d.get('tags')), context: d.get('context'), metadata: readMeta(d.get('meta')) };
      if (d.get('reason')) body.reason = d.get('reason');
      await api.call('PATCH', base, { body });
      say('Saved.');
      go(['note', n.id]);
    } catch (err) {
      say(err.message, true);
    }
  });
  el.append(form);
}
