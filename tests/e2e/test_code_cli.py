"""Code intelligence through a real ``python -m memlode`` process: index a small project the test
writes (Python and TypeScript), then symbols, map, impact and the graph commands, checking what
they say about that project; and the graph recompute that recall's graph signal reads."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memlode.project import detect_namespace

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": '''"""Small helpers everything uses."""


def normalize_name(text):
    """Lower-case a name and strip the spaces around it."""
    return text.strip().lower()


def slugify(text):
    """A URL-safe slug of a title."""
    return normalize_name(text).replace(" ", "-")


class Registry:
    """Objects by name."""

    def add(self, name, value):
        self.items = {normalize_name(name): value}
''',
    "pkg/models.py": '''from pkg.util import normalize_name


class User:
    """A user account."""

    def __init__(self, name):
        self.name = name

    def display(self):
        return normalize_name(self.name)
''',
    "pkg/service.py": '''from pkg.models import User
from pkg.util import normalize_name, slugify


def create_user(name):
    """Create a user with a normalised name."""
    user = User(normalize_name(name))
    user.slug = slugify(name)
    return user
''',
    "pkg/api.py": '''from pkg.service import create_user
from pkg.util import normalize_name


def handle_request(payload):
    """Handle a signup request."""
    return create_user(normalize_name(payload["name"]))
''',
    "pkg/jobs.py": """from pkg.util import slugify


def nightly_report(titles):
    return [slugify(t) for t in titles]
""",
    "web/client.ts": """export function fetchUser(id: string): Promise<string> {
  return Promise.resolve(id);
}

