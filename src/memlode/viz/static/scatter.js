// memlode viz: the embeddings view, a canvas scatter of the server's 2-D PCA projection.
// Colour by type or source, hover to read a memory's start, click to open it.
"use strict";

M.Scatter = class {
  constructor(canvas, points, options) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.points = points;
    this.colourBy = options.colourBy || "type";
    this.onOpen = options.onOpen || (() => {});
    const r = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    this.w = r.width; this.h = r.height;
    canvas.width = Math.round(r.width * dpr); canvas.height = Math.round(r.height * dpr);
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.bind();
    this.draw();
  }

  px(p) { return this.w / 2 + p.x * (this.w / 2 - 16); }
  py(p) { return this.h / 2 - p.y * (this.h / 2 - 16); }

  colours() { return M.colourOf([...new Set(this.points.map((p) => p[this.colourBy]))].sort()); }

  // One pass per colour over precomputed indexes, squares rather than arcs: 10k points in a
  // few milliseconds.
  draw() {
    const ctx = this.ctx, colours = this.colours(), groups = new Map();
    this.points.forEach((p, i) => {
      const label = p[this.colourBy];
      if (!groups.has(label)) groups.set(label, []);
      groups.get(label).push(i);
    });
    ctx.clearRect(0, 0, this.w, this.h);
    ctx.globalAlpha = 0.75;
    for (const [label, colour] of colours) {
      ctx.fillStyle = colour;
      for (const i of groups.get(label) || []) {
        const p = this.points[i];
        ctx.fillRect(this.px(p) - 2.5, this.py(p) - 2.5, 5, 5);
      }
    }
    ctx.globalAlpha = 1;
    this.legendMap = colours;
    if (!this.cells) {  // positions never change: the hit-test grid is built once
      this.cells = new Map();
      this.points.forEach((p, i) => {
        const k = Math.floor(this.px(p) / 8) * 65536 + Math.floor(this.py(p) / 8);
        if (!this.cells.has(k)) this.cells.set(k, []);
        this.cells.get(k).push(i);
      });
    }
  }

  pointAt(x, y) {
    const cx = Math.floor(x / 8), cy = Math.floor(y / 8);
    let best = -1, bestD = 7;
    for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
      for (const i of this.cells.get((cx + dx) * 65536 + (cy + dy)) || []) {
        const d = Math.hypot(this.px(this.points[i]) - x, this.py(this.points[i]) - y);
        if (d < bestD) { best = i; bestD = d; }
      }
    }
    return best;
  }

  screenPosition(id) {
    const p = this.points.find((q) => q.id === id);
    return p ? {x: this.px(p), y: this.py(p)} : null;
  }

  bind() {
    this.canvas.addEventListener("mousemove", (ev) => {
      const i = this.pointAt(ev.offsetX, ev.offsetY);
      const p = this.points[i];
      M.tooltip(i >= 0 ? "[" + p.type + " · " + p.source + "] " + p.text : null, ev.clientX, ev.clientY);
      this.canvas.style.cursor = i >= 0 ? "pointer" : "default";
    });
    this.canvas.addEventListener("mouseleave", () => M.tooltip(null));
    this.canvas.addEventListener("click", (ev) => {
      const i = this.pointAt(ev.offsetX, ev.offsetY);
      if (i >= 0) { M.tooltip(null); this.onOpen(this.points[i].id); }
    });
  }
};
