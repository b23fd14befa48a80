// The graph: notes as nodes, links as edges weighted by strength, laid
// out by Cytoscape's built-in layouts (see layout). Either a whole namespace
// (paged through GET .../notes and .../links) or one note's
// neighbourhood, expanded a step at a time.
import cytoscape from '../vendor/cytoscape/cytoscape.esm.min.mjs';
import { h, field, route, replace, say, snippet, tagsEl, timeEl } from './dom.js';
import { nsPath } from './api.js';

// MAX_NOTES bounds a whole-namespace graph; past it, start from a note.
const MAX_NOTES = 5000;

function hue(s) {
  let x = 0;
  for (const c of s) x = (x * 31 + c.codePointAt(0)) >>> 0;
  return x % 360;
}

// nodeData is what Cytoscape keeps of a note; the note itself stays in
// the view's map, out of Cytoscape's copies.
function nodeData(n) {
  return { id: n.id, label: snippet(n.content, 40), tag: n.tags[0] || '', t: Date.parse(n.event_time) || 0 };
}

// colour sets every node's colour in one batch: one style pass, not one
// a node.
function colour(cy, by) {
  cy.batch(() => paint(cy.nodes(), by));
}

function paint(nodes, by) {
  if (by === 'time') {
    const ts = nodes.map((n) => n.data('t')).filter(Boolean);
    const lo = ts.length ? Math.min(...ts) : 0, span = ts.length ? Math.max(...ts) - lo || 1 : 1;
    // Old notes blue, new ones orange.
    nodes.forEach((n) => n.data('color', `hsl(${Math.round(220 - ((n.data('t') - lo) / span) * 190)}, 70%, 50%)`));
  } else {
    nodes.forEach((n) => n.data('color', n.data('tag') ? `hsl(${hue(n.data('tag'))}, 65%, 50%)` : 'hsl(0, 0%, 55%)'));
  }
}

// LABELS_MAX is the most notes drawn with labels: past it the labels are
// clutter, and measuring them slows drawing; the selected note and its
// neighbours keep theirs.
const LABELS_MAX = 300;

function style(big) {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const fg = dark ? '#e6edf3' : '#1b1f24';
  const label = { label: 'data(label)', color: fg, 'font-size': 9, 'text-valign': 'bottom', 'text-margin-y': 3, 'min-zoomed-font-size': 7,
    'text-wrap': 'wrap', 'text-max-width': 110 };
  return [
    { selector: 'node', style: { 'background-color': 'data(color)', width: 14, height: 14, ...(big ? {} : label) } },
    { selector: 'node:selected, node.near', style: label },
    { selector: 'edge', style: { width: 'mapData(strength, 0, 1, 0.5, 5)', 'line-color': dark ? '#57606a' : '#afb8c1', 'curve-style': 'haystack', opacity: 0.8 } },
    { selector: 'node:selected', style: { 'border-width': 3, 'border-color': dark ? '#ff9bce' : '#bf3989' } },
    { selector: 'node.evolved', style: { shape: 'star', width: 22, height: 22, 'border-width': 2, 'border-color': '#e3b341' } },
  ];
}

// COSE_MAX is the most notes the force-directed cose layout gets by
// default: it is quadratic per iteration, about 3 s at 200 notes and over
// a minute at 2,000, during which the page is frozen. Larger graphs get
// concentric rings by degree (well connected notes in the middle), under
// a second at 2,000.
const COSE_MAX = 200;
const LAYOUTS = ['auto', 'cose', 'concentric', 'breadthfirst', 'circle', 'grid'];

function layout(cy, name) {
  if (name === 'auto' || !LAYOUTS.includes(name)) name = cy.nodes().length <= COSE_MAX ? 'cose' : 'concentric';
  const opts = { name, animate: false };
  if (name === 'cose') Object.assign(opts, { randomize: true, numIter: 1000, nodeDimensionsIncludeLabels: true });
  if (name === 'concentric') Object.assign(opts, { concentric: (n) => n.degree(), minNodeSpacing: 4 });
  cy.layout(opts).run();
  // A few notes fitted to the view would be drawn huge.
  if (cy.zoom() > 1.5) {
    cy.zoom(1.5);
    cy.center();
  }
}

