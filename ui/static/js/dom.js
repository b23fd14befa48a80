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

function append(el, children) {
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

export function fmtTime(t) {
  if (!t || t.startsWith('0001-')) return '—';
  const d = new Date(t);
  return isNaN(d) ? t : d.toLocaleString();
}

export function timeEl(t) {
  return h('time', { datetime: t }, fmtTime(t));
}

export function tagsEl(tags) {
  if (!tags || tags.length === 0) return h('span', { class: 'muted' }, 'none');
  return h('span', null, tags.map((t) => h('span', { class: 'tag' }, t)));
}

export function stateEl(state) {
  return h('span', { class: 'state-' + (state || 'unknown') }, state || '—');
}

// snippet shortens text for lists and labels.
export function snippet(text, n = 200) {
  return text.length > n ? text.slice(0, n - 1) + '…' : text;
}

// label wraps a control with its label; id ties them for screen readers.
export function field(text, control) {
  return h('div', null, h('label', { for: control.id }, text), control);
}

let statusTimer;
// say announces a message in the status region (role=status).
export function say(msg, error = false) {
  const el = document.getElementById('status');
  el.className = 'status' + (error ? ' error' : '');
  el.textContent = msg;
  clearTimeout(statusTimer);
  if (!error && msg) statusTimer = setTimeout(() => { el.textContent = ''; }, 5000);
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
