// Readable diffs of a version's changes: a word diff for text, added and
// removed items for lists. Output is <ins>/<del> elements holding text.
import { h, fmtTime, isZeroTime, route } from './dom.js';

// Above this many cells the word table would be slow; the old and new
// text are shown whole instead.
const MAX_CELLS = 4_000_000;

// wordDiff returns [op, text] pieces: op is '=', '-' or '+'.
export function wordDiff(a, b) {
  const x = a.split(/(\s+)/), y = b.split(/(\s+)/);
  const n = x.length, m = y.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) return [['-', a], ['+', b]];
  // lcs[i][j]: the longest common subsequence of x[i:] and y[j:].
  const w = m + 1, lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const out = [];
  const push = (op, s) => {
    if (out.length && out[out.length - 1][0] === op) out[out.length - 1][1] += s;
    else out.push([op, s]);
  };
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) { push('=', x[i]); i++; j++; }
    else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) push('-', x[i++]);
    else push('+', y[j++]);
  }
  while (i < n) push('-', x[i++]);
  while (j < m) push('+', y[j++]);
  return out;
}

function pieces(diff) {
  return diff.map(([op, s]) => (op === '=' ? s : h(op === '+' ? 'ins' : 'del', null, s)));
}

function parse(json) {
  try { return JSON.parse(json); } catch { return json; }
}

function asText(v) {
  if (v == null) return '';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.join(', ');
  if (typeof v === 'object') return Object.entries(v).map(([k, x]) => k + '=' + x).join('\n');
  return String(v);
}

// FIELDS names the snapshot's fields for people.
const FIELDS = { content: 'Content', event_time: 'Event time', keywords: 'Keywords', tags: 'Tags',
  curator_tags: 'Curator tags', context: 'Context', metadata: 'Metadata', valid_until: 'True until',
  superseded_by: 'Superseded by', caller_set: 'Written by the caller' };

// timeChange shows a change of time humanely; Go's zero time, which a
// first version changes from, is no time at all and is left out.
function timeChange(before, after) {
  const one = (op, t) => h(op, { title: t }, fmtTime(t));
  if (isZeroTime(before)) return one('ins', after);
  if (isZeroTime(after)) return one('del', before);
  return [one('del', before), ' → ', one('ins', after)];
}

// noteChange shows a change of the note that superseded this one: a
// link to each, and what no note supersedes it any more.
function noteChange(before, after) {
  const one = (op, id) => h(op, null, h('a', { href: route('note', id) }, id));
  const out = [];
  if (before) out.push(one('del', before), ' ');
  if (after) out.push(one('ins', after));
  else out.push(h('span', { class: 'muted' }, 'none: current again'));
  return out;
}

// changeEl shows one field change ({field, old, new}, values as JSON).
export function changeEl(c) {
  const before = parse(c.old), after = parse(c.new);
  let body;
  if (c.field.endsWith('_time') || c.field === 'valid_until') {
    body = timeChange(before, after);
  } else if (c.field === 'superseded_by') {
    body = noteChange(before, after);
  } else if (Array.isArray(before) || Array.isArray(after)) {
    const b = new Set(before || []), a = new Set(after || []);
    const gone = [...b].filter((t) => !a.has(t)), added = [...a].filter((t) => !b.has(t));
    body = [gone.map((t) => h('del', { class: 'tag' }, t)), added.map((t) => h('ins', { class: 'tag' }, t))];
    if (!gone.length && !added.length) body = 'reordered: ' + asText(after);
  } else {
    body = pieces(wordDiff(asText(before), asText(after)));
  }
  return h('div', { class: 'change' }, h('strong', null, FIELDS[c.field] || c.field), h('div', { class: 'diff' }, body));
}