export class ApiClient {
  get(id: string) {
    return fetchUser(id);
  }
}
""",
}


@pytest.fixture
def project(workdir: Path) -> Path:
    for rel, text in FILES.items():
        path = workdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return workdir


def _ok(result: Any) -> Any:
    assert result.returncode == 0, result.stderr
    return result.json()


def _one_line_error(result: Any, code: int) -> str:
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("memlode: error: ")
    return lines[0]


def test_index_then_query_the_project(cli: Any, project: Path) -> None:
    stats = _ok(cli("index", "--json", cwd=project))
    assert stats["namespace"] == detect_namespace(project)
    assert stats["root"] == project.resolve().as_posix()
    assert stats["parsed"] == len(FILES) + 1  # + pyproject.toml (a manifest)
    assert stats["symbols"] >= 12
    assert stats["references"] > 0 and stats["resolved"] > 0

    again = _ok(cli("index", "--json", cwd=project))
    assert again["parsed"] == 0
    assert again["unchanged"] == stats["files"]
    assert again["symbols"] == stats["symbols"]
    text = cli("index", cwd=project)
    assert text.returncode == 0
    assert f"{stats['files']} unchanged (skipped)" in text.stdout

    hits = _ok(cli("symbols", "normalize_name", "--json", cwd=project))
    assert hits[0]["qualified_name"] == "pkg.util.normalize_name"
    assert hits[0]["kind"] == "function" and hits[0]["path"] == "pkg/util.py"
    assert hits[0]["line"] == 4
    ts = _ok(cli("symbols", "fetchUser", "--json", cwd=project))
    assert ts[0]["name"] == "fetchUser" and ts[0]["path"] == "web/client.ts"
    classes = _ok(cli("symbols", "user", "--kind", "class", "--json", cwd=project))
    assert classes and {h["kind"] for h in classes} == {"class"}
    assert classes[0]["qualified_name"] == "pkg.models.User"
    words = _ok(cli("symbols", "signup request", "--json", cwd=project))
    assert words[0]["name"] == "handle_request"

    repo_map = _ok(cli("map", "--json", cwd=project))
    paths = [f["path"] for f in repo_map["files"]]
    assert paths[0] == "pkg/util.py", paths  # referenced by every other module
    assert "normalize_name" in repo_map["text"] and "def slugify(text)" in repo_map["text"]
    assert repo_map["tokens"] <= repo_map["budget"] == 1024
    small = _ok(cli("map", "--tokens", "64", "--json", cwd=project))
    assert small["tokens"] <= 64 and len(small["text"]) < len(repo_map["text"])
    plain = cli("map", cwd=project)
    assert plain.stdout.startswith("pkg/util.py")

    result = _ok(cli("impact", "normalize_name", "--json", cwd=project))
    assert result["symbol"]["qualified_name"] == "pkg.util.normalize_name"
    direct = {h["name"] for h in result["hits"] if h["depth"] == 1}
    assert {"display", "slugify", "create_user", "handle_request"} <= direct
    deeper = {h["name"] for h in result["hits"] if h["depth"] >= 2}
    assert "nightly_report" in deeper  # via slugify
    assert all(h["pagerank"] > 0 for h in result["hits"] if h["kind"] == "function")
    shallow = _ok(cli("impact", "normalize_name", "--depth", "1", "--json", cwd=project))
    assert {h["depth"] for h in shallow["hits"]} == {1}

    run = _ok(cli("graph", "recompute", "--json", cwd=project))
    assert run["namespace"] == detect_namespace(project) and run["nodes"] > stats["symbols"]
    assert run["edges"] > 0 and run["communities"] >= 1
    top = _ok(cli("graph", "pagerank", "--kind", "function", "--limit", "3", "--json", cwd=project))
    assert len(top) == 3 and {n["kind"] for n in top} == {"function"}
    assert top[0]["name"] == "normalize_name"
    assert top[0]["pagerank"] >= top[1]["pagerank"] >= top[2]["pagerank"]
    groups = _ok(cli("graph", "clusters", "--json", cwd=project))
    assert groups and all(g["members"] for g in groups)
    assert sum(g["size"] for g in groups) == run["nodes"]
    # the TypeScript client has nothing to do with the Python package
    ts_cluster = next(g for g in groups if any(m["name"] == "fetchUser" for m in g["members"]))
    assert not any(m["name"] == "normalize_name" for m in ts_cluster["members"])
    assert _ok(cli("graph", "cross-repo", "--json", cwd=project)) == []


def test_map_heat_from_hook_edits_and_focus(cli: Any, project: Path) -> None:
    _ok(cli("index", "--json", cwd=project))
    cold = [f["path"] for f in _ok(cli("map", "--json", cwd=project))["files"]]
    assert cold.index("pkg/jobs.py") > 0

    focused = _ok(cli("map", "--focus", "pkg/jobs.py", "--json", cwd=project))
    assert focused["focus"] == ["pkg/jobs.py"]
    assert focused["files"][0]["path"] == "pkg/jobs.py"

    # what the PostToolUse hook stores for an Edit of jobs.py
    edit = {"file": str(project / "pkg" / "jobs.py"), "tool": "Edit"}
    stored = cli(
        "store",
        "Edited pkg/jobs.py: +1 -1",
        "--type",
        "decision",
        "--source",
        "hook",
        "--tags",
        "edit,file:pkg/jobs.py",
        "--metadata",
        json.dumps(edit),
        cwd=project,
    )
    assert stored.returncode == 0, stored.stderr
    hot = _ok(cli("map", "--json", cwd=project))
    assert list(hot["heat"]) == ["pkg/jobs.py"] and hot["heat"]["pkg/jobs.py"] > 0.9
    assert hot["files"][0]["path"] == "pkg/jobs.py"
    ignored = _ok(cli("map", "--no-heat", "--json", cwd=project))
    assert [f["path"] for f in ignored["files"]] == cold

    bad = cli("map", "--focus", "nowhere.py", cwd=project)
    assert "nowhere.py" in _one_line_error(bad, 1)


def test_bad_input(cli: Any, project: Path, tmp_path: Path) -> None:
    missing = cli("index", str(tmp_path / "no-such-dir"), cwd=project)
    assert "no-such-dir" in _one_line_error(missing, 1)
    not_indexed = cli("impact", "normalize_name", cwd=project)
    assert "memlode index" in _one_line_error(not_indexed, 3)
    _ok(cli("index", "--json", cwd=project))
    unknown = cli("impact", "no_such_function", cwd=project)
    assert "no_such_function" in _one_line_error(unknown, 3)
    kind = cli("symbols", "user", "--kind", "gizmo", cwd=project)
    assert "gizmo" in _one_line_error(kind, 1)
    empty = _ok(cli("symbols", "zzzqqq", "--json", cwd=project))
    assert empty == []
    outside = cli("index", cwd=tmp_path)  # tmp_path holds no project marker
    assert "not inside a project" in _one_line_error(outside, 1)


def _cached_memory_nodes(home: Path, namespace: str) -> int:
    with sqlite3.connect(home / "memlode.db") as conn:
        row = conn.execute(
            "SELECT count(*) FROM graph_centrality c JOIN graph_nodes n ON n.id = c.node_id"
            " WHERE n.kind = 'memory' AND n.namespace = ? AND c.pagerank > 0",
            (namespace,),
        ).fetchone()
    return int(row[0])


def test_graph_recompute_feeds_recall_graph_signal(
    cli: Any, workdir: Path, memlode_home: Path
) -> None:
    ids = []
    for text in (
        "Decision: store sessions in Redis for horizontal scaling",
        "Pattern: Redis keys are prefixed with the service name",
        "Insight: Redis eviction policy must be noeviction for sessions",
    ):
        ids.append(_ok(cli("store", text, "--json", cwd=workdir))["id"])
    hub, *others = ids
    loner = _ok(cli("store", "Redis runs on port 6379 in development", "--json", cwd=workdir))["id"]
    for other in others:
        assert cli("associate", hub, other, "-r", "LEADS_TO", cwd=workdir).returncode == 0
    assert _cached_memory_nodes(memlode_home, detect_namespace(workdir)) == 0

    run = _ok(cli("graph", "recompute", "--json", cwd=workdir))
    assert run["memory_nodes"] == 3 and run["edges"] == 2
    assert _cached_memory_nodes(memlode_home, detect_namespace(workdir)) == 3
    ranked = _ok(cli("graph", "pagerank", "--kind", "memory", "--json", cwd=workdir))
    assert {n["kind"] for n in ranked} == {"memory"} and len(ranked) == 3

    hits = _ok(cli("search", "Redis sessions", "--explain", "--json", cwd=workdir))
    by_id = {h["id"]: h for h in hits}
    assert set(ids) | {loner} <= set(by_id)
    assert all(by_id[i]["signals"]["graph"] > 0 for i in ids)
    # the targets of the links rank higher (PageRank flows along LEADS_TO)
    assert max(by_id[o]["signals"]["graph"] for o in others) > by_id[hub]["signals"]["graph"]
    assert by_id[loner]["signals"]["graph"] == 0  # not in the graph: no centrality


def test_graph_path_components_and_layers(cli: Any, project: Path) -> None:
    _ok(cli("index", "--json", cwd=project))
    chain = _ok(cli("graph", "path", "handle_request", "normalize_name", "--json", cwd=project))
    names = [step["name"] for step in chain["path"]]
    assert chain["reachable"] and names[0] == "handle_request" and names[-1] == "normalize_name"
    assert chain["hops"] == 1 and chain["path"][1]["via"] == "CALLS"  # it calls it directly
    files = _ok(cli("graph", "path", "pkg/api.py", "pkg/models.py", "--json", cwd=project))
    assert [s["path"] for s in files["path"]] == ["pkg/api.py", "pkg/service.py", "pkg/models.py"]
    back = _ok(cli("graph", "path", "normalize_name", "handle_request", "--json", cwd=project))
    assert not back["reachable"] and back["path"] == []  # the helper uses nothing of the api
    either = cli("graph", "path", "normalize_name", "handle_request", "--undirected", cwd=project)
    assert either.returncode == 0 and "1 hop(s)" in either.stdout

    layers = _ok(cli("graph", "layers", "--json", cwd=project))["layers"]
    where = {m["path"]: layer["layer"] for layer in layers for m in layer["members"]}
    # the helpers first, then what uses them, the entry point last
    assert where["pkg/util.py"] < where["pkg/models.py"] < where["pkg/service.py"]
    assert where["pkg/service.py"] < where["pkg/api.py"]

    parts = _ok(cli("graph", "components", "--json", cwd=project))
    python = {m["path"] for m in parts["components"][0]["members"]}
    assert {"pkg/util.py", "pkg/api.py", "pkg/jobs.py"} <= python
    assert "web/client.ts" not in python  # the TypeScript client uses no Python
    cycles = _ok(cli("graph", "components", "--strong", "--json", cwd=project))
    assert cycles["total"] == 0 and cycles["components"] == []

    # a cycle: util imports from jobs, which imports from util
    (project / "pkg" / "util.py").write_text(
        FILES["pkg/util.py"] + "\n\ndef report(titles):\n    from pkg.jobs import nightly_report\n"
        "    return nightly_report(titles)\n"
    )
    _ok(cli("index", "--json", cwd=project))
    cycles = _ok(cli("graph", "components", "--strong", "--json", cwd=project))
    [cycle] = cycles["components"]
    assert {m["path"] for m in cycle["members"]} == {"pkg/util.py", "pkg/jobs.py"}
    missing = cli("graph", "path", "handle_request", "no_such_thing", cwd=project)
    assert "no_such_thing" in _one_line_error(missing, 3)
