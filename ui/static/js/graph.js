// The graph: notes as nodes, links as edges weighted by strength, laid
// out by Cytoscape's built-in layouts (see layout). Either a whole namespace
// (paged through GET .../notes and .../links) or one note's
// neighbourhood, expanded a step at a time.
import cytoscape from '../vendor/cytoscape/cytoscape.esm.min.mjs';
import { h, field, route, replace, say, snippet, tagsEl, timeEl, noLongerTrue, supersededEl } from './dom.js';
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
  // color is set at once (paint sets the real one): a style mapped from
  // data a node lacks makes Cytoscape warn on every draw.
  return { id: n.id, label: snippet(n.content.replace(/\s+/g, ' ').trim(), LABEL_CHARS), tag: n.tags[0] || '', t: Date.parse(n.event_time) || 0,
    color: NO_TAG };
}

// nodeEl is a note as a Cytoscape node; one no longer true is classed
// superseded (drawn faded).
function nodeEl(n) {
  return { group: 'nodes', data: nodeData(n), classes: noLongerTrue(n) ? 'superseded' : '' };
}

// LABEL_CHARS is the length of a node's label: enough to recognise a
// note, short enough that neighbours' labels rarely overlap.
const LABEL_CHARS = 28;

// colour sets every node's colour in one batch: one style pass, not one
// a node.
function colour(cy, by) {
  cy.batch(() => paint(cy.nodes(), by));
}

const NO_TAG = 'hsl(0, 0%, 55%)';
// PALETTE colours the most used tags, one distinct colour each (Tableau
// 10's, readable on light and dark canvases); rarer tags get a hue from
// their name.
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#edc948', '#76b7b2', '#ff9da7', '#9c755f'];

// tagRanks counts the nodes' first tags, the most used first.
function tagRanks(nodes) {
  const counts = new Map();
  nodes.forEach((n) => counts.set(n.data('tag'), (counts.get(n.data('tag')) || 0) + 1));
  const tags = [...counts].filter(([t]) => t).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return { tags, untagged: counts.get('') || 0 };
}

function tagColour(tag, rank) {
  if (!tag) return NO_TAG;
  return rank < PALETTE.length ? PALETTE[rank] : `hsl(${hue(tag)}, 55%, 50%)`;
}
function timeColour(f) {
  return `hsl(${Math.round(220 - f * 190)}, 70%, 50%)`;
}

// LEGEND_TAGS is how many tags the legend names, the most used first:
// those with a colour of their own.
const LEGEND_TAGS = PALETTE.length;

// legendItems says what the colours mean for the nodes drawn, and what
// the supersedes links and faded notes are when there are any.
function legendItems(cy, by) {
  return [...colourItems(cy, by), ...supersedeItems(cy)];
}

function swatch(color, cls = '') {
  return h('span', { class: 'swatch' + cls, 'data-color': color });
}

function colourItems(cy, by) {
  if (by === 'time') {
    const ts = cy.nodes().map((n) => n.data('t')).filter(Boolean);
    if (!ts.length) return [h('span', null, 'No event times.')];
    const fmt = (t) => new Date(t).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
    return [h('span', { class: 'legend-item' }, swatch(timeColour(0)), 'oldest ', fmt(Math.min(...ts))),
      h('span', { class: 'legend-item' }, swatch(timeColour(0.5)), 'middle'),
      h('span', { class: 'legend-item' }, swatch(timeColour(1)), 'newest ', fmt(Math.max(...ts)))];
  }
  const { tags, untagged } = tagRanks(cy.nodes());
  const items = tags.slice(0, LEGEND_TAGS).map(([t, c], i) => h('span', { class: 'legend-item', title: t }, swatch(tagColour(t, i)), snippet(t, 24), h('span', { class: 'muted' }, ` ${c}`)));
  if (tags.length > LEGEND_TAGS) items.push(h('span', { class: 'legend-item muted' }, `and ${tags.length - LEGEND_TAGS} more tags`));
  if (untagged) items.push(h('span', { class: 'legend-item' }, swatch(NO_TAG), 'no tag', h('span', { class: 'muted' }, ` ${untagged}`)));
  return items;
}

