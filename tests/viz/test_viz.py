"""``memlode viz`` end to end: a real server subprocess, a real headless Chromium, a store built
from a replayed shared Claude Code session (tests/viz/store.py). Screenshots of every page go
to .artifacts/viz/."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import pytest
from tests.viz.conftest import ARTIFACTS, Server, Store

PAGES = ("search", "memories", "graph", "embeddings", "sessions", "code", "health")


def http(
    url: str, *, method: str = "GET", headers: dict[str, str] | None = None, body: Any = None
) -> tuple[int, str, dict[str, str]]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def open_page(page: Any, server: Server, name: str) -> None:
    page.goto(f"{server.url}#/{name}")
    ready = name.split("/")[0]
    page.wait_for_selector(f"body[data-ready={ready}]", timeout=20_000)


def test_requests_without_the_token_are_refused(server: Server) -> None:
    assert http(f"{server.base}/")[0] == 403
    assert http(f"{server.base}/api/meta")[0] == 403
    assert http(f"{server.base}/static/app.js")[0] == 403
    assert http(f"{server.base}/api/meta?token=wrong")[0] == 403
    assert http(f"{server.base}/api/meta", headers={"cookie": "memlode_viz=wrong"})[0] == 403
    status, _, headers = http(server.url)
    assert status == 200
    assert f"memlode_viz={server.token}" in headers.get("set-cookie", "")
    cookie = {"cookie": f"memlode_viz={server.token}"}
    status, body, _ = http(f"{server.base}/api/meta", headers=cookie)
    assert status == 200 and json.loads(body)["allow_edit"] is False


def test_every_page_loads_without_console_errors(page: Any, server: Server) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name in PAGES:
        open_page(page, server, name)
        assert page.locator(".error").count() == 0, (
            f"{name}: {page.locator('.error').all_text_contents()}"
        )
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
        if name == "sessions":
            assert page.locator("#session-list .card").count() >= 1  # the replayed session
            told = page.locator("#session-list .card").first.inner_text()
            assert "Injected at start: " in told and "not recorded" not in told  # hook kept it
        if name == "health":  # the replay ran the hooks, which time themselves
            assert "post-tool" in page.locator("#hook-timings").inner_text()
    assert page.console_log.errors == []
    assert "proj" in page.locator("#namespace").inner_text()


@pytest.mark.parametrize("query", ["sqlite busy timeout", "xterm scroll", "login session cookie"])
def test_search_box_ranks_as_the_cli(
    page: Any, server: Server, viz_store: Store, query: str
) -> None:
    cli = viz_store.cli("search", query, "--json")
    assert cli.returncode == 0, cli.stderr
    expected = [hit["id"] for hit in json.loads(cli.stdout)]
    assert expected  # the query finds something, so the comparison means something
    open_page(page, server, "search")
    page.fill("#q", query)
    page.press("#q", "Enter")
    page.wait_for_selector("#results[data-state=done]")
    shown = page.eval_on_selector_all("#results .hit", "els => els.map(e => e.dataset.id)")
    assert shown == expected
    bars = page.locator("#results .hit").first.locator(".bar span")
    assert bars.count() >= 2  # the signal contributions, stacked
    page.screenshot(path=str(ARTIFACTS / "search-results.png"))


def test_a_click_on_a_graph_node_opens_its_detail(page: Any, server: Server) -> None:
    open_page(page, server, "graph")
    target = page.evaluate(
        "() => { const g = window.memlodeGraph;"
        " const ns = g.nodes.filter(n => n.memory_id).sort((a, b) => b.pagerank - a.pagerank);"
        # the most central memory node that no other node covers where it is drawn
        " const n = ns.find(n => { const p = g.screenPosition(n.id);"
        " return g.nodes[g.nodeAt(p.x, p.y)] === n; });"
        " return {id: n.id, memory: n.memory_id, at: g.screenPosition(n.id)}; }"
    )
    page.locator("#graph-canvas").click(position=target["at"])
    page.wait_for_selector(f"#node-memory[data-id='{target['memory']}']", timeout=10_000)
    assert page.locator("#node-detail").get_attribute("data-node") == target["id"]
    page.screenshot(path=str(ARTIFACTS / "graph-selected.png"))
    page.click("#node-detail a[href^='#/memory/']")
    page.wait_for_selector(f"#memory-detail[data-id='{target['memory']}']")
    open_page(page, server, "graph")
    page.fill("#graph-find", "busy_timeout")
    page.press("#graph-find", "Enter")
    page.wait_for_selector("#node-detail h3:has-text('busy_timeout')")
    assert page.console_log.errors == []


def test_a_filter_narrows_the_memory_list(page: Any, server: Server) -> None:
    open_page(page, server, "memories")
    before = page.locator("#memory-list .row").count()
    page.select_option("#memory-filters select[name=type]", "decision")
    page.wait_for_function(
        "() => document.querySelector('#memory-count').textContent.startsWith('2 ')"
    )
    rows = page.locator("#memory-list .row .meta").all_text_contents()
    assert 0 < len(rows) < before
    assert all(text.startswith("decision") for text in rows)


def test_new_memories_appear_without_a_reload(page: Any, server: Server, viz_store: Store) -> None:
    open_page(page, server, "memories")
    stored = viz_store.cli(
        "store", "Live memories show up on the open dashboard", "--type", "insight"
    )
    assert stored.returncode == 0, stored.stderr
    new_id = stored.stdout.split()[0]
    page.wait_for_selector(f"#memory-list .row[data-id='{new_id}']", timeout=15_000)


def test_a_replaced_memory_is_marked_in_search_the_list_and_links(
    page: Any, server: Server, viz_store: Store
) -> None:
    def stored(text: str) -> str:
        done = viz_store.cli("store", text, "--type", "decision")
        assert done.returncode == 0, done.stderr
        return done.stdout.split()[0]

    old = stored("Nightly builds are uploaded to the Zephyr bucket")
    new = stored("Nightly builds are uploaded to the Quasar bucket from now on")
    linked = viz_store.cli("supersede", old, new)
    assert linked.returncode == 0, linked.stderr
    open_page(page, server, "search")
    page.fill("#q", "nightly builds bucket")
    page.press("#q", "Enter")
    page.wait_for_selector("#results[data-state=done]")
    replaced = page.locator(f"#results .hit[data-id='{old}']")
    assert "replaced" in (replaced.get_attribute("class") or "")
    assert replaced.locator(f"a.superseded[href='#/memory/{new}']").count() == 1
    current = page.locator(f"#results .hit[data-id='{new}']")
    assert "replaced" not in (current.get_attribute("class") or "").split()
    open_page(page, server, "memories")
    row = page.locator(f"#memory-list .row[data-id='{old}']")
    row.wait_for(timeout=15_000)
    assert "replaced" in (row.get_attribute("class") or "").split()
    # a memory's links say which linked memory is history, with a link to what replaced it
    open_page(page, server, f"memory/{new}")
    (link,) = page.locator("#memory-links tr").filter(has_text="SUPERSEDES").all()
    assert link.locator(f"a.superseded[href='#/memory/{new}']").count() == 1
    assert page.console_log.errors == []


def test_edits_are_refused_without_allow_edit(server: Server, viz_store: Store) -> None:
    memory_id = viz_store.cli("store", "A memory nobody may edit here").stdout.split()[0]
    headers = {
        "cookie": f"memlode_viz={server.token}",
        "x-memlode-token": server.token,
        "content-type": "application/json",
    }
    status, body, _ = http(
        f"{server.base}/api/memories/{memory_id}",
        method="POST",
        headers=headers,
        body={"importance": 0.1},
    )
    assert status == 403 and "allow-edit" in body
    status, _, _ = http(
        f"{server.base}/api/memories/{memory_id}/delete", method="POST", headers=headers
    )
    assert status == 403
    # the cookie alone (what another site's form would send) is no write either
    status, _, _ = http(
        f"{server.base}/api/memories/{memory_id}/delete",
        method="POST",
        headers={"cookie": f"memlode_viz={server.token}"},
    )
    assert status == 403
    got = json.loads(viz_store.cli("get", memory_id, "--json").stdout)
    assert got["importance"] == 0.5


def test_edits_work_with_allow_edit(page: Any, edit_server: Server, viz_store: Store) -> None:
    keep = viz_store.cli("store", "Edit my importance and tags").stdout.split()[0]
    gone = viz_store.cli("store", "Delete me from the dashboard").stdout.split()[0]
    open_page(page, edit_server, f"memory/{keep}")
    page.fill("#edit-importance", "0.85")
    page.fill("#edit-tags", "edited,viz")
    page.click("#edit-save")
    page.wait_for_selector("#memory-detail .tag:text('edited')")
    got = json.loads(viz_store.cli("get", keep, "--json").stdout)
    assert got["importance"] == 0.85 and got["tags"] == ["edited", "viz"]
    open_page(page, edit_server, f"memory/{gone}")
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#edit-delete")
    page.wait_for_selector("body[data-ready=memories]")
    assert viz_store.cli("get", gone).returncode == 3
    assert page.console_log.errors == []


def test_a_port_in_use_is_one_clear_error(viz_store: Store) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "memlode", "viz", "--port", str(port)],
            env=viz_store.env,
            cwd=viz_store.project,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"memlode: error: cannot listen on 127.0.0.1:{port}")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_cached_graph_follows_new_links(server: Server, viz_store: Store) -> None:
    cookie = {"cookie": f"memlode_viz={server.token}"}
    before = json.loads(http(f"{server.base}/api/graph", headers=cookie)[1])
    again = json.loads(http(f"{server.base}/api/graph", headers=cookie)[1])
    assert again == before  # served from the cache
    a = viz_store.cli("store", "Cache keys follow the graph's fingerprint").stdout.split()[0]
    b = viz_store.cli("store", "A layout is recomputed when an edge is added").stdout.split()[0]
    assert viz_store.cli("associate", a, b, "-r", "LEADS_TO").returncode == 0
    after = json.loads(http(f"{server.base}/api/graph", headers=cookie)[1])
    assert len(after["edges"]) == len(before["edges"]) + 1
    assert {a, b} <= {n["id"] for n in after["nodes"]}


def test_a_click_in_the_embeddings_opens_the_memory(page: Any, server: Server) -> None:
    open_page(page, server, "embeddings")
    target = page.evaluate(
        "() => { const s = window.memlodeScatter; const p = s.points[0];"
        " return {id: p.id, at: s.screenPosition(p.id)}; }"
    )
    page.locator("#embed-canvas").click(position=target["at"])
    page.wait_for_selector("body[data-ready=memory]")
    assert page.locator("#memory-detail").get_attribute("data-id") is not None
    assert page.console_log.errors == []


def test_bad_requests_get_one_line_json_errors(server: Server) -> None:
    cookie = {"cookie": f"memlode_viz={server.token}"}
    status, body, _ = http(f"{server.base}/api/memories?sort=nonsense", headers=cookie)
    assert status == 400 and "sort must be one of" in json.loads(body)["error"]
    status, body, _ = http(f"{server.base}/api/memories/no-such-id", headers=cookie)
    assert status == 404 and "no-such-id" in json.loads(body)["error"]
    status, body, _ = http(f"{server.base}/api/search?q=", headers=cookie)
    assert status == 400 and "query is empty" in json.loads(body)["error"]
    status, body, _ = http(f"{server.base}/api/memories?limit=abc", headers=cookie)
    assert status == 400 and "limit" in json.loads(body)["error"]


def test_the_time_filter_keeps_the_ranking(server: Server, viz_store: Store) -> None:
    cookie = {"cookie": f"memlode_viz={server.token}"}
    query = "/api/search?q=xterm%20scroll%20phoenix"
    hits = json.loads(http(f"{server.base}{query}", headers=cookie)[1])
    every = [h["id"] for h in hits]
    # a bound inside the session: the hits stored before it, in the same order
    times = sorted({h["created_at"] for h in hits})
    assert len(times) > 1, times
    until = times[len(times) // 2]
    older = json.loads(http(f"{server.base}{query}&until={until}", headers=cookie)[1])
    assert older and len(older) < len(every)
    assert [h["id"] for h in older] == [i for i in every if i in {h["id"] for h in older}]
    assert all(h["created_at"] < until for h in older)
    status, body, _ = http(f"{server.base}{query}&since=yesterday-ish", headers=cookie)
    assert status == 400 and "since" in json.loads(body)["error"]


def test_the_cached_health_follows_the_store(server: Server, viz_store: Store) -> None:
    cookie = {"cookie": f"memlode_viz={server.token}"}
    before = json.loads(http(f"{server.base}/api/health", headers=cookie)[1])
    assert viz_store.cli("store", "Health counts follow new memories").returncode == 0
    assert viz_store.cli("config", "set-weights", "bm25=0.3").returncode == 0
    after = json.loads(http(f"{server.base}/api/health", headers=cookie)[1])
    assert after["stats"]["memories"] == before["stats"]["memories"] + 1
    assert after["weights"] != before["weights"]
