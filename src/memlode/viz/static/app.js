// memlode viz: the router (#/page/arg), the namespace selector, the search-mode badge, and the
// pages that draw (graph, embeddings) or report (sessions, code, health).
"use strict";

M.POLL_MS = 3000;
let current = null;

function drawingPage(view, title, controls, canvasId, side) {
  const canvas = h("canvas", {id: canvasId});
  const legend = h("div", {class: "legend", id: canvasId + "-legend"});
  view.replaceChildren(h("h2", {}, title), h("div", {class: "toolbar"}, controls),
    legend, h("div", {class: "split"}, h("div", {class: "canvas-wrap"}, canvas), side || []));
  return {canvas, legend};
}

M.pages.graph = async function (view, arg) {
  const colourBy = h("select", {id: "graph-colour"}, h("option", {value: "community"}, "community"),
    h("option", {value: "kind"}, "kind"));
  const shown = parseInt(arg, 10) || 2000;  // #/graph/5000
  const sizes = [...new Set([500, 2000, 5000, shown])].sort((a, b) => a - b);
  const limit = h("select", {id: "graph-limit"}, sizes.map((n) =>
    h("option", {value: n, selected: n === shown}, n + " nodes")));
  const code = M.meta.kinds.filter((k) => k !== "memory").join(",");
  const kinds = h("select", {id: "graph-kinds"}, h("option", {value: ""}, "memories and code"),
    h("option", {value: "memory"}, "memories"), h("option", {value: code}, "code"));
  const info = h("span", {class: "muted", id: "graph-info"});
  const find = h("input", {id: "graph-find", placeholder: "find a node", size: 16});
  find.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || !graph) return;
    if (!graph.find(find.value)) info.textContent = "no node named like " + JSON.stringify(find.value);
  });
  const side = h("div", {class: "side card", id: "node-detail"}, h("p", {class: "muted"}, "Click a node."));
  let {canvas, legend} = drawingPage(view, "Graph", [h("label", {}, "colour", colourBy),
    h("label", {}, "nodes", kinds), h("label", {}, "show", limit), h("label", {}, "find", find), info],
    "graph-canvas", side);
  let graph = null;
  const select = async (node) => {
    const parts = [h("h3", {}, node.name), h("div", {class: "meta"}, node.kind + " · PageRank " +
      (node.pagerank || 0).toFixed(3) + " · community " + node.community)];
    side.replaceChildren(...parts, h("p", {class: "muted"}, "loading…"));
    try {
      const neighbours = await M.api("/api/graph/neighbors", {id: node.id});
      const added = graph.expand(node, neighbours);
      parts.push(h("p", {class: "muted"}, neighbours.length + " neighbours (" + added + " added)"));
      if (node.memory_id) {
        const d = await M.api("/api/memories/" + encodeURIComponent(node.memory_id));
        parts.push(h("div", {class: "content", id: "node-memory", dataset: {id: d.memory.id}}, d.memory.content),
          h("p", {}, h("a", {href: "#/memory/" + d.memory.id}, "open memory")));
      }
      parts.push(h("ul", {}, neighbours.slice(0, 40).map((n) =>
        h("li", {}, (n.direction === "out" ? "→ " : "← ") + n.relationship + " ", n.memory_id ?
          h("a", {href: "#/memory/" + n.memory_id}, n.name) : n.kind + " " + n.name))));
    } catch (err) { parts.push(M.error(err)); }
    side.replaceChildren(...parts);
    side.dataset.node = node.id;
  };
  const load = async () => {
    const started = performance.now();
    try {
      const data = await M.api("/api/graph", {namespace: M.namespace(), limit: limit.value, kinds: kinds.value});
      info.textContent = data.nodes.length + " nodes · " + data.edges.length + " edges";
      if (graph) {  // a fresh canvas: the last view's listeners go with the old one
        const fresh = h("canvas", {id: "graph-canvas"});
        canvas.replaceWith(fresh);
        canvas = fresh;
        side.replaceChildren(h("p", {class: "muted"}, "Click a node."));
        delete side.dataset.node;
      }
      graph = new M.GraphView(canvas, data, {colourBy: colourBy.value, onSelect: select});
      window.memlodeGraph = graph;
      window.memlodeGraphDrawMs = performance.now() - started;
      legend.replaceChildren(...M.legend(graph.legendMap).childNodes);
    } catch (err) { info.replaceChildren(M.error(err)); }
    M.ready("graph");
  };
  colourBy.addEventListener("change", () => {
    if (!graph) return;
    graph.colourBy = colourBy.value; graph.draw();
    legend.replaceChildren(...M.legend(graph.legendMap).childNodes);
  });
  limit.addEventListener("change", load);
  kinds.addEventListener("change", load);
  await load();
};

