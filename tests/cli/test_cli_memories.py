"""Memory operations through the real CLI entry point: store, get, update, delete, list, search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlode.config import Settings
from memlode.engine import Engine
from memlode.project import detect_namespace

SHAPE = {"id", "content", "memory_type", "importance", "tags", "namespace", "created_at"}


def test_store_with_every_flag(cli: Any, workdir: Path) -> None:
    result = cli(
        "store",
        "Use SQLite WAL mode for concurrent hooks",
        "--type",
        "decision",
        "--importance",
        "0.9",
        "--confidence",
        "0.75",
        "--tags",
        "storage,sqlite",
        "--namespace",
        "other",
        "--metadata",
        '{"file": "db.py", "line": 12}',
        "--source",
        "manual",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    stored = result.json()
    assert stored["created"] is True
    got = cli("get", stored["id"], "--json").json()
    assert got["content"] == "Use SQLite WAL mode for concurrent hooks"
    assert got["memory_type"] == "decision"
    assert got["importance"] == 0.9
    assert got["confidence"] == 0.75
    assert got["tags"] == ["storage", "sqlite"]
    assert got["namespace"] == "other"
    assert got["metadata"] == {"file": "db.py", "line": 12}
    assert got["source"] == "manual"
    assert len(got["content_hash"]) == 64


def test_store_prints_the_id_and_defaults(cli: Any, workdir: Path) -> None:
    result = cli("store", "plain text memory")
    assert result.returncode == 0, result.stderr
    memory_id = result.stdout.strip()
    got = cli("get", memory_id, "--json").json()
    assert got["id"] == memory_id
    assert got["memory_type"] == "context"
    assert got["importance"] == 0.5
    assert got["confidence"] == 1.0
    assert got["tags"] == []
    assert got["metadata"] == {}
    assert got["namespace"] == detect_namespace(Path.cwd())  # the workdir's project
    assert got["source"] == "memory"


def test_store_reads_stdin_and_json_tags(cli: Any, workdir: Path) -> None:
    result = cli("store", "-", "--tags", '["a b", "c"]', input="multi\nline memory\n")
    assert result.returncode == 0, result.stderr
    got = cli("get", result.stdout.strip(), "--json").json()
    assert got["content"] == "multi\nline memory\n"
    assert got["tags"] == ["a b", "c"]


def test_get_bumps_access_count(cli: Any, store: Any) -> None:
    memory_id = store("remember me")
    first = cli("get", memory_id, "--json").json()
    second = cli("get", memory_id, "--json").json()
    assert first["access_count"] == 1
    assert second["access_count"] == 2
    assert first["last_accessed_at"] is not None
    assert second["last_accessed_at"] >= first["last_accessed_at"]
    text = cli("get", memory_id)
    assert text.returncode == 0
    assert "remember me" in text.stdout
    assert "accessed 3x" in text.stdout


def test_update_every_field(cli: Any, store: Any, db: Any) -> None:
    memory_id = store("old wording about caching")
    before = cli("get", memory_id, "--json").json()
    result = cli(
        "update",
        memory_id,
        "--content",
        "new wording about the LRU cache",
        "--type",
        "insight",
        "--importance",
        "0.2",
        "--confidence",
        "0.4",
        "--tags",
        "cache",
        "--metadata",
        '{"k": [1, 2]}',
        "--json",
    )
    assert result.returncode == 0, result.stderr
    after = result.json()
    assert after["id"] == memory_id
    assert after["content"] == "new wording about the LRU cache"
    assert after["memory_type"] == "insight"
    assert after["importance"] == 0.2
    assert after["confidence"] == 0.4
    assert after["tags"] == ["cache"]
    assert after["metadata"] == {"k": [1, 2]}
    assert after["created_at"] == before["created_at"]
    assert after["updated_at"] > before["updated_at"]
    assert after["content_hash"] != before["content_hash"]
    # The full-text index follows the new content.
    assert [h["id"] for h in cli("search", "LRU", "--json").json()] == [memory_id]
    assert cli("search", "wording caching", "--json").json()[0]["id"] == memory_id
    assert cli("search", "old", "--json").json() == []
    plain = cli("update", memory_id, "--importance", "0.3")
    assert plain.stdout.strip() == f"updated {memory_id}"


def test_update_of_content_drops_the_stale_embedding(cli: Any, store: Any, db: Any) -> None:
    memory_id = store("text that was embedded")
    db.add_embedding(memory_id)
    assert cli("update", memory_id, "--tags", "x").returncode == 0
    assert db.count("memory_embeddings") == 1  # tags do not change the vector
    assert cli("update", memory_id, "--content", "different text").returncode == 0
    assert db.count("memory_embeddings") == 0


def test_delete_cascades_to_embeddings_and_graph(cli: Any, store: Any, db: Any) -> None:
    keep = store("the memory that stays")
    gone = store("the memory that goes")
    db.add_embedding(gone)
    db.add_embedding(keep)
    assert cli("associate", keep, gone, "-r", "LEADS_TO").returncode == 0
    assert db.count("graph_edges") == 1
    assert db.count("graph_nodes") == 2

    result = cli("delete", gone)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"deleted {gone}"
    assert db.ids("memory_embeddings") == [keep]
    assert db.count("graph_edges") == 0
    assert db.ids("graph_nodes") == [keep]
    assert cli("neighbors", keep, "--json").json() == []
    assert cli("search", "goes", "--json").json() == []
    assert cli("get", gone).returncode == 3


def test_delete_several_ids(cli: Any, store: Any, db: Any) -> None:
    ids = [store(f"memory number {i}") for i in range(3)]
    assert cli("delete", ids[0], ids[1]).returncode == 0
    assert db.ids("memories") == [ids[2]]


def _seed_for_listing(home: Path) -> dict[str, str]:
    """Memories with chosen times, types, tags, namespaces and sources, through the engine."""
    ids: dict[str, str] = {}
    with Engine(Settings.load()) as eng:  # in the workdir: its project's namespace
        ids["jan"] = eng.store(
            "january decision", "decision", tags="a,b", created_at="2026-01-10T09:00:00Z"
        ).id
        ids["feb"] = eng.store("february pattern", "pattern", tags="a", created_at="2026-02-10").id
        ids["mar"] = eng.store(
            "march insight", "insight", tags="b", created_at="2026-03-10T12:00:00+02:00"
        ).id
        ids["apr"] = eng.store(
            "april transcript turn",
            source="transcript",
            created_at="2026-04-10T00:00:00Z",
        ).id
        ids["other"] = eng.store(
            "other project note", namespace="elsewhere", created_at="2026-02-15T00:00:00Z"
        ).id
    return ids


def _ids(result: Any) -> list[str]:
    assert result.returncode == 0, result.stderr
    return [m["id"] for m in result.json()]


def test_list_filters(cli: Any, workdir: Path, memlode_home: Path) -> None:
    ids = _seed_for_listing(memlode_home)
    newest_first = [ids["apr"], ids["mar"], ids["feb"], ids["jan"]]
    assert _ids(cli("list", "--json")) == newest_first
    assert _ids(cli("list", "--json", "--type", "decision")) == [ids["jan"]]
    assert _ids(cli("list", "--json", "--type", "decision,insight")) == [ids["mar"], ids["jan"]]
    assert _ids(cli("list", "--json", "--tags", "a")) == [ids["feb"], ids["jan"]]
    assert _ids(cli("list", "--json", "--tags", "a,b")) == [ids["jan"]]
    assert _ids(cli("list", "--json", "--source", "transcript")) == [ids["apr"]]
    assert _ids(cli("list", "--json", "--source", "transcript", "--source", "memory")) == (
        newest_first
    )
    assert _ids(cli("list", "--json", "-n", "elsewhere")) == [ids["other"]]
    assert len(_ids(cli("list", "--json", "-n", "*"))) == 5
    # Time range: --since inclusive, --until exclusive; a date alone is midnight UTC.
    assert _ids(cli("list", "--json", "--since", "2026-02-10")) == newest_first[:3]
    assert _ids(cli("list", "--json", "--until", "2026-02-10")) == [ids["jan"]]
    # March's memory was stored at 12:00+02:00, which is 10:00Z.
    until = ["--since", "2026-02-01", "--until", "2026-03-10T10:00:00Z"]
    assert _ids(cli("list", "--json", *until)) == [ids["feb"]]
    until = ["--since", "2026-02-01", "--until", "2026-03-10T10:00:00.001Z"]
    assert _ids(cli("list", "--json", *until)) == [ids["mar"], ids["feb"]]
    # Paging.
    assert _ids(cli("list", "--json", "--limit", "2")) == newest_first[:2]
    assert _ids(cli("list", "--json", "--limit", "2", "--offset", "2")) == newest_first[2:]
    assert _ids(cli("list", "--json", "--offset", "10")) == []


def test_list_json_shape_and_text(cli: Any, store: Any) -> None:
    memory_id = store("shape check", "--tags", "t1")
    items = cli("list", "--json").json()
    assert isinstance(items, list)
    assert len(items) == 1
    assert set(items[0]) >= SHAPE
    assert items[0]["id"] == memory_id
    text = cli("list")
    assert memory_id in text.stdout
    assert "shape check" in text.stdout
    empty = cli("list", "-n", "nothing-here")
    assert empty.returncode == 0
    # an empty namespace says where the memories are: here, the project's own
    assert empty.stdout.strip() == (
        "no memories in namespace 'nothing-here'; 1 in 1 other namespace"
        " (-n '*' reads them all, `memlode namespaces` lists them)"
    )
    assert cli("list", "-n", "nothing-here", "--json").json() == []
    missed = cli("search", "shape", "-n", "nothing-here")
    assert missed.stdout.startswith("no matches in namespace 'nothing-here'; 1 in 1 other")
    assert cli("search", "shape", "-n", "*").stdout.count("shape check") == 1


def test_store_says_what_it_replaced_and_how_to_undo_it(cli: Any, store: Any) -> None:
    old = store("Releases are signed with GPG keys.", "--type", "decision")
    done = cli(
        "store", "We no longer sign releases with GPG; Sigstore signs them.", "-t", "decision"
    )
    assert done.returncode == 0, done.stderr
    new = done.stdout.strip()  # stdout is the id alone, as scripts read it
    (said,) = done.stderr.strip().splitlines()
    assert said.startswith(f"replaces {old} (") and "Releases are signed with GPG keys." in said
    undo = said.split("(not so? ", 1)[1].rstrip(")")
    assert undo == f"memlode supersede --undo {old} {new}"
    assert cli(*undo.split()[1:]).returncode == 0  # the command it prints works
    assert "replaced_by" not in cli("get", old, "--json").json()
    again = cli("store", "Sigstore now signs releases instead of GPG.", "-t", "decision", "--json")
    assert again.json()["replaces"] == [new] and again.stderr == ""
    unrelated = cli("store", "The changelog is written by hand.", "-t", "decision")
    assert unrelated.returncode == 0 and unrelated.stderr == ""


def test_list_marks_a_replaced_memory_in_text_and_json(cli: Any, store: Any) -> None:
    old = store("Builds run on Travis CI.", "--type", "decision")
    new = store("Builds run on GitHub Actions.", "--type", "decision")
    linked = cli("supersede", old, new, "--json").json()
    items = {m["id"]: m for m in cli("list", "--json").json()}
    assert (items[old]["replaced_by"], items[old]["replaced_at"]) == (new, linked["at"])
    assert "replaced_by" not in items[new]
    lines = cli("list").stdout.splitlines()
    assert lines[0].startswith(new) and "replaced" not in lines[0]
    mark = f"(replaced {linked['at'][:10]} by {new})"
    assert lines[2].startswith(old) and lines[2].endswith(mark)
    # a neighbour that is history says so too (here the link itself, from the new one's side)
    (around,) = cli("neighbors", new, "--direction", "out", "--json").json()
    assert (around["node_id"], around["memory"]["replaced_by"]) == (old, new)
    shown = cli("neighbors", new, "--direction", "out").stdout
    assert shown.startswith(f"-SUPERSEDES-> {old}") and shown.rstrip().endswith(mark)
    assert "replaced" not in cli("neighbors", old, "--direction", "out").stdout


def test_the_project_namespace_says_where_its_memories_went(cli: Any, workdir: Path) -> None:
    assert cli("store", "kept for another project", "-n", "elsewhere").returncode == 0
    assert cli("list").stdout.strip().startswith("no memories in namespace '")
    assert "; 1 in 1 other namespace (-n '*'" in cli("search", "kept").stdout
    assert "kept for another project" in cli("search", "kept", "-n", "*").stdout
    assert cli("list", "-n", "*").stdout.count("kept for another project") == 1


def test_search_finds_camel_case_parts(cli: Any, store: Any) -> None:
    target = store("getUserName reads the profile from the session cache")
    store("unrelated note about the build pipeline")
    hits = cli("search", "user name", "--json").json()
    assert [h["id"] for h in hits] == [target]
    assert cli("search", "getUserName", "--json").json()[0]["id"] == target
    assert cli("search", "get_user_name", "--json").json()[0]["id"] == target


def test_search_json_shape_k_and_filters(cli: Any, store: Any) -> None:
    a = store("sqlite busy timeout before wal", "--type", "decision", "--tags", "db")
    b = store("sqlite indexes for the hundred thousand row store", "--type", "insight")
    c = store("sqlite in another namespace", "-n", "far")
    hits = cli("search", "sqlite", "--json").json()
    assert {h["id"] for h in hits} == {a, b}
    for hit in hits:
        assert set(hit) >= {*SHAPE, "score"}
        assert isinstance(hit["score"], float)
    assert hits[0]["score"] >= hits[1]["score"]
    assert len(cli("search", "sqlite", "-k", "1", "--json").json()) == 1
    assert _ids(cli("search", "sqlite", "--type", "decision", "--json")) == [a]
    assert _ids(cli("search", "sqlite", "--tags", "db", "--json")) == [a]
    assert _ids(cli("search", "sqlite", "-n", "far", "--json")) == [c]
    assert {h["id"] for h in cli("search", "sqlite", "-n", "*", "--json").json()} == {a, b, c}
    explained = cli("search", "busy timeout", "--explain", "--json").json()
    assert "signals" in explained[0]
    text = cli("search", "busy timeout")
    assert a in text.stdout
    assert "score=" in text.stdout


def test_search_accepts_any_query_text(cli: Any, store: Any) -> None:
    target = store('the "quoted" NEAR operator AND star* handling')
    for query in ['"quoted"', "NEAR(", "star*", "AND OR NOT", "col:quoted", "^quoted", "(x"]:
        result = cli("search", query, "--json")
        assert result.returncode == 0, (query, result.stderr)
        assert isinstance(result.json(), list)
    assert _ids(cli("search", '"quoted" AND', "--json")) == [target]
    for query in ["!!!", "¿?", "🙂🙂", "--- ***"]:  # nothing left after sanitising
        result = cli("search", "--json", "--", query)
        assert result.returncode == 0, (query, result.stderr)
        assert result.json() == []
    assert cli("search", "!!!").stdout.strip() == "no matches"


def test_search_unicode_and_emoji(cli: Any, store: Any) -> None:
    target = store("Größenänderung des Caches 🚀 über Nacht")
    assert _ids(cli("search", "größenänderung", "--json")) == [target]
    assert _ids(cli("search", "Grossenanderung 🚀", "--json")) in ([], [target])
    assert _ids(cli("search", "caches 🚀", "--json")) == [target]
