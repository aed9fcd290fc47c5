// DOM helpers. Every string from the API (model output above all) goes
// into the page through textContent or an attribute value, never parsed as
// HTML: there is no innerHTML, outerHTML, insertAdjacentHTML or
// document.write anywhere in these files (a Go test checks it).

// h builds an element: h("td", {class: "num"}, "text", child, ...).
// Attribute values are set with setAttribute; "on*" attributes are
// refused, so no string becomes code.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";

// s builds an SVG element.
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (/^on/i.test(k) || k === "style") throw new Error("refusing attribute " + k);
    el.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// route returns an href inside the app, each part URL-encoded.
export function route(...parts) {
  return "#/" + parts.map((p) => encodeURIComponent(String(p))).join("/");
}

export function link(parts, text, attrs) {
  return h("a", { ...(attrs || {}), href: route(...parts) }, text);
}

export function short(s) {
  s = String(s);
  return s.length > 16 ? s.slice(0, 8) + "…" + s.slice(-6) : s;
}

export function hotkeyLink(kind, hotkey) {
  return link([kind, hotkey], short(hotkey), { class: "mono", title: hotkey });
}

export function time(ms) {
  if (!ms) return "";
  return new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

export function ppm(v) {
  return (v / 10000).toFixed(2) + "%";
}

export function num(v, digits) {
  return typeof v === "number" ? v.toFixed(digits ?? 3) : "";
}

// table builds a table from header names and rows of cells; a header
// starting with "#" is right-aligned (numbers).
export function table(headers, rows, attrs) {
  const head = h("tr", null, headers.map((t) => h("th", t.startsWith("#") ? { class: "num" } : null, t.replace(/^#/, ""))));
  const body = rows.map((cells) =>
    h("tr", null, cells.map((c, i) => h("td", headers[i] && headers[i].startsWith("#") ? { class: "num" } : null, c))));
  return h("table", attrs, h("thead", null, head), h("tbody", null, body));
}

export function kv(pairs) {
  return h("dl", { class: "kv" }, pairs.filter(Boolean).map(([k, v]) => [h("dt", null, k), h("dd", null, v)]));
}

export function card(label, value) {
  return h("div", { class: "card" }, h("div", { class: "muted" }, label), h("div", { class: "big" }, value));
}