M.pages.embeddings = async function (view) {
  const colourBy = h("select", {id: "embed-colour"}, h("option", {value: "type"}, "type"),
    h("option", {value: "source"}, "source"));
  const info = h("span", {class: "muted", id: "embed-info"});
  const {canvas, legend} = drawingPage(view, "Embeddings", [h("label", {}, "colour", colourBy), info], "embed-canvas");
  try {
    const data = await M.api("/api/embeddings", {namespace: M.namespace()});
    // columns to points: {id, x, y, type, source, text}
    data.points = data.id.map((id, i) => ({id, x: data.x[i], y: data.y[i], type: data.types[data.type[i]],
      source: data.sources[data.source[i]], text: data.text[i]}));
    info.textContent = data.points.length + " memories · PCA, " +
      (data.explained.length ? (100 * (data.explained[0] + (data.explained[1] || 0))).toFixed(1) + "% of variance" : "no vectors");
    const scatter = new M.Scatter(canvas, data.points, {colourBy: colourBy.value,
      onOpen: (id) => { location.hash = "#/memory/" + id; }});
    window.memlodeScatter = scatter;
    legend.replaceChildren(...M.legend(scatter.legendMap).childNodes);
    colourBy.addEventListener("change", () => {
      scatter.colourBy = colourBy.value; scatter.draw();
      legend.replaceChildren(...M.legend(scatter.legendMap).childNodes);
    });
  } catch (err) { info.replaceChildren(M.error(err)); }
  M.ready("embeddings");
};

M.pages.sessions = async function (view, arg) {
  view.replaceChildren(h("h2", {}, "Sessions"));
  try {
    const sessions = await M.api("/api/sessions", {namespace: M.namespace(), limit: parseInt(arg, 10) || 30});
    if (!sessions.length) view.appendChild(h("p", {class: "muted"}, "no sessions in this namespace"));
    view.appendChild(h("div", {class: "timeline", id: "session-list"}, sessions.map((s) => h("div", {class: "card", dataset: {id: s.id}},
      h("div", {class: "meta"}, M.when(s.started_at) + " → " + (s.ended_at ? M.when(s.ended_at) : "open") + " · " + s.source +
        " · " + s.id + " · " + Object.entries(s.memories).map(([k, v]) => v + " " + k).join(", ")),
      h("p", {class: "summary"}, s.summary || h("span", {class: "muted"}, "no summary")),
      s.prompts.length ? [h("b", {}, "Prompts"), h("ol", {}, s.prompts.map((p) => h("li", {}, h("a", {href: "#/memory/" + p.id}, p.text.slice(0, 240)),
        p.recall ? h("span", {class: "muted"}, " · recall: " + p.recall +
          (p.injected !== null && p.injected !== undefined ? ", " + p.injected + " injected" : "")) : null)))] : [],
      s.files.length ? [h("b", {}, "Files"), h("ul", {}, s.files.map((f) => h("li", {}, f.path + " ", h("span", {class: "muted"}, M.when(f.at)))))] : [],
      startContext(s)))));
    const shown = parseInt(arg, 10) || 30;
    if (sessions.length === shown && shown < 500) {  // the API's largest page is 500
      const more = Math.min(shown * 2, 500);
      view.appendChild(h("p", {}, h("a", {href: "#/sessions/" + more, id: "more-sessions"}, "more sessions")));
    }
  } catch (err) { view.appendChild(M.error(err)); }
  M.ready("sessions");
};