// supersedeItems explains the supersedes links and the faded notes, when
// the graph has any.
function supersedeItems(cy) {
  const items = [];
  if (!cy.edges('[kind = "supersedes"]').empty()) {
    items.push(h('span', { class: 'legend-item', id: 'legend-supersedes' }, h('span', { class: 'legend-edge', 'aria-hidden': 'true' }),
      'supersedes (newer → older)'));
  }
  if (!cy.nodes('.superseded').empty()) {
    items.push(h('span', { class: 'legend-item', id: 'legend-superseded' }, swatch(NO_TAG, ' faded'), 'faded: no longer true'));
  }
  return items;
}

// paintSwatches colours the legend's swatches: the CSP forbids inline
// style attributes in markup, but not the CSSOM.
function paintSwatches(el) {
  for (const sw of el.querySelectorAll('.swatch')) sw.style.backgroundColor = sw.dataset.color;
}

function paint(nodes, by) {
  if (by === 'time') {
    const ts = nodes.map((n) => n.data('t')).filter(Boolean);
    const lo = ts.length ? Math.min(...ts) : 0, span = ts.length ? Math.max(...ts) - lo || 1 : 1;
    // Old notes blue, new ones orange.
    nodes.forEach((n) => n.data('color', n.data('t') ? timeColour((n.data('t') - lo) / span) : NO_TAG));
  } else {
    const rank = new Map(tagRanks(nodes).tags.map(([t], i) => [t, i]));
    nodes.forEach((n) => n.data('color', tagColour(n.data('tag'), rank.get(n.data('tag')))));
  }
}

// LABELS_MAX is the most notes drawn with labels: past it the labels are
// clutter, and measuring them slows drawing; the selected note and its
// neighbours keep theirs.
const LABELS_MAX = 300;

function supersedesColour(dark) {
  return dark ? '#e3b341' : '#9a6700';
}

function style(big) {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const fg = dark ? '#e6edf3' : '#1b1f24';
  const halo = dark ? '#161b22' : '#f6f8fa';
  // Labels sit under their node on one line with a halo of the canvas'
  // colour, readable across edges; below 5 px on screen they are not drawn.
  const label = { label: 'data(label)', color: fg, 'font-size': 13, 'text-valign': 'bottom', 'text-margin-y': 4, 'min-zoomed-font-size': 5,
    'text-outline-color': halo, 'text-outline-width': 2, 'text-outline-opacity': 0.85 };
  return [
    { selector: 'node', style: { 'background-color': 'data(color)', width: 16, height: 16, 'border-width': 1.5, 'border-color': halo, ...(big ? {} : label) } },
    { selector: 'node:selected, node.near', style: { ...label, 'z-index': 10 } },
    { selector: 'edge', style: { width: 'mapData(strength, 0, 1, 0.5, 5)', 'line-color': dark ? '#57606a' : '#afb8c1', 'curve-style': 'haystack', opacity: 0.8 } },
    { selector: 'node:selected', style: { 'border-width': 3, 'border-color': dark ? '#ff9bce' : '#bf3989', 'font-weight': 'bold' } },
    // A supersedes link is dashed, with an arrow from the newer note to
    // the one it made no longer true (haystack edges draw no arrows); the
    // old note is faded.
    { selector: 'edge[kind = "supersedes"]', style: { width: 2, 'line-style': 'dashed', 'line-dash-pattern': [6, 4], 'curve-style': 'straight',
      'line-color': supersedesColour(dark), 'target-arrow-shape': 'triangle', 'target-arrow-color': supersedesColour(dark), 'arrow-scale': 1.2, opacity: 1 } },
    { selector: 'node.superseded', style: { opacity: 0.4 } },
    { selector: 'node.evolved', style: { shape: 'star', width: 24, height: 24, 'border-width': 2, 'border-color': '#e3b341' } },
  ];
}

// COSE_MAX is the most notes the force-directed cose layout gets by
// default: it is quadratic per iteration, about 3 s at 200 notes and over
// a minute at 2,000, during which the page is frozen. Larger graphs get
// concentric rings by degree (well connected notes in the middle), under
// a second at 2,000.
const COSE_MAX = 200;
const LAYOUTS = ['auto', 'cose', 'concentric', 'breadthfirst', 'circle', 'grid'];