export async function graphView({ api, ns, query, el, go }) {
  const start = query.get('start') || '';
  const by = query.get('color') || 'tag';
  const lay = query.get('layout') || 'auto';
  const form = h('form', { class: 'filters', 'aria-label': 'Graph' },
    field('Start from note ID (empty: the whole namespace)', h('input', { id: 'g-start', name: 'start', value: start })),
    field('Colour by', h('select', { id: 'g-color', name: 'color' },
      [['tag', 'first tag'], ['time', 'event time']].map(([v, t]) => h('option', { value: v, selected: v === by }, t)))),
    field('Layout', h('select', { id: 'g-layout', name: 'layout' },
      LAYOUTS.map((v) => h('option', { value: v, selected: v === lay }, v === 'auto' ? `auto (cose up to ${COSE_MAX} notes)` : v)))),
    h('div', null, h('button', { class: 'primary', type: 'submit' }, 'Show')));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const d = new FormData(form);
    const p = new URLSearchParams({ color: d.get('color'), layout: d.get('layout') });
    if (d.get('start').trim()) p.set('start', d.get('start').trim());
    go(['graph'], p);
  });
  const container = h('div', { id: 'cy', role: 'img', 'aria-label': 'Graph of notes and links; the panel beside it describes the selected note' });
  const panel = h('div', { class: 'panel', id: 'graph-panel' }, h('p', { class: 'muted' }, 'Select a note to see it here.'));
  // The canvas takes no keyboard focus: this list reaches every note in it.
  const pick = h('select', { id: 'g-pick' });
  const pickField = h('div', { class: 'panel' }, field('Select a note in the graph', pick));
  const count = h('p', { id: 'graph-count', 'aria-live': 'polite' });
  const legend = h('p', { class: 'muted' }, by === 'time'
    ? 'Colour: event time, blue oldest to orange newest. '
    : 'Colour: the note’s first tag (grey: none). ',
  'Thicker links are stronger. Stars: notes the selected note evolved. Double-click a note to open it.');
  el.append(h('h1', null, 'Graph of ', h('q', null, ns)), form, legend, count,
    h('div', { class: 'graph' }, container, h('div', null, pickField, panel)));

  // Everything is fetched before Cytoscape draws: drawn between
  // fetches, 2,000 nodes not yet laid out cost seconds a frame.
  const initial = start ? await neighbourhood(api, ns, start) : await wholeNamespace(api, ns);
  const notes = new Map(); // ID: note
  const seen = new Set();
  const elements = [];
  for (const n of initial.notes) {
    if (!seen.has(n.id)) elements.push({ group: 'nodes', data: nodeData(n) });
    seen.add(n.id);
    notes.set(n.id, n);
  }
  for (const l of initial.links) {
    const id = edgeID(l);
    if (!seen.has(id) && seen.has(l.source) && seen.has(l.target)) elements.push({ group: 'edges', data: edgeData(l) });
    seen.add(id);
  }
  const big = initial.notes.length > LABELS_MAX;
  // A big graph is drawn at one pixel per CSS pixel: sharpness on a HiDPI
  // screen costs it four times the drawing.
  const cy = cytoscape({ container, elements, style: style(big), hideEdgesOnViewport: true, textureOnViewport: true,
    minZoom: 0.005, maxZoom: 4, pixelRatio: big ? 1 : 'auto', layout: { name: 'preset' } });
  // Tests and the console reach the instance through its container, not
  // a global.
  container.cy = cy;
  // Cytoscape caches where its container is and updates that on window
  // resize and scroll only; text changing above it moves it too.
  new ResizeObserver(() => cy.resize()).observe(el);
  const expanded = new Set();
  const showCount = () => {
    count.textContent = `${cy.nodes().length} notes, ${cy.edges().length} links shown.`;
    replace(pick, h('option', { value: '' }, '—'),
      cy.nodes().map((n) => h('option', { value: n.id(), selected: n.selected() }, n.data('label'))));
  };

  const addNote = (n) => {
    if (cy.getElementById(n.id).empty()) cy.add({ group: 'nodes', data: nodeData(n) });
    notes.set(n.id, n);
  };
  const addLink = (l) => {
    if (cy.getElementById(edgeID(l)).empty() && !cy.getElementById(l.source).empty() && !cy.getElementById(l.target).empty()) {
      cy.add({ group: 'edges', data: edgeData(l) });
    }
  };

  const expand = async (id) => {
    const { links } = await api.get(nsPath(ns, 'notes', id, 'links'));
    cy.batch(() => {
      for (const { link, note } of links) { addNote(note); addLink(link); }
    });
    expanded.add(id);
    colour(cy, by);
    layout(cy, lay);
    showCount();
  };

  // highlightEvolved marks the notes whose history says this note's
  // enrichment evolved them (actor evolve, "evolved by new note ID").
  const highlightEvolved = async (id) => {
    const { links } = await api.get(nsPath(ns, 'notes', id, 'links'));
    const histories = await Promise.all(links.map(({ note }) => api.get(nsPath(ns, 'notes', note.id, 'history')).then((r) => [note, r.versions])));
    cy.nodes().removeClass('evolved');
    let n = 0;
    for (const [note, versions] of histories) {
      if (versions.some((v) => v.actor === 'evolve' && (v.reason || '').startsWith('evolved by new note ' + id))) {
        addNote(note);
        cy.getElementById(note.id).addClass('evolved');
        n++;
      }
    }
    colour(cy, by);
    say(n ? `${n} note(s) evolved by this one are drawn as stars.` : 'This note evolved no other note.');
  };

  const select = (node) => {
    const n = notes.get(node.id());
    cy.batch(() => {
      cy.nodes('.near').removeClass('near');
      node.neighborhood('node').addClass('near');
    });
    const exp = h('button', { type: 'button', id: 'g-expand' }, expanded.has(n.id) ? 'Expanded' : 'Expand neighbours');
    exp.disabled = expanded.has(n.id);
    exp.addEventListener('click', () => expand(n.id).then(() => select(cy.getElementById(n.id))).catch((e) => say(e.message, true)));
    const evo = h('button', { type: 'button', id: 'g-evolved' }, 'Highlight notes it evolved');
    evo.addEventListener('click', () => highlightEvolved(n.id).catch((e) => say(e.message, true)));
    replace(panel,
      h('h2', null, 'Selected note'),
      h('p', { class: 'content', id: 'g-content' }, snippet(n.content, 400)),
      h('p', null, timeEl(n.event_time)),
      h('p', null, tagsEl(n.tags)),
      h('p', null, `${node.degree()} link(s) shown`),
      h('div', { class: 'actions' }, h('a', { href: route('note', n.id), id: 'g-open' }, 'Open note'), exp, evo));
  };
  cy.on('tap', 'node', (e) => select(e.target));
  pick.addEventListener('change', () => {
    const node = cy.getElementById(pick.value);
    if (node.empty()) return;
    cy.$(':selected').unselect();
    node.select();
    cy.animate({ center: { eles: node } }, { duration: 200 });
    select(node);
  });
  cy.on('dbltap', 'node', (e) => go(['note', e.target.id()]));

  colour(cy, by);
  layout(cy, lay);
  showCount();
  if (initial.capped) say(`Showing the first ${initial.notes.length} notes; start from a note to see the rest.`);
  if (start) {
    expanded.add(start);
    const node = cy.getElementById(start);
    node.select();
    select(node);
  }
}

