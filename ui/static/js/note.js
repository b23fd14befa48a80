// A note's page: its fields, enrichment, usage, links both ways, and its
// history as diffs with restore.
import { h, route, say, snippet, timeEl, tagsEl, stateEl, confirmDialog } from './dom.js';
import { nsPath } from './api.js';
import { changeEl } from './diff.js';
import { deleteNote } from './trash.js';

export async function noteView({ api, ns, parts, el, go }) {
  const id = parts[1] || '';
  const base = nsPath(ns, 'notes', id);
  const [n, { links }, { versions }, { usage }] = await Promise.all([
    api.get(base), api.get(base + '/links'), api.get(base + '/history'), api.get(base + '/usage')]);

  const act = async (label, fn) => {
    try {
      await fn();
      say(label);
    } catch (e) {
      say(e.message, true);
    }
  };
  const enrich = h('button', { type: 'button', id: 'enrich' }, n.enrichment.state === 'failed' ? 'Retry enrichment' : 'Re-enrich');
  enrich.addEventListener('click', () => act('Enriched.', async () => {
    enrich.disabled = true;
    try { await api.call('POST', base + '/enrich'); } finally { enrich.disabled = false; }
    go(['note', id]);
  }));
  const del = h('button', { type: 'button', class: 'danger', id: 'delete' }, 'Delete');
  del.addEventListener('click', async () => {
    if (!await confirmDialog('Delete this note, its links and its history? It goes to the trash, from which it can be restored.', 'Delete')) return;
    try {
      await deleteNote(api, ns, id, go);
    } catch (e) {
      say(e.message, true);
    }
  });

  // What the user wrote is theirs: marked, and the curator leaves it alone
  // until it is given back (PATCH give_back), which re-enriches the note.
  const yours = (attr) => {
    if (!(n.caller_set || []).includes(attr)) return null;
    const back = h('button', { type: 'button', class: 'give-back', 'data-attr': attr }, 'Give back to the curator');
    back.addEventListener('click', () => act(`The curator writes the ${attr} again.`, async () => {
      await api.call('PATCH', base, { body: { give_back: [attr] } });
      go(['note', id]);
    }));
    return [' ', h('span', { class: 'muted yours', id: `yours-${attr}` }, '(yours)'), ' ', back];
  };
  const meta = Object.entries(n.metadata || {});
  const tokens = usage.reduce((s, u) => s + u.prompt_tokens + u.completion_tokens, 0);
  el.append(
    h('div', { class: 'page-head' }, h('h1', null, 'Note'), h('code', { class: 'id' }, n.id), stateEl(n.enrichment.state)),
    h('p', { class: 'content note-body', id: 'note-content' }, n.content),
    h('div', { class: 'actions' },
      h('a', { class: 'button', href: route('edit', n.id) }, 'Edit'),
      h('a', { class: 'button', href: route('graph') + '?start=' + encodeURIComponent(n.id), id: 'show-graph' }, 'Show in graph'),
      enrich, del),
    h('dl', { class: 'fields card' },
      h('dt', null, 'Keywords'), h('dd', null, tagsEl(n.keywords), yours('keywords')),
      h('dt', null, 'Tags'), h('dd', { id: 'note-tags' }, tagsEl(n.tags)),
      h('dt', null, 'Context'), h('dd', null, n.context || h('span', { class: 'muted' }, 'none'), yours('context')),
      h('dt', null, 'Metadata'), h('dd', { id: 'note-meta' }, meta.length
        ? h('ul', null, meta.map(([k, v]) => h('li', null, h('code', null, k), ' = ', v)))
        : h('span', { class: 'muted' }, 'none')),
      h('dt', null, 'Event time'), h('dd', null, timeEl(n.event_time)),
      h('dt', null, 'Stored'), h('dd', null, timeEl(n.ingest_time)),
      h('dt', null, 'Updated'), h('dd', null, timeEl(n.updated_at)),
      h('dt', null, 'Version'), h('dd', null, String(n.version)),
      h('dt', null, 'Enrichment'), h('dd', { id: 'note-state' }, stateEl(n.enrichment.state),
        ' after ', String(n.enrichment.attempts), ' attempt(s)',
        n.enrichment.error ? h('div', { class: 'state-failed', id: 'enrich-error' }, n.enrichment.error) : null),
      h('dt', null, 'Model tokens'), h('dd', null, usage.length
        ? [String(tokens), ' in all: ', usage.map((u) => `${u.operation} ${u.calls} call(s), ${u.prompt_tokens}+${u.completion_tokens}`).join('; ')]
        : 'none')),
    h('h2', null, 'Links'),
    linksTable(id, links),
    h('h2', null, 'History'),
    historyEl(api, base, n, versions, go));
}

function linksTable(id, links) {
  if (links.length === 0) return h('p', { class: 'muted' }, 'No links.');
  return h('table', { id: 'links', class: 'list' },
    h('thead', null, h('tr', null, ['Direction', 'Note', 'Reason', 'Strength'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', null, links.map(({ link, note }) => h('tr', null,
      h('td', null, link.source === id ? 'out (this note chose it)' : 'in (chose this note)'),
      h('td', { class: 'content' }, h('a', { href: route('note', note.id) }, snippet(note.content, 120))),
      h('td', null, link.reason || h('span', { class: 'muted' }, '—')),
      h('td', { class: 'num' }, link.strength.toFixed(2))))));
}

function historyEl(api, base, n, versions, go) {
  const list = h('div', { id: 'history' });
  for (const v of [...versions].reverse()) {
    const restore = v.version === n.version ? h('span', { class: 'muted' }, 'current')
      : h('button', { type: 'button', 'data-version': v.version }, `Restore version ${v.version}`);
    if (restore.tagName === 'BUTTON') {
      restore.addEventListener('click', async () => {
        try {
          await api.call('POST', base + '/restore', { body: { version: v.version } });
          say(`Restored version ${v.version}.`);
          go(['note', n.id]);
        } catch (e) {
          say(e.message, true);
        }
      });
    }
    list.append(h('section', { class: 'version', 'aria-label': `Version ${v.version}` },
      h('h3', null, `Version ${v.version} · ${v.actor}`),
      h('p', { class: 'muted' }, timeEl(v.created_at), v.reason ? [' · ', v.reason] : null),
      v.changes.length ? v.changes.map(changeEl) : h('div', { class: 'diff' }, v.snapshot.content),
      restore));
  }
  return list;
}
