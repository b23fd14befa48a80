// Stats: notes by enrichment state, the queue, token usage by operation,
// as small bar charts (SVG built node by node, no markup strings).
import { h } from './dom.js';
import { nsPath } from './api.js';

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text != null) el.textContent = text;
  return el;
}

// barChart draws one labelled bar per [label, value]; the table beside it
// carries the same numbers for screen readers.
function barChart(title, rows) {
  const max = Math.max(1, ...rows.map(([, v]) => v));
  const rowH = 24, labelW = 110, barW = 260;
  const chart = svg('svg', { class: 'chart', width: labelW + barW + 80, height: rows.length * rowH + 4, 'aria-hidden': 'true' });
  rows.forEach(([label, v], i) => {
    const y = i * rowH + 2;
    chart.append(svg('text', { x: 0, y: y + 16 }, label),
      svg('rect', { x: labelW, y: y + 4, height: rowH - 8, width: Math.max(v > 0 ? 2 : 0, (v / max) * barW) }),
      svg('text', { x: labelW + (v / max) * barW + 6, y: y + 16 }, String(v)));
  });
  const table = h('table', null, h('caption', { class: 'muted' }, title),
    h('tbody', null, rows.map(([label, v]) => h('tr', null, h('th', { scope: 'row' }, label), h('td', null, String(v))))));
  return h('figure', null, h('figcaption', null, h('strong', null, title)), chart,
    h('details', null, h('summary', null, 'As a table'), table));
}

function tile(n, label) {
  return h('div', { class: 'tile' }, h('strong', null, Number(n).toLocaleString('en')), h('span', null, label));
}

export async function statsView({ api, ns, el }) {
  const st = await api.get(nsPath(ns, 'stats'));
  const by = st.by_state || {};
  const tokens = st.tokens.prompt_tokens + st.tokens.completion_tokens;
  el.append(
    h('div', { class: 'page-head' }, h('h1', null, 'Stats'), h('span', { class: 'ns-badge', title: 'Namespace' }, ns)),
    h('div', { class: 'tiles' }, tile(st.notes, 'notes'), tile(st.links, 'links'), tile(by.pending || 0, 'waiting for enrichment'),
      tile(by.failed || 0, 'enrichment failed'), tile(tokens, 'model tokens')),
    h('p', { id: 'stats-summary', class: 'muted' }, `${st.notes} notes, ${st.links} links; enrichment queue: ${by.pending || 0} pending, ${by.failed || 0} failed. Embedder: ${st.embedder || '—'} (${st.dimensions} dimensions).`),
    h('div', { class: 'charts' },
      h('div', { class: 'card' }, barChart('Notes by enrichment state', ['pending', 'done', 'failed'].map((s) => [s, by[s] || 0]))),
      h('div', { class: 'card' }, st.usage.length
        ? barChart('Model tokens by operation', st.usage.map((u) => [u.operation, u.prompt_tokens + u.completion_tokens]))
        : [h('strong', null, 'Model tokens by operation'), h('p', { class: 'muted' }, 'No model tokens spent: the curator needs no model, or none has run yet.')])),
    h('p', { class: 'muted' }, `Tokens in all: ${st.tokens.prompt_tokens} prompt, ${st.tokens.completion_tokens} completion.`),
    h('p', { id: 'stats-retention', class: 'muted' }, retentionText(st.retention)));
}

// retentionText says the namespace's retention policy and what it would
// move to the trash now (issue 30, item 3).
function retentionText(r) {
  if (!r) return 'Retention: none, every note is kept (amem retention sets a policy).';
  const due = r.due === 1 ? '1 note' : `${r.due} notes`;
  const oldest = r.oldest_due ? `, the oldest ${r.oldest_due.id}${r.oldest_due.event_time ? ` from ${r.oldest_due.event_time.slice(0, 10)}` : ''}` : '';
  return `Retention: ${r.policy}; ${r.due ? `${due} would go to the trash now${oldest}` : 'nothing to move to the trash now'}.`;
}
