"""The foundation through a real ``python -m memlode`` process: one walk through every command,
and each kind of bad input, as a user's shell or script would see them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from memlode import __version__
from memlode.project import detect_namespace

COMMANDS = [
    "associate",
    "delete",
    "export",
    "get",
    "import",
    "list",
    "namespaces",
    "neighbors",
    "search",
    "sessions",
    "stats",
    "store",
    "update",
]


def _clean_error(result: Any, code: int) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("memlode: error: ")


def test_version_and_help(cli: Any) -> None:
    version = cli("--version")
    assert version.returncode == 0
    assert version.stdout.strip() == f"memlode, version {__version__}"
    helped = cli("--help")
    assert helped.returncode == 0
    for name in COMMANDS:
        assert re.search(rf"^\s+{name}\s", helped.stdout, re.MULTILINE), name
    store_help = cli("store", "--help")
    assert store_help.returncode == 0
    for option in ("--type", "--importance", "--confidence", "--tags", "--namespace", "--json"):
        assert option in store_help.stdout
    assert cli("search", "-h").returncode == 0


def test_a_session_with_every_command(cli: Any, workdir: Path, tmp_path: Path) -> None:
    def ok(*args: str, input: str | None = None) -> Any:
        result = cli(*args, input=input)
        assert result.returncode == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
        return result

    wal = ok(
        "store",
        "Decision: busy_timeout is set before journal_mode=WAL on every connection",
        "--type",
        "decision",
        "--importance",
        "0.9",
        "--tags",
        "sqlite,storage",
        "--metadata",
        '{"file": "storage/db.py"}',
    ).stdout.strip()
    fts = ok(
        "store", "-", "--type", "insight", input="FTS5 external content tables use triggers"
    ).stdout.strip()
    assert ok("store", "FTS5 external content tables use triggers", "--type", "insight").stdout == (
        fts + "\n"
    )
    assert ok("get", wal, "--json").json()["access_count"] == 1
    ok("update", fts, "--tags", "search", "--importance", "0.7")
    listed = ok("list", "--json").json()
    assert [m["id"] for m in listed] == [fts, wal]
    assert listed[0]["tags"] == ["search"]
    hits = ok("search", "journal mode WAL", "--json").json()
    assert hits[0]["id"] == wal
    assert hits[0]["score"] > 0
    ok("associate", wal, fts, "-r", "RELATES_TO")
    assert [n["node_id"] for n in ok("neighbors", fts, "--json").json()] == [wal]
    stats = ok("stats", "--json").json()
    assert (stats["memories"], stats["graph_edges"]) == (2, 1)
    assert ok("namespaces", "--json").json()[0]["namespace"] == detect_namespace(workdir)
    assert ok("sessions").stdout.strip() == "no sessions"

    exported = tmp_path / "out.jsonl"
    ok("export", str(exported))
    copy = tmp_path / "copy.db"
    report = ok("--db", str(copy), "import", str(exported), "--json").json()
    assert (report["memories_added"], report["edges_added"]) == (2, 1)
    again = ok("--db", str(copy), "export").stdout.splitlines()
    assert again[1:] == exported.read_text(encoding="utf-8").splitlines()[1:]

    ok("delete", wal)
    assert ok("neighbors", fts, "--json").json() == []
    assert [m["id"] for m in ok("list", "--json").json()] == [fts]


def test_bad_input_in_a_real_process(cli: Any, workdir: Path, tmp_path: Path) -> None:
    kept = cli("store", "a memory that must survive every bad command").stdout.strip()
    _clean_error(cli("store", ""), 1)
    _clean_error(cli("store", "x", "--type", "opinion"), 1)
    _clean_error(cli("store", "x", "--importance", "1.01"), 1)
    _clean_error(cli("store", "x", "--tags", "[broken"), 1)
    _clean_error(cli("store", "x", "--metadata", "{broken"), 1)
    for args in (["get"], ["update", "--importance", "0.1"], ["delete"]):
        _clean_error(cli(args[0], "no-such-id", *args[1:]), 3)
    _clean_error(cli("associate", kept, "no-such-id"), 3)

    not_sqlite = tmp_path / "plain.txt"
    not_sqlite.write_text("hello\n")
    _clean_error(cli("--db", str(not_sqlite), "list"), 1)
    assert not_sqlite.read_text() == "hello\n"

    blocker = tmp_path / "afile"
    blocker.write_text("")
    _clean_error(cli("store", "x", env={"MEMLODE_HOME": str(blocker / "home")}), 1)

    corrupt = tmp_path / "corrupt.jsonl"
    good = {"kind": "memory", "content": "c", "created_at": "2026-01-01", "namespace": "proj"}
    corrupt.write_text(
        json.dumps({**good, "id": "a", "content": "imported a"})
        + "\n{oops\n"
        + json.dumps({**good, "id": "b", "content": "imported b"})
        + "\n"
    )
    result = cli("import", str(corrupt))
    _clean_error(result, 1)
    assert "line 2" in result.stderr

    survivors = cli("list", "--json").json()
    assert [(m["id"], m["access_count"]) for m in survivors] == [(kept, 0)]
