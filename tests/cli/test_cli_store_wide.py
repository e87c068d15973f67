"""Store-wide commands through the CLI: stats, namespaces, sessions, associate/neighbors,
export/import, and the dedup rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memlode.config import Settings
from memlode.engine import Engine
from memlode.project import detect_namespace


def test_dedup_returns_the_same_id_and_bumps_nothing(cli: Any, store: Any, db: Any) -> None:
    first = cli("store", "same content twice", "--tags", "one", "--json")
    assert first.json()["created"] is True
    row_before = db.rows("memories")
    second = cli(
        "store", "same content twice", "--tags", "two", "--importance", "0.9", "--json"
    ).json()
    assert second == {
        "id": first.json()["id"],
        "created": False,
        "replaces": [],
        "may_replace": [],
    }
    assert db.rows("memories") == row_before  # access_count, updated_at, tags: all unchanged
    assert cli("store", "same content twice").stdout.strip() == first.json()["id"]
    # Dedup is per namespace: the same text elsewhere is a new memory.
    elsewhere = store("same content twice", "-n", "other")
    assert elsewhere != first.json()["id"]
    assert db.count("memories") == 2


def test_stats(cli: Any, store: Any) -> None:
    a = store("a decision", "--type", "decision")
    b = store("an insight", "--type", "insight")
    store("elsewhere", "-n", "other")
    assert cli("associate", a, b).returncode == 0
    data = cli("stats", "--json").json()
    assert data["namespace"] == "*"
    assert data["memories"] == 3
    assert data["by_type"] == {"context": 1, "decision": 1, "insight": 1}
    assert data["by_source"] == {"memory": 3}
    assert data["graph_nodes"] == 2
    assert data["graph_edges"] == 1
    assert data["embedded"] + data["pending_embeddings"] == 3
    assert data["database_bytes"] > 0
    assert cli("stats", "-n", "other", "--json").json()["memories"] == 1
    text = cli("stats")
    assert text.returncode == 0
    assert "memories:    3" in text.stdout


def test_namespaces_list_and_delete(cli: Any, store: Any, db: Any, memlode_home: Path) -> None:
    store("in proj")
    keep = store("in keep", "-n", "keep")
    gone = [store(f"in gone {i}", "-n", "gone") for i in range(2)]
    assert cli("associate", gone[0], gone[1]).returncode == 0
    with Engine(Settings.load({"namespace": "gone"})) as eng:
        eng.start_session("s-gone")
    proj = detect_namespace(Path.cwd())  # the workdir's project
    listed = cli("namespaces", "--json").json()
    assert [(n["namespace"], n["memories"]) for n in listed] == [
        ("gone", 2),
        ("keep", 1),
        (proj, 1),
    ]
    assert {"first_at", "last_at"} <= set(listed[0])
    assert "keep" in cli("namespaces").stdout

    refused = cli("namespaces", "--delete", "gone", input="n\n")
    assert refused.returncode != 0
    assert db.count("memories") == 4

    result = cli("namespaces", "--delete", "gone", "--yes", "--json")
    assert result.returncode == 0, result.stderr
    assert result.json() == {"namespace": "gone", "deleted_memories": 2}
    assert [n["namespace"] for n in cli("namespaces", "--json").json()] == ["keep", proj]
    assert db.count("graph_edges") == 0
    assert db.count("graph_nodes") == 0
    assert db.count("sessions") == 0
    assert keep in db.ids("memories")
    assert cli("namespaces", "--delete", "gone", "--yes").returncode == 3


def test_sessions_started_and_ended_by_the_engine(cli: Any, workdir: Path) -> None:
    with Engine(Settings.load()) as eng:  # in the workdir: its project's namespace
        done = eng.start_session("session-done", source="claude-code", metadata={"k": 1})
        eng.end_session(done.id, summary="Refactored the storage layer\nand more")
        eng.start_session("session-open")
        eng.start_session("session-elsewhere", namespace="other")
    listed = cli("sessions", "--json").json()
    by_id = {s["id"]: s for s in listed}
    assert set(by_id) == {"session-done", "session-open"}  # the current project only
    assert by_id["session-done"]["ended_at"] is not None
    assert by_id["session-done"]["summary"].startswith("Refactored")
    assert by_id["session-done"]["source"] == "claude-code"
    assert by_id["session-done"]["metadata"] == {"k": 1}
    assert by_id["session-open"]["ended_at"] is None
    assert len(cli("sessions", "-n", "*", "--json").json()) == 3
    assert len(cli("sessions", "-n", "*", "--limit", "1", "--json").json()) == 1
    text = cli("sessions").stdout
    assert "session-open" in text
    assert "open" in text
    assert "Refactored the storage layer" in text


def test_associate_and_neighbors(cli: Any, store: Any) -> None:
    a = store("use WAL")
    b = store("set busy_timeout first")
    c = store("hooks write in parallel")
    result = cli(
        "associate", a, b, "-r", "leads-to", "--weight", "0.5", "--properties", '{"why": "x"}'
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{a} -LEADS_TO-> {b}"
    edge = cli("associate", c, a, "-r", "EXPLAINS", "--json").json()
    assert edge["relationship"] == "EXPLAINS"
    assert edge["source_id"] == c

    around_a = cli("neighbors", a, "--json").json()
    assert {(n["node_id"], n["relationship"], n["direction"]) for n in around_a} == {
        (b, "LEADS_TO", "out"),
        (c, "EXPLAINS", "in"),
    }
    out_edge = next(n for n in around_a if n["direction"] == "out")
    assert out_edge["weight"] == 0.5
    assert out_edge["memory"]["content"] == "set busy_timeout first"
    assert [n["node_id"] for n in cli("neighbors", a, "--direction", "out", "--json").json()] == [b]
    only = cli("neighbors", a, "-r", "EXPLAINS", "--json").json()
    assert [n["node_id"] for n in only] == [c]
    assert "-LEADS_TO->" in cli("neighbors", a).stdout
    assert cli("neighbors", b, "--direction", "out").stdout.strip() == "no neighbors"
    # Associating again updates the weight instead of adding a second edge.
    cli("associate", a, b, "-r", "LEADS_TO", "--weight", "0.9")
    again = cli("neighbors", a, "--direction", "out", "--json").json()
    assert [(n["node_id"], n["weight"]) for n in again] == [(b, 0.9)]


def _rich_store(home: Path) -> None:
    """A store with every kind of record and every field set to a non-default value."""
    with Engine(Settings.load({"namespace": "alpha"})) as eng:
        session = eng.start_session("sess-1", source="claude-code", metadata={"model": "x"})
        eng.end_session(session.id, "a summary with ünïcode")
        eng.start_session("sess-2", namespace="beta")
        a = eng.store(
            "Decided: one SQLite file — no server 🚀",
            "decision",
            0.9,
            0.8,
            ["storage", "日本語"],
            metadata={"nested": {"list": [1, 2.5, None, True]}, "file": "db.py"},
            session_id=session.id,
            created_at="2026-05-01T10:00:00Z",
        ).id
        b = eng.store("getUserName is cached", "pattern", source="transcript").id
        c = eng.store("beta namespace memory", namespace="beta", tags="x").id
        eng.get(a)
        eng.get(a)
        eng.update(b, importance=0.1, tags=["cache"])
        eng.associate(a, b, "LEADS_TO", 0.25, {"reason": "caching follows"})
        eng.associate(b, a, "EXPLAINS")
        eng.associate(c, a, "SIMILAR_TO", 0.7)


def _body(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["kind"] == "header"
    return lines[1:]


def test_export_import_round_trip_is_lossless(
    cli: Any, workdir: Path, memlode_home: Path, tmp_path: Path, dbview: Any
) -> None:
    _rich_store(memlode_home)
    first = tmp_path / "first.jsonl"
    result = cli("export", str(first))
    assert result.returncode == 0, result.stderr
    kinds = [json.loads(line)["kind"] for line in _body(first)]
    assert sorted(kinds) == ["edge"] * 3 + ["memory"] * 3 + ["session"] * 2

    fresh = tmp_path / "fresh" / "copy.db"
    imported = cli("--db", str(fresh), "import", str(first), "--json")
    assert imported.returncode == 0, imported.stderr
    assert imported.json() == {
        "memories_added": 3,
        "memories_skipped": 0,
        "memories_conflicting": 0,
        "edges_added": 3,
        "edges_skipped": 0,
        "sessions_added": 2,
        "sessions_skipped": 0,
        "conflicts": [],
    }
    second = tmp_path / "second.jsonl"
    assert cli("--db", str(fresh), "export", str(second)).returncode == 0
    assert _body(second) == _body(first)
    # Stdout export is the same data.
    assert cli("--db", str(fresh), "export").stdout.splitlines()[1:] == _body(first)
    # The imported copy is searchable and linked like the original.
    hits = cli("--db", str(fresh), "search", "user name", "-n", "*", "--json").json()
    assert hits[0]["content"] == "getUserName is cached"
    assert dbview(fresh).count("graph_edges") == 3

    # Importing the same file again adds nothing.
    before = dbview(fresh).snapshot()
    again = cli("--db", str(fresh), "import", str(first), "--json").json()
    assert again["memories_added"] == again["edges_added"] == again["sessions_added"] == 0
    assert again["memories_skipped"] == 3
    assert dbview(fresh).snapshot() == before
    text = cli("--db", str(fresh), "import", str(first))
    assert text.stdout.startswith("imported 0 memories (3 already present)")


def test_export_one_namespace_and_import_from_stdin(
    cli: Any, workdir: Path, memlode_home: Path, tmp_path: Path
) -> None:
    _rich_store(memlode_home)
    beta = cli("export", "-n", "beta").stdout.splitlines()
    records = [json.loads(line) for line in beta[1:]]
    assert {r["kind"] for r in records} == {"memory", "session", "edge"}
    assert all(r["namespace"] == "beta" for r in records if r["kind"] != "edge")
    fresh = tmp_path / "beta.db"
    imported = cli("--db", str(fresh), "import", "-", "--json", input="\n".join(beta) + "\n")
    assert imported.returncode == 0, imported.stderr
    report = imported.json()
    assert report["memories_added"] == 1
    assert report["sessions_added"] == 1
    assert report["edges_skipped"] == 1  # its other end lives in namespace alpha


def test_import_maps_duplicate_content_onto_the_existing_memory(
    cli: Any, store: Any, tmp_path: Path, db: Any
) -> None:
    existing = store("already here")
    proj = detect_namespace(Path.cwd())  # the workdir's project, where store put it
    lines = [
        json.dumps(
            {
                "kind": "memory",
                "id": "other-id",
                "content": "already here",
                "namespace": proj,
                "created_at": "2026-01-01T00:00:00Z",
            }
        ),
        json.dumps(
            {
                "kind": "memory",
                "id": "new-id",
                "content": "brand new",
                "namespace": proj,
                "created_at": "2026-01-02",
            }
        ),
        json.dumps(
            {
                "kind": "edge",
                "source_id": "other-id",
                "target_id": "new-id",
                "relationship": "RELATES_TO",
            }
        ),
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = cli("import", str(path), "--json").json()
    assert report["memories_added"] == 1
    assert report["memories_skipped"] == 1
    assert report["edges_added"] == 1
    assert sorted(db.ids("memories")) == sorted([existing, "new-id"])
    assert [n["node_id"] for n in cli("neighbors", existing, "--json").json()] == ["new-id"]


def test_import_reads_null_as_absent(cli: Any, workdir: Path, tmp_path: Path) -> None:
    record = {
        "kind": "memory",
        "id": "n1",
        "content": "no namespace given",
        "created_at": "2026-01-01",
        "namespace": None,
        "source": None,
        "session_id": None,
    }
    path = tmp_path / "nulls.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert cli("import", str(path)).returncode == 0
    got = cli("get", "n1", "--json").json()
    assert (got["namespace"], got["source"], got["session_id"]) == ("", "memory", None)
