// memlode viz: the pages. Each takes the view element and the route's argument, fetches what
// it shows from /api and marks itself ready (M.ready) once drawn.
"use strict";

M.pages = {};
const h = M.h;

function filterForm(id, onSubmit, extra) {
  const types = ["", ...M.meta.types];
  const form = h("form", {class: "filters", id: id},
    extra || [],
    h("label", {}, "type", h("select", {name: "type"}, types.map((t) => h("option", {value: t}, t || "any")))),
    h("label", {}, "source", h("select", {name: "source"},
      ["", ...M.meta.sources].map((s) => h("option", {value: s}, s || "any")))),
    h("label", {}, "tags", h("input", {name: "tags", placeholder: "a,b", size: 10})),
    h("label", {}, "since", h("input", {name: "since", type: "date"})),
    h("label", {}, "until", h("input", {name: "until", type: "date"})),
  );
  form.addEventListener("submit", (ev) => { ev.preventDefault(); onSubmit(); });
  form.addEventListener("change", (ev) => { if (ev.target.name !== "q") onSubmit(); });
  return form;
}

function formValues(form) {
  const v = Object.fromEntries(new FormData(form).entries());
  v.namespace = M.namespace();
  return v;
}

// ---- Search -------------------------------------------------------------------------------

// The score's parts stacked, the bar as long as the score against the best hit's.
function signalBar(signals, score, top) {
  const entries = Object.entries(signals || {}).filter(([, v]) => v > 0);
  const total = entries.reduce((a, [, v]) => a + v, 0) || 1;
  const width = top > 0 ? Math.max(2, 100 * score / top) : 100;
  return h("div", {class: "bar", style: "width:" + width.toFixed(1) + "%",
    title: entries.map(([k, v]) => k + " " + v.toFixed(3)).join(", ")},
    entries.map(([k, v]) => h("span", {
      dataset: {signal: k},
      style: "width:" + (100 * v / total).toFixed(2) + "%;background:" + (M.SIGNAL_COLOURS[k] || "#999"),
    })));
}

// A memory a later one replaced (engine/supersession.py): marked, with a link to the current one.
function replacedMark(m) {
  if (!m.replaced_by) return "";
  return h("a", {class: "superseded", href: "#/memory/" + m.replaced_by,
    title: "a later memory replaced this one"}, "replaced " + M.when(m.replaced_at));
}

function hitCard(hit, rank, top) {
  return h("div", {class: "card hit" + (hit.replaced_by ? " replaced" : ""), dataset: {id: hit.id}},
    h("div", {class: "meta"}, "#" + rank + " · score " + hit.score.toFixed(3) + " · " + hit.memory_type +
      " · " + hit.source + " · " + M.when(hit.created_at) + " ",
      h("a", {href: "#/memory/" + hit.id}, "open"), " ", replacedMark(hit)),
    h("div", {class: "content clip"}, hit.content),
    M.tags(hit.tags),
    signalBar(hit.signals, hit.score, top));
}

M.pages.search = function (view, arg) {
  const q = h("input", {id: "q", name: "q", value: arg || "", autofocus: true,
    placeholder: "search memories (same ranking as memlode search)"});
  const k = h("input", {name: "k", type: "number", value: 10, min: 1, max: 100, style: "width:60px"});
  const results = h("div", {id: "results"});
  const legend = h("div", {class: "legend"}, Object.entries(M.SIGNAL_COLOURS).map(([name, c]) =>
    h("span", {}, h("i", {style: "background:" + c}), name)));
  const run = async () => {
    const v = formValues(form);
    if (!v.q.trim()) { results.replaceChildren(h("p", {class: "muted"}, "Type a query.")); M.ready("search"); return; }
    results.dataset.state = "loading";
    history.replaceState(null, "", "#/search/" + encodeURIComponent(v.q));  // a link to this search
    try {
      const hits = await M.api("/api/search", v);
      results.replaceChildren(...(hits.length ? hits.map((hit, i) => hitCard(hit, i + 1, hits[0].score)) :
        [h("p", {class: "muted"}, "no matches")]));
    } catch (err) { results.replaceChildren(M.error(err)); }
    results.dataset.state = "done";
    M.ready("search");
  };
  const form = filterForm("search-form", run,
    [h("label", {}, "query", q), h("label", {}, "k", k), h("button", {type: "submit"}, "Search")]);
  view.replaceChildren(h("h2", {}, "Search"), form, legend, results);
  run();
  return {refresh: run};
};

// ---- Memories -----------------------------------------------------------------------------