// MAX_FIT_ZOOM bounds the zoom of a fitted view: a few notes fitted to
// the canvas would be drawn huge.
const MAX_FIT_ZOOM = 1.6;
// MAX_FOCUS_ZOOM bounds the zoom on a selected note's neighbourhood,
// which keeps some of the graph around it in view.
const MAX_FOCUS_ZOOM = 1.2;
const FIT_PADDING = 40;

// layout lays the graph out over the whole canvas (its bounding box is
// the container's), then fits it in view.
function layout(cy, name) {
  if (name === 'auto' || !LAYOUTS.includes(name)) name = cy.nodes().length <= COSE_MAX ? 'cose' : 'concentric';
  const w = cy.width(), ht = cy.height();
  const opts = { name, animate: false, fit: false, padding: FIT_PADDING };
  // Inset by half a label's width and a label's height, so that the fit
  // after it draws at about 1:1, labels readable.
  if (w > 240 && ht > 120) opts.boundingBox = { x1: 90, y1: 30, w: w - 180, h: ht - 70 };
  if (name === 'cose') {
    // Repulsion grows with the canvas so that few notes spread over it
    // rather than bunch in its middle.
    Object.assign(opts, { randomize: true, numIter: 1000, nodeDimensionsIncludeLabels: true,
      idealEdgeLength: () => 60, componentSpacing: 120, nodeRepulsion: () => 8000 + (w * ht) / Math.max(1, cy.nodes().length) * 8 });
  }
  if (name === 'concentric') Object.assign(opts, { concentric: (n) => n.degree(), minNodeSpacing: 4 });
  cy.layout(opts).run();
  fitView(cy, cy.elements());
}

// fitView fits eles in the canvas, no closer than MAX_FIT_ZOOM.
function fitView(cy, eles, animate = false) {
  if (eles.empty()) return;
  cy.stop();
  if (!animate) {
    cy.fit(eles, FIT_PADDING);
    if (cy.zoom() > MAX_FIT_ZOOM) {
      cy.zoom(MAX_FIT_ZOOM);
      cy.center(eles);
    }
    return;
  }
  // The zoom a fit would give, capped, around the centre of eles.
  const bb = eles.boundingBox();
  const zoom = Math.min(MAX_FOCUS_ZOOM, (cy.width() - 2 * FIT_PADDING) / Math.max(bb.w, 1), (cy.height() - 2 * FIT_PADDING) / Math.max(bb.h, 1));
  const z = Math.max(cy.minZoom(), zoom);
  cy.animate({ zoom: z, pan: { x: cy.width() / 2 - z * (bb.x1 + bb.w / 2), y: cy.height() / 2 - z * (bb.y1 + bb.h / 2) } }, { duration: 250 });
}