function edgeID(l) {
  return l.source + '>' + l.target;
}

function edgeData(l) {
  return { id: edgeID(l), source: l.source, target: l.target, strength: l.strength, reason: l.reason || '' };
}

// neighbourhood is a note and the notes linked to it.
async function neighbourhood(api, ns, id) {
  const [n, { links }] = await Promise.all([api.get(nsPath(ns, 'notes', id)), api.get(nsPath(ns, 'notes', id, 'links'))]);
  return { notes: [n, ...links.map((l) => l.note)], links: links.map((l) => l.link) };
}

// wholeNamespace pages through the namespace's notes, up to MAX_NOTES,
// and their links.
async function wholeNamespace(api, ns) {
  const notes = [], links = [];
  let after = '';
  do {
    const p = new URLSearchParams({ limit: '1000' });
    if (after) p.set('after', after);
    const page = await api.get(nsPath(ns, 'notes'), p);
    notes.push(...page.notes);
    after = page.next || '';
  } while (after && notes.length < MAX_NOTES);
  let linksAfter = '';
  do {
    const p = new URLSearchParams({ limit: '1000' });
    if (linksAfter) p.set('after', linksAfter);
    const page = await api.get(nsPath(ns, 'links'), p);
    links.push(...page.links);
    linksAfter = page.next || '';
    // Links are paged by source in ID order, as notes are: past the last
    // note shown, a page could only hold links to notes not shown.
  } while (linksAfter && (!after || linksAfter < after));
  return { notes, links, capped: Boolean(after) };
}
