// memlode viz: the graph view on a canvas. The server lays the graph out (igraph); this file
// draws it, pans (drag), zooms (wheel, around the pointer), colours nodes by community or kind,
// sizes them by PageRank, and on a click selects a node, adds its neighbours around it and
// reports it to onSelect. Hit tests go through a uniform grid, so a move over 5,000 nodes
// checks a handful.
"use strict";

M.GraphView = class {
  constructor(canvas, data, options) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.onSelect = options.onSelect || (() => {});
    this.colourBy = options.colourBy || "community";
    this.nodes = data.nodes;  // the answer is this view's own: expanded in place
    this.edges = data.edges.map((e) => ({s: e[0], t: e[1], rel: e[2]}));
    this.index = new Map(this.nodes.map((n, i) => [n.id, i]));
    this.selected = -1;
    const many = this.nodes.length > 1000;
    this.base = many ? 1.5 : 2.5;
    this.spread = many ? 7 : 10;
    this.scale = 1; this.ox = 0; this.oy = 0;
    this.drawn = false;
    this.resize();
    this.fit();
    this.bind();
    this.draw();
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.w = r.width; this.h = r.height;
    this.canvas.width = Math.round(r.width * dpr);
    this.canvas.height = Math.round(r.height * dpr);
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }

  // Fits the box holding 98% of the nodes to the canvas: the few a force layout pushes far
  // out (nodes with no edge among those drawn) would otherwise squeeze the rest into a dot.
  fit() {
    const q = (values, f) => values[Math.min(values.length - 1, Math.floor(f * values.length))];
    const xs = this.nodes.map((n) => n.x).sort((a, b) => a - b);
    const ys = this.nodes.map((n) => n.y).sort((a, b) => a - b);
    const x0 = q(xs, 0.01) || 0, x1 = q(xs, 0.99) || 1, y0 = q(ys, 0.01) || 0, y1 = q(ys, 0.99) || 1;
    const pad = 24;
    this.scale = Math.max(1e-6, Math.min((this.w - 2 * pad) / Math.max(x1 - x0, 1e-6),
      (this.h - 2 * pad) / Math.max(y1 - y0, 1e-6)));
    this.ox = this.w / 2 - ((x0 + x1) / 2) * this.scale;
    this.oy = this.h / 2 - ((y0 + y1) / 2) * this.scale;
  }

  // PageRank is max-normalised on the server; a large graph gets smaller dots so that the
  // central ones stand out instead of covering each other.
  radius(n) { return this.base + this.spread * Math.pow(n.pagerank || 0, 0.75); }
  sx(n) { return this.ox + n.x * this.scale; }
  sy(n) { return this.oy + n.y * this.scale; }

  colours() {
    const key = this.colourBy === "kind" ? "kind" : "community";
    const labels = this.nodes.map((n) => n[key]);
    const ordered = [...new Set(labels)];
    if (key === "community") ordered.sort((a, b) => a - b);
    return M.colourOf(ordered);
  }

  // Node indexes by colour, computed again only when the colouring or the nodes change.
  groups() {
    const stamp = this.colourBy + ":" + this.nodes.length;
    if (this._groups && this._groupStamp === stamp) return this._groups;
    const colours = this.colours(), key = this.colourBy === "kind" ? "kind" : "community";
    const groups = new Map();
    this.nodes.forEach((n, i) => {
      const c = colours.get(n[key]);
      if (!groups.has(c)) groups.set(c, []);
      groups.get(c).push(i);
    });
    this._groups = groups; this._groupStamp = stamp; this.legendMap = colours;
    return groups;
  }

  draw() {
    const ctx = this.ctx;
    ctx.clearRect(0, 0, this.w, this.h);
    ctx.lineWidth = 0.6;
    ctx.strokeStyle = "rgba(90,96,104,0.25)";
    ctx.beginPath();
    for (const e of this.edges) {
      const a = this.nodes[e.s], b = this.nodes[e.t];
      ctx.moveTo(this.sx(a), this.sy(a));
      ctx.lineTo(this.sx(b), this.sy(b));
    }
    ctx.stroke();
    for (const [colour, members] of this.groups()) {
      ctx.fillStyle = colour;
      ctx.beginPath();
      for (const i of members) {
        const n = this.nodes[i], x = this.sx(n), y = this.sy(n), r = this.radius(n);
        if (x < -r || y < -r || x > this.w + r || y > this.h + r) continue;
        ctx.moveTo(x + r, y);
        ctx.arc(x, y, r, 0, 2 * Math.PI);
      }
      ctx.fill();
    }
    if (this.selected >= 0) {
      const n = this.nodes[this.selected];
      ctx.strokeStyle = "#111"; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.arc(this.sx(n), this.sy(n), this.radius(n) + 3, 0, 2 * Math.PI); ctx.stroke();
      ctx.fillStyle = "#111"; ctx.font = "12px system-ui, sans-serif";
      ctx.fillText(n.name.slice(0, 60), this.sx(n) + this.radius(n) + 5, this.sy(n) - 5);
    }
    if (!this.drawn) {
      this.drawn = true;
      window.memlodeGraphFirstDraw = performance.now();
    }
  }

  grid() {
    if (this._grid && this._gridScale === this.scale) return this._grid;
    const cell = 24 / this.scale, g = new Map();
    this.nodes.forEach((n, i) => {
      const k = Math.floor(n.x / cell) + "," + Math.floor(n.y / cell);
      if (!g.has(k)) g.set(k, []);
      g.get(k).push(i);
    });
    this._grid = g; this._gridScale = this.scale; this._cell = cell;
    return g;
  }

  nodeAt(px, py) {
    const g = this.grid(), cell = this._cell;
    const x = (px - this.ox) / this.scale, y = (py - this.oy) / this.scale;
    const cx = Math.floor(x / cell), cy = Math.floor(y / cell);
    let best = -1, bestD = Infinity;
    for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
      for (const i of g.get((cx + dx) + "," + (cy + dy)) || []) {
        const n = this.nodes[i];
        const d = Math.hypot(this.sx(n) - px, this.sy(n) - py);
        if (d <= Math.max(this.radius(n) + 3, 6) && d < bestD) { best = i; bestD = d; }
      }
    }
    return best;
  }

  // Where node ``id`` is drawn, in the canvas's CSS pixels (the tests click there).
  screenPosition(id) {
    const i = this.index.get(id);
    if (i === undefined) return null;
    return {x: this.sx(this.nodes[i]), y: this.sy(this.nodes[i])};
  }

  // Selects the most central node whose name contains ``text`` and centres the view on it.
  find(text) {
    const needle = text.trim().toLowerCase();
    if (!needle) return null;
    let best = -1;
    this.nodes.forEach((n, i) => {
      if (n.name.toLowerCase().includes(needle) && (best < 0 || n.pagerank > this.nodes[best].pagerank)) best = i;
    });
    if (best < 0) return null;
    const n = this.nodes[best];
    this.ox += this.w / 2 - this.sx(n);
    this.oy += this.h / 2 - this.sy(n);
    this.select(best);
    return n;
  }

  bind() {
    const c = this.canvas;
    let drag = null, moved = false;
    c.addEventListener("mousedown", (ev) => { drag = {x: ev.offsetX, y: ev.offsetY}; moved = false; });
    window.addEventListener("mouseup", () => { drag = null; c.style.cursor = "grab"; });
    c.addEventListener("mousemove", (ev) => {
      if (drag) {
        const dx = ev.offsetX - drag.x, dy = ev.offsetY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 2) moved = true;
        this.ox += dx; this.oy += dy; drag = {x: ev.offsetX, y: ev.offsetY};
        c.style.cursor = "grabbing";
        this.schedule();
        return;
      }
      const i = this.nodeAt(ev.offsetX, ev.offsetY);
      M.tooltip(i >= 0 ? this.nodes[i].kind + ": " + this.nodes[i].name : null, ev.clientX, ev.clientY);
    });
    c.addEventListener("mouseleave", () => M.tooltip(null));
    c.addEventListener("click", (ev) => {
      if (moved) return;
      const i = this.nodeAt(ev.offsetX, ev.offsetY);
      if (i >= 0) this.select(i);
    });
    c.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const f = Math.exp(-ev.deltaY * 0.0015);
      this.ox = ev.offsetX - (ev.offsetX - this.ox) * f;
      this.oy = ev.offsetY - (ev.offsetY - this.oy) * f;
      this.scale *= f;
      this.schedule();
    }, {passive: false});
  }

  schedule() {
    if (this._pending) return;
    this._pending = true;
    requestAnimationFrame(() => { this._pending = false; this.draw(); });
  }

  select(i) {
    this.selected = i;
    this.draw();
    this.onSelect(this.nodes[i]);
  }

  // Adds the neighbours of the selected node that are not drawn yet, on a ring around it.
  expand(node, neighbours) {
    const at = this.index.get(node.id);
    const fresh = neighbours.filter((n) => !this.index.has(n.id));
    const ring = 30 / this.scale;
    fresh.forEach((n, k) => {
      const angle = (2 * Math.PI * k) / Math.max(1, fresh.length);
      this.index.set(n.id, this.nodes.length);
      this.nodes.push({id: n.id, kind: n.kind, name: n.name, memory_id: n.memory_id,
        x: node.x + ring * Math.cos(angle), y: node.y + ring * Math.sin(angle),
        pagerank: 0, community: -1, degree: 0});
    });
    for (const n of neighbours) {
      const other = this.index.get(n.id);
      const [s, t] = n.direction === "out" ? [at, other] : [other, at];
      if (!this.edges.some((e) => e.s === s && e.t === t)) this.edges.push({s, t, rel: n.relationship});
    }
    this._grid = null;
    this.draw();
    return fresh.length;
  }
};