// What SessionStart handed the assistant, folded (it runs to a few thousand characters).
function startContext(s) {
  const how = s.start_source ? " (start: " + s.start_source + ")" : "";
  const c = s.start_context;
  if (!c) return h("div", {class: "muted"}, "Injected at start: not recorded for this session" + how);
  if (!c.chars) return h("div", {class: "muted"}, "Injected at start: nothing" + how);
  return h("details", {class: "start-context"}, h("summary", {}, "Injected at start: " + c.chars + " characters" + how),
    h("pre", {}, c.text));
}

function table(id, head, rows) {
  const numeric = head.map((_, i) => rows.length > 0 && typeof rows[0][i] === "number");
  return h("table", {id}, h("tr", {}, head.map((c, i) => h("th", {class: numeric[i] ? "num" : null}, c))),
    rows.map((r) => h("tr", {}, r.map((c, i) =>
    h("td", {class: typeof c === "number" ? "num" : null}, typeof c === "number" && i > 0 ? c.toFixed(4).replace(/\.?0+$/, "") : c)))));
}

M.pages.code = async function (view) {
  view.replaceChildren(h("h2", {}, "Code"));
  try {
    const d = await M.api("/api/code", {namespace: M.namespace()});
    if (!d.indexed) {
      view.appendChild(h("p", {class: "muted", id: "code-missing"}, d.message));
    } else {
      const heat = Object.entries(d.heat);
      view.append(h("div", {class: "split"},
        h("div", {style: "flex:1;min-width:0"}, h("h3", {}, "Repo map (PageRank, heated by recent edits)"), h("pre", {id: "repo-map"}, d.map)),
        h("div", {class: "side"},
          h("h3", {}, "Hotspots (recent edits)"),
          heat.length ? table("hotspots", ["file", "heat"], heat.slice(0, 20)) : h("p", {class: "muted"}, "no recent edits"),
          h("h3", {}, "Central files"),
          table("central", ["file", "PageRank"], d.central.map((n) => [n.name || n.id, n.pagerank || 0])))),
        h("h3", {}, "Communities"),
        h("div", {class: "grid", id: "communities"}, d.communities.map((c) => h("div", {class: "card"},
          h("b", {}, "#" + c.cluster + " · " + c.size + " nodes"),
          h("ul", {}, c.members.map((n) => h("li", {}, n.kind + " " + n.name)))))));
    }
  } catch (err) { view.appendChild(M.error(err)); }
  M.ready("code");
};