export async function graphView({ api, ns, query, el, go }) {
  const start = query.get('start') || '';
  const by = query.get('color') || 'tag';
  const lay = query.get('layout') || 'auto';
  const form = h('form', { class: 'filterbar', 'aria-label': 'Graph' },
    field('Start from note ID', h('input', { id: 'g-start', name: 'start', value: start, placeholder: 'empty: the whole namespace' }), 'f-text'),
    field('Colour by', h('select', { id: 'g-color', name: 'color' },
      [['tag', 'First tag'], ['time', 'Event time']].map(([v, t]) => h('option', { value: v, selected: v === by }, t)))),
    field('Layout', h('select', { id: 'g-layout', name: 'layout' },
      LAYOUTS.map((v) => h('option', { value: v, selected: v === lay }, v === 'auto' ? `Auto (cose up to ${COSE_MAX} notes)` : v)))),
    h('div', { class: 'f-buttons' }, h('button', { class: 'primary', type: 'submit' }, 'Show'),
      start ? h('a', { class: 'button ghost', href: '#/graph' }, 'Whole namespace') : null));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const d = new FormData(form);
    const p = new URLSearchParams({ color: d.get('color'), layout: d.get('layout') });
    if (d.get('start').trim()) p.set('start', d.get('start').trim());
    go(['graph'], p);
  });
  const container = h('div', { id: 'cy', role: 'img', 'aria-label': 'Graph of notes and links; the panel beside it describes the selected note' });
  const panel = h('div', { class: 'panel', id: 'graph-panel' }, h('p', { class: 'muted' }, 'Click a note to see it here; double-click to open it.'));
  // The canvas takes no keyboard focus: this list reaches every note in it.
  const pick = h('select', { id: 'g-pick' });
  const pickField = h('div', { class: 'panel' }, field('Select a note in the graph', pick));
  const count = h('span', { id: 'graph-count', 'aria-live': 'polite' });
  const legend = h('div', { class: 'legend', id: 'g-legend', 'aria-label': 'Legend' });
  const fitAll = h('button', { type: 'button', class: 'ghost small', id: 'g-fit' }, 'Fit all');
  el.append(h('div', { class: 'page-head' }, h('h1', null, 'Graph'), h('span', { class: 'ns-badge', title: 'Namespace' }, ns)), form,
    h('div', { class: 'graph' },
      h('div', { class: 'graph-canvas' },
        h('div', { class: 'graph-bar' }, count, legend, h('span', { class: 'graph-note muted' }, 'Thicker links are stronger; ★ notes the selected one evolved.'), fitAll),
        container),
      h('div', { class: 'graph-side' }, pickField, panel)));

  // Everything is fetched before Cytoscape draws: drawn between
  // fetches, 2,000 nodes not yet laid out cost seconds a frame.
  const initial = start ? await neighbourhood(api, ns, start) : await wholeNamespace(api, ns);
  const notes = new Map(); // ID: note
  const seen = new Set();
  const elements = [];
  for (const n of initial.notes) {
    if (!seen.has(n.id)) elements.push(nodeEl(n));
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
  fitAll.addEventListener('click', () => fitView(cy, cy.elements(), true));
  const showLegend = () => {
    replace(legend, legendItems(cy, by));
    paintSwatches(legend);
  };
  const showCount = () => {
    count.textContent = `${cy.nodes().length} notes, ${cy.edges().length} links shown.`;
    showLegend();
    replace(pick, h('option', { value: '' }, '—'),
      cy.nodes().map((n) => h('option', { value: n.id(), selected: n.selected() }, n.data('label'))));
  };

  const addNote = (n) => {
    if (cy.getElementById(n.id).empty()) cy.add(nodeEl(n));
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

  const select = (node, focus = true) => {
    const n = notes.get(node.id());
    cy.batch(() => {
      cy.nodes('.near').removeClass('near');
      node.neighborhood('node').addClass('near');
    });
    // The view moves to the note and its neighbours, inside the canvas;
    // the page does not scroll.
    if (focus) fitView(cy, node.closedNeighborhood(), true);
    pick.value = n.id;
    const exp = h('button', { type: 'button', id: 'g-expand' }, expanded.has(n.id) ? 'Expanded' : 'Expand neighbours');
    exp.disabled = expanded.has(n.id);
    exp.addEventListener('click', () => expand(n.id).then(() => select(cy.getElementById(n.id))).catch((e) => say(e.message, true)));
    const evo = h('button', { type: 'button', id: 'g-evolved' }, 'Highlight notes it evolved');
    evo.addEventListener('click', () => highlightEvolved(n.id).catch((e) => say(e.message, true)));
    replace(panel,
      h('h2', null, 'Selected note'),
      h('p', { class: 'content', id: 'g-content' }, snippet(n.content, 400)),
      supersededEl(n) ? h('p', null, supersededEl(n)) : null,
      h('p', { class: 'muted' }, timeEl(n.event_time), ` · ${node.degree()} link(s) shown`),
      h('p', null, tagsEl(n.tags)),
      h('div', { class: 'actions' }, h('a', { class: 'button primary', href: route('note', n.id), id: 'g-open' }, 'Open note'), exp, evo));
  };
  cy.on('tap', 'node', (e) => select(e.target));
  pick.addEventListener('change', () => {
    const node = cy.getElementById(pick.value);
    if (node.empty()) return;
    cy.$(':selected').unselect();
    node.select();
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
    select(node, false);
  }
}

function edgeID(l) {
  return l.source + '>' + l.target;
}

function edgeData(l) {
  return { id: edgeID(l), source: l.source, target: l.target, strength: l.strength, reason: l.reason || '', kind: l.kind || 'related' };
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
