// A note's page: its fields, enrichment, usage, links both ways, and its
// history as diffs with restore.
import { h, append, route, say, snippet, timeEl, tagsEl, stateEl, confirmDialog, isZeroTime, noLongerTrue, supersededEl } from './dom.js';
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
  append(el,
    h('div', { class: 'page-head' }, h('h1', null, 'Note'), h('code', { class: 'id' }, n.id), stateEl(n.enrichment.state)),
    validityEl(api, base, n, links, versions, go),
    supersedesEl(id, links),
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

// validityEl is the banner of a note that stopped being true (or will):
// since when, the note that superseded it, why, and a button that makes it
// current again (PATCH validity {}); null for a current note.
function validityEl(api, base, n, links, versions, go) {
  if (!n.superseded_by && isZeroTime(n.valid_until)) return null;
  const ended = noLongerTrue(n);
  const by = n.superseded_by ? links.find(({ link }) => link.source === n.superseded_by && link.target === n.id) : null;
  const byEl = !n.superseded_by ? null : by
    ? h('a', { href: route('note', n.superseded_by), id: 'superseded-by' }, snippet(by.note.content, 160))
    : h('a', { href: route('note', n.superseded_by), id: 'superseded-by' }, h('code', null, n.superseded_by));
  const since = isZeroTime(n.valid_until) ? null : timeEl(n.valid_until);
  // Why: the reason given with the change, else the link's (the
  // curator's reason, or "marked by the caller").
  const set = [...versions].reverse().find((v) => v.changes.some((c) => c.field === 'superseded_by' || c.field === 'valid_until'));
  const said = (set?.reason || '').replace(/^superseded by new note [^\s:]+(: )?/, '').replace(/^marked (superseded by note \S+|no longer true)$/, '');
  const why = said || (by && by.link.kind === 'supersedes' ? by.link.reason : '');
  const who = n.caller_validity ? 'Set by a caller: the curator leaves it alone.'
    : set?.actor === 'evolve' ? 'Decided by the curator when the newer note came.' : '';
  const again = h('button', { type: 'button', id: 'make-current' }, ended ? 'Make current again' : 'Clear the end');
  again.addEventListener('click', async () => {
    again.disabled = true;
    try {
      await api.call('PATCH', base, { body: { validity: {} } });
      say('The note is current again.');
      go(['note', n.id]);
    } catch (e) {
      again.disabled = false;
      say(e.message, true);
    }
  });
  const head = ended
    ? ['No longer true', since ? [' since ', since] : null, byEl ? [' — superseded by ', byEl] : null]
    : ['True until ', since, byEl ? [', then superseded by ', byEl] : null];
  return h('div', { class: 'banner' + (ended ? ' ended' : ''), id: 'validity-banner', role: 'note' },
    h('p', { class: 'banner-head' }, head),
    why ? h('p', { id: 'validity-why' }, 'Why: ', why) : null,
    who ? h('p', { class: 'muted small' }, who) : null,
    h('div', { class: 'actions' }, again));
}

// supersedesEl names the notes this one superseded (its links of kind
// supersedes); null when none.
function supersedesEl(id, links) {
  const old = links.filter(({ link }) => link.kind === 'supersedes' && link.source === id);
  if (old.length === 0) return null;
  return h('div', { class: 'banner', id: 'supersedes-banner', role: 'note' },
    h('p', { class: 'banner-head' }, 'Supersedes ',
      old.map(({ note }, i) => [i ? '; ' : null, h('a', { href: route('note', note.id), class: 'supersedes' }, snippet(note.content, 160))]),
      old.length === 1 ? ': what it said is no longer true.' : ': what they said is no longer true.'));
}

function linksTable(id, links) {
  if (links.length === 0) return h('p', { class: 'muted' }, 'No links.');
  return h('table', { id: 'links', class: 'list' },
    h('thead', null, h('tr', null, ['Direction', 'Note', 'Reason', 'Strength'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', null, links.map(({ link, note }) => {
      const old = supersededEl(note);
      return h('tr', null,
        h('td', null, link.source === id ? 'out (this note chose it)' : 'in (chose this note)'),
        h('td', { class: 'content' }, h('a', { href: route('note', note.id) }, snippet(note.content, 120)), old ? [' ', old] : null),
        h('td', null, link.kind === 'supersedes' ? [h('span', { class: 'pill kind' }, 'supersedes'), ' '] : null,
          link.reason || h('span', { class: 'muted' }, '—')),
        h('td', { class: 'num' }, link.strength.toFixed(2)));
    })));
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
