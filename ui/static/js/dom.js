// DOM helpers. Every value from the API (note text, tags, metadata,
// reasons) comes from agents and is untrusted: it only ever becomes a text
// node. Nothing here parses HTML.

// h makes an element. attrs: "class", "on<event>" listeners, properties
// set directly for form controls (value, checked, disabled), the rest as
// attributes. Children: nodes, or anything else as text.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'value' || k === 'checked' || k === 'selected') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

// append adds children to el as h does: nodes, or text; null and false
// are left out.
export function append(el, ...children) {
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// replace empties el and fills it with children.
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// link to a route of the UI. Route parts are URI-encoded, so an ID can't
// turn into another route or a javascript: URL.
export function route(...parts) {
  return '#/' + parts.map(encodeURIComponent).join('/');
}

// isZeroTime: Go's zero time.Time, which the API sends for "never".
export function isZeroTime(t) {
  return !t || t.startsWith('0001-01-01');
}

const dateFmt = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
const relFmt = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

// fmtTime writes a time for people: "3 Dec 2026, 14:05" in the browser's
// time zone, or relative ("5 minutes ago") within the last day; "—" for
// none. now is for tests.
export function fmtTime(t, now = Date.now()) {
  if (isZeroTime(t)) return '—';
  const d = new Date(t);
  if (isNaN(d)) return t;
  const ago = (now - d.getTime()) / 1000;
  if (ago >= 0 && ago < 45) return 'just now';
  if (ago >= 0 && ago < 3600) return relFmt.format(-Math.round(ago / 60), 'minute');
  if (ago >= 0 && ago < 86400) return relFmt.format(-Math.round(ago / 3600), 'hour');
  return dateFmt.format(d);
}

// timeEl is a humane time with the exact one (ISO 8601, UTC) as its
// title and datetime.
export function timeEl(t) {
  if (isZeroTime(t)) return h('span', { class: 'muted' }, '—');
  const d = new Date(t);
  return h('time', { datetime: t, title: isNaN(d) ? t : d.toISOString() }, fmtTime(t));
}

// The time inputs (datetime-local holds no zone) read and write the
// browser's time zone; the API gets UTC.
const pad = (x) => String(x).padStart(2, '0');

// toLocalInput is an API time as a datetime-local value in this zone.
export function toLocalInput(t) {
  if (isZeroTime(t)) return '';
  const d = new Date(t);
  if (isNaN(d)) return '';
  const s = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return d.getSeconds() ? s + ':' + pad(d.getSeconds()) : s;
}

// fromLocalInput is a datetime-local value (local time: ECMAScript reads
// a date-time without an offset so) as the API's RFC 3339 UTC time.
export function fromLocalInput(v, what = 'the event time') {
  const d = new Date(v);
  if (isNaN(d)) throw new Error(`${what} ${JSON.stringify(v)} is not a date and time`);
  return d.toISOString();
}

// noLongerTrue says whether what note (or search result) n says had
// stopped being true by now: its valid_until passed. A note superseded
// with no end time set counts as ended.
export function noLongerTrue(n, now = Date.now()) {
  if (!n.superseded_by && isZeroTime(n.valid_until)) return false;
  return isZeroTime(n.valid_until) || Date.parse(n.valid_until) <= now;
}

// supersededEl marks a note no longer true: a muted pill that links to
// the note that superseded it, if one did; null for a current note.
export function supersededEl(n) {
  if (!noLongerTrue(n)) return null;
  const since = isZeroTime(n.valid_until) ? '' : ' since ' + fmtTime(n.valid_until);
  if (!n.superseded_by) return h('span', { class: 'pill superseded', title: 'No longer true' + since }, 'no longer true');
  return h('a', { class: 'pill superseded', href: route('note', n.superseded_by), 'data-by': n.superseded_by,
    title: `No longer true${since}: open the note that superseded it` }, 'superseded');
}

export function tagsEl(tags) {
  if (!tags || tags.length === 0) return h('span', { class: 'muted' }, 'none');
  return h('span', { class: 'tags' }, tags.map((t) => h('span', { class: 'tag', title: t }, t)));
}

export function stateEl(state) {
  return h('span', { class: 'state-' + (state || 'unknown') }, state || '—');
}

// snippet shortens text for lists and labels.
export function snippet(text, n = 200) {
  return text.length > n ? text.slice(0, n - 1) + '…' : text;
}

// field wraps a control with its label; id ties them for screen readers.
// cls, if given, classes the wrapper (for layout).
export function field(text, control, cls) {
  return h('div', { class: cls ? 'field ' + cls : 'field' }, h('label', { for: control.id }, text), control);
}

let statusTimer;
let statusAt = 0;
// say announces a message in the status region (role=status).
export function say(msg, error = false) {
  const el = document.getElementById('status');
  el.className = 'status' + (error ? ' error' : '') + (msg ? ' shown' : '');
  el.textContent = msg;
  statusAt = Date.now();
  clearTimeout(statusTimer);
  if (!error && msg) statusTimer = setTimeout(() => say(''), 5000);
}

// clearStatus empties the status region when the person moves to
// another page, unless the message was just said: an action that says
// "Note added." and then opens the note keeps it for that page.
export function clearStatus() {
  if (Date.now() - statusAt > 1500) say('');
}

// emptyState is what a page shows when it has nothing to list: a line
// saying so and, if given, what to do instead (a node or text).
export function emptyState(id, text, action) {
  return h('div', { class: 'empty', id }, h('p', null, text), action || null);
}

// confirmDialog asks before something that can't be undone; a <dialog>
// rather than window.confirm keeps focus handling and styling ours.
export function confirmDialog(question, action) {
  return new Promise((resolve) => {
    const dlg = h('dialog', { 'aria-labelledby': 'confirm-q' },
      h('p', { id: 'confirm-q' }, question),
      h('form', { method: 'dialog', class: 'actions' },
        h('button', { value: 'cancel', id: 'confirm-cancel' }, 'Cancel'),
        h('button', { value: 'ok', class: 'danger', id: 'confirm-ok' }, action)));
    dlg.addEventListener('close', () => { dlg.remove(); resolve(dlg.returnValue === 'ok'); });
    document.body.append(dlg);
    dlg.showModal();
    dlg.querySelector('#confirm-cancel').focus();
  });
}
