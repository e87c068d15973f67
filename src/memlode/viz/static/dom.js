// memlode viz: DOM and request helpers shared by every page (the global M).
// Text from the store is always set as text (textContent), never parsed as HTML.
"use strict";

const M = {};

M.token = document.querySelector('meta[name="memlode-token"]').content;
M.canEdit = document.querySelector('meta[name="memlode-edit"]').content === "1";

// h("div", {class: "x", onclick: fn}, child, "text", [more]) -> element
M.h = function (tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "style") el.style.cssText = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  const add = (c) => {
    if (c === undefined || c === null || c === false) return;
    if (Array.isArray(c)) c.forEach(add);
    else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  };
  children.forEach(add);
  return el;
};

M.query = function (params) {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") out.set(k, v);
  }
  const s = out.toString();
  return s ? "?" + s : "";
};

M.api = async function (path, params, options) {
  const res = await fetch(path + M.query(params || {}), options);
  let body = null;
  try { body = await res.json(); } catch (e) { body = null; }
  if (!res.ok) {
    const message = (body && body.error) || res.status + " " + res.statusText;
    const err = new Error(message);
    err.status = res.status;
    throw err;
  }
  return body;
};

M.post = function (path, body) {
  return M.api(path, {}, {
    method: "POST",
    headers: {"content-type": "application/json", "x-memlode-token": M.token},
    body: JSON.stringify(body || {}),
  });
};

// The namespace chosen in the header ("" = the current project, "*" = all).
M.namespace = function () { return document.getElementById("namespace").value; };

M.when = function (ts) { return ts ? ts.replace("T", " ").replace(/\.\d+Z$|Z$/, "") : ""; };

M.bytes = function (n) {
  const units = ["B", "KB", "MB", "GB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return n.toFixed(i ? 1 : 0) + " " + units[i];
};

// A colour per label: fixed for the small vocabularies, golden-angle hues beyond.
M.PALETTE = ["#2f6fdf", "#e0702b", "#2e9d5a", "#c8384a", "#8153c7", "#8c5a3c", "#d35fb7",
  "#6f7378", "#b5a22a", "#1fa5b8", "#4a5fa8", "#a6423a"];
M.colour = function (i) {
  if (i < M.PALETTE.length) return M.PALETTE[i];
  return "hsl(" + ((i * 137.508) % 360).toFixed(0) + ",55%,50%)";
};
M.colourOf = function (labels) {
  const map = new Map();
  labels.forEach((l) => { if (!map.has(l)) map.set(l, M.colour(map.size)); });
  return map;
};

M.SIGNAL_COLOURS = {
  vector: "#2f6fdf", bm25: "#e0702b", graph: "#2e9d5a", temporal: "#8153c7", tags: "#d35fb7",
  importance: "#b5a22a", confidence: "#1fa5b8", recency: "#8c5a3c", late: "#c8384a",
  session: "#4a5fa8", failure: "#a6423a",
};

// The first ``max`` labels of a colour map (the largest communities come first), then a count.
M.legend = function (map, max) {
  const shown = [...map].slice(0, max || 16);
  return M.h("div", {class: "legend"},
    shown.map(([label, colour]) => M.h("span", {}, M.h("i", {style: "background:" + colour}), label)),
    map.size > shown.length ? M.h("span", {}, "… " + (map.size - shown.length) + " more") : null);
};

M.tags = function (tags) { return (tags || []).map((t) => M.h("span", {class: "tag"}, t)); };

M.error = function (err) { return M.h("p", {class: "error"}, String(err.message || err)); };

M.tooltip = function (text, x, y) {
  const tip = document.getElementById("tooltip");
  if (!text) { tip.hidden = true; return; }
  tip.textContent = text;
  tip.hidden = false;
  tip.style.left = Math.min(x + 14, window.innerWidth - 370) + "px";
  tip.style.top = (y + 14) + "px";
};

// Marks the page as drawn (the tests and the benchmark wait for it).
M.ready = function (page) {
  window.memlodeReadyAt = performance.now();
  document.body.dataset.ready = page;
};