M.pages.memories = function (view) {
  const sort = h("select", {name: "sort"}, ["newest", "oldest", "updated", "importance", "accessed", "confidence"]
    .map((s) => h("option", {value: s}, s)));
  const list = h("div", {id: "memory-list"});
  const count = h("span", {id: "memory-count", class: "muted"});
  const live = h("span", {id: "live", class: "muted"});
  let offset = 0, mark = null;
  const pageSize = 50;
  const load = async (fresh) => {
    const v = formValues(form);
    try {
      const page = await M.api("/api/memories", Object.assign(v, {limit: pageSize, offset}));
      const known = new Set([...list.querySelectorAll(".row")].map((r) => r.dataset.id));
      count.textContent = page.total + " memories · showing " + (page.total ? offset + 1 : 0) + "–" +
        (offset + page.items.length);
      list.replaceChildren(...page.items.map((m) => h("div", {
        class: "card row" + (fresh && !known.has(m.id) ? " new" : "") + (m.replaced_by ? " replaced" : ""),
        dataset: {id: m.id}, onclick: () => { location.hash = "#/memory/" + m.id; }},
      h("div", {class: "meta"}, m.memory_type + " · " + m.source + " · importance " + m.importance.toFixed(2) +
        " · " + M.when(m.created_at) + " · " + m.access_count + " reads ", replacedMark(m)),
      h("div", {class: "content clip"}, m.content), M.tags(m.tags))));
      prev.disabled = offset === 0;
      next.disabled = offset + pageSize >= page.total;
    } catch (err) { list.replaceChildren(M.error(err)); }
    M.ready("memories");
  };
  const prev = h("button", {type: "button", onclick: () => { offset = Math.max(0, offset - pageSize); load(); }}, "‹ prev");
  const next = h("button", {type: "button", onclick: () => { offset += pageSize; load(); }}, "next ›");
  const form = filterForm("memory-filters", () => { offset = 0; load(); }, [h("label", {}, "sort", sort)]);
  view.replaceChildren(h("h2", {}, "Memories"), form, h("div", {class: "pager"}, prev, next, count, live), list);
  load();
  // Live: poll the store's change mark; new memories appear without a reload.
  const poll = async () => {
    try {
      const now = await M.api("/api/changes", {namespace: M.namespace()});
      const key = now.count + "|" + now.latest;
      if (mark !== null && key !== mark) {
        live.textContent = "updated " + new Date().toLocaleTimeString();
        if (offset === 0) await load(true);
      }
      mark = key;
    } catch (err) { /* the server went away: keep the page */ }
  };
  poll();
  const timer = setInterval(poll, M.POLL_MS);
  return {stop: () => clearInterval(timer)};
};

M.pages.memory = async function (view, id) {
  view.replaceChildren(h("p", {class: "muted"}, "loading…"));
  let d;
  try { d = await M.api("/api/memories/" + encodeURIComponent(id)); } catch (err) {
    view.replaceChildren(M.error(err)); M.ready("memory"); return;
  }
  const m = d.memory;
  const rows = [["id", m.id], ["type", m.memory_type], ["source", m.source], ["namespace", m.namespace],
    ["importance", m.importance], ["confidence", m.confidence], ["reads", m.access_count],
    ["session", m.session_id || ""], ["created", M.when(m.created_at)], ["updated", M.when(m.updated_at)],
    ["metadata", JSON.stringify(m.metadata)]];
  const parts = [h("h2", {}, "Memory"),
    h("div", {class: "card" + (m.replaced_by ? " replaced" : ""), id: "memory-detail", dataset: {id: m.id}},
      replacedMark(m), h("div", {class: "content"}, m.content), M.tags(m.tags)),
    h("table", {}, rows.map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, String(v)))))];
  if (M.canEdit) {
    const imp = h("input", {id: "edit-importance", type: "number", step: "0.05", min: 0, max: 1, value: m.importance});
    const tags = h("input", {id: "edit-tags", value: (m.tags || []).join(","), size: 30});
    const msg = h("span", {id: "edit-message", class: "muted"});
    parts.push(h("h3", {}, "Edit"), h("div", {class: "toolbar"},
      h("label", {}, "importance", imp), h("label", {}, "tags", tags),
      h("button", {id: "edit-save", onclick: async () => {
        try {
          await M.post("/api/memories/" + encodeURIComponent(m.id),
            {importance: parseFloat(imp.value), tags: tags.value});
          msg.textContent = "saved"; M.route();
        } catch (err) { msg.textContent = err.message; }
      }}, "Save"),
      h("button", {id: "edit-delete", class: "danger", onclick: async () => {
        if (!window.confirm("Delete this memory?")) return;
        try { await M.post("/api/memories/" + encodeURIComponent(m.id) + "/delete"); location.hash = "#/memories"; }
        catch (err) { msg.textContent = err.message; }
      }}, "Delete"), msg));
  }
  parts.push(h("h3", {}, "Links (" + d.neighbors.length + ")"),
    d.neighbors.length ? h("table", {id: "memory-links"}, d.neighbors.map((n) => h("tr", {},
      h("td", {}, n.direction === "out" ? "→ " + n.relationship : "← " + n.relationship),
      h("td", {}, n.kind), h("td", {}, n.memory ? h("a", {href: "#/memory/" + n.memory.id}, n.name) : n.name),
      h("td", {}, n.memory ? replacedMark(n.memory) : ""))))
      : h("p", {class: "muted"}, "no links"),
    h("h3", {}, "History"),
    h("table", {id: "memory-history"}, d.history.map((e) => h("tr", {},
      h("td", {}, M.when(e.at)), h("td", {}, e.memory_id ? h("a", {href: "#/memory/" + e.memory_id}, e.what) : e.what)))));
  view.replaceChildren(...parts);
  M.ready("memory");
};