M.pages.health = async function (view) {
  view.replaceChildren(h("h2", {}, "Health"));
  try {
    const d = await M.api("/api/health");
    const s = d.stats;
    const stat = (k, v, id) => h("div", {class: "card stat", id}, h("div", {class: "v"}, String(v)), h("div", {class: "k"}, k));
    const check = stat("storage check", "checking…", "storage-check");
    view.append(
      h("div", {class: "grid", id: "health-stats"},
        stat("search mode", d.search_mode), stat("memories", s.memories), stat("embedded", s.embedded),
        stat("embedding backlog", d.pending_embeddings), stat("token states pending", d.pending_token_states),
        stat("symbol vectors pending", d.symbol_vectors.pending + " of " + d.symbol_vectors.symbols),
        stat("graph nodes / edges", s.graph_nodes + " / " + s.graph_edges), stat("sessions", s.sessions),
        stat("database", M.bytes(d.database_bytes)),
        stat("embedder", (d.embedder.provider || "") + (d.embedder.model ? " · " + d.embedder.model : "") +
          (d.embedder.error ? " · " + d.embedder.error : "")),
        check),
      h("h3", {}, "By type"), table("by-type", ["type", "memories"], Object.entries(s.by_type)),
      h("h3", {}, "By source"), table("by-source", ["source", "memories"], Object.entries(s.by_source)),
      h("h3", {}, "Namespaces"), table("namespaces", ["namespace", "name", "memories"],
        d.namespaces.map((n) => [n.namespace, n.name || "", n.memories])),
      h("h3", {}, "Recall weights"), table("weights", ["signal", "weight"], Object.entries(d.weights)),
      h("h3", {}, "Consolidation runs"), d.consolidation.length ? table("consolidation", ["cycle", "namespace", "started", "state"],
        d.consolidation.map((r) => [r.cycle, r.namespace, M.when(r.started_at), r.state])) : h("p", {class: "muted"}, "none yet"),
      h("h3", {}, "Hook timings (memlode's own time per run, newest runs)"), d.hook_timings.length ?
        table("hook-timings", ["event", "runs", "p50 ms", "p95 ms", "max ms"],
          d.hook_timings.map((t) => [t.event, t.runs, t.p50_ms, t.p95_ms, t.max_ms])) : h("p", {class: "muted"}, "no hook has run yet"),
      d.hook_spool ? h("h3", {}, "Hook spool (team store)") : "",
      d.hook_spool ? h("p", {id: "hook-spool", "data-failed": String(!!d.hook_spool.last_apply.failed),
        class: d.hook_spool.last_apply.failed || d.hook_spool.refused ? "error" : "muted"}, d.hook_spool.summary) : "",
      h("h3", {}, "Hook log (errors)"), d.hook_log.length ? h("pre", {id: "hook-log"}, d.hook_log.join("\n")) : h("p", {class: "muted"}, "empty"));
    // SQLite's quick_check reads the whole file: after the page is drawn
    M.api("/api/health/check").then((c) => {
      check.querySelector(".v").textContent = c.storage.ok ? "ok" : "FAILED";
      check.querySelector(".k").textContent = "storage check at " + new Date(c.checked_at * 1000).toLocaleTimeString() +
        " · " + c.storage.journal_mode + " · schema " + c.storage.schema_version + " · " + c.vectors.indexed + " vectors indexed";
      check.dataset.state = "done";
    }).catch((err) => { check.querySelector(".v").textContent = err.message; });
  } catch (err) { view.appendChild(M.error(err)); }
  M.ready("health");
};

M.route = function () {
  const [, page = "search", arg] = (location.hash || "#/search").split("/");
  if (current && current.stop) current.stop();
  delete document.body.dataset.ready;
  document.querySelectorAll("#nav a").forEach((a) => a.classList.toggle("active", a.dataset.page === page ||
    (page === "memory" && a.dataset.page === "memories")));
  const render = M.pages[page] || M.pages.search;
  M.tooltip(null);
  const result = render(document.getElementById("view"), arg && decodeURIComponent(arg));
  current = result && !(result instanceof Promise) ? result : null;
};

function start() {
  M.meta = JSON.parse(document.getElementById("meta").textContent);
  const select = document.getElementById("namespace");
  const wanted = new URLSearchParams(location.search).get("namespace") || "";
  select.replaceChildren(h("option", {value: ""}, "this project (" + (M.meta.namespace || "none") + ")"),
    h("option", {value: "*"}, "* all"),
    ...M.meta.namespaces.map((n) => h("option", {value: n.namespace}, n.name || n.namespace)));
  // outside a project (no namespace of its own) every namespace is shown, not an empty one
  select.value = wanted || (M.meta.namespace ? "" : "*");
  select.addEventListener("change", M.route);
  const badge = document.getElementById("mode");
  badge.textContent = M.meta.search_mode;
  badge.className = "badge " + M.meta.search_mode;
  window.addEventListener("hashchange", M.route);
  M.route();
}

start();
