"""``memlode doctor --repair`` redacts again what an older memlode stored (issue 35, point 5).

Secrets are planted as a version without today's rules left them: written over stored rows
with plain SQL (memories with their tags, metadata and conversation context, a transcript turn,
a session, a graph node, the code index's signatures, docstrings and symbol texts, the repo map
kept for SessionStart) and appended raw to memory files memlode wrote. Then ``doctor --repair``
runs as a subprocess, and no secret is left in the database file (its raw bytes and its WAL's,
FTS shadow tables included) nor in the files; search still finds the rows by their other words;
a changed memory lost its vector and gets one again from ``memlode embed``; a second run
changes nothing. The same on a PostgreSQL store, read back with SQL.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

# Values today's rules redact (key-anchored, a vendor token's shape, a command's flag); an old
# version stored them as written.
PASSWORD = "sunflowerfield"
TOKEN = "ghp_" + "R8x2LmQ9vT4kW7pZ3nB6yH1cJ5fD0sA2eG8u"
PGPASS = "hollyhock77"
HTTPIE = "larkspurblue"
DOC_PASSWORD = "tulipbloom"
SECRETS = (PASSWORD, TOKEN, PGPASS, HTTPIE, DOC_PASSWORD)


def _ok(done: Any) -> Any:
    assert done.returncode == 0, done.stderr
    return done.json() if done.stdout.lstrip().startswith(("{", "[")) else done.stdout


def _id(done: Any) -> str:
    return str(_ok(done)["id"])


def _plant_sqlite(db: Path, ids: dict[str, str]) -> None:
    """Rows as an older memlode stored them: secrets in every user-text column."""
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            "UPDATE memories SET content = ?, tags = ?, metadata = ?, context_near = ?"
            " WHERE id = ?",
            (
                f"staging warmup script, config:\ndb_password: {PASSWORD}",
                json.dumps(["deploy", f"cmd:PGPASSWORD={PGPASS} psql"]),
                json.dumps({"password": PASSWORD, "command": f"http -a ana:{HTTPIE} GET x"}),
                f"earlier: export GITHUB_TOKEN={TOKEN}",
                ids["note"],
            ),
        )
        conn.execute(
            "UPDATE memories SET content = ? WHERE id = ?",
            (f"ran http -a ana:{HTTPIE} GET api.example.com/orchard to list trees", ids["turn"]),
        )
        # two rows that differ only in their secret: the same text once redacted
        for key, value in (("twin1", PASSWORD), ("twin2", PGPASS)):
            conn.execute(
                "UPDATE memories SET content = ? WHERE id = ?",
                (f"rotated the kiln service password={value}", ids[key]),
            )
        conn.execute(
            "INSERT INTO sessions (id, namespace, source, started_at, summary, metadata)"
            " VALUES ('s-old', 'proj', 'claude-code', '2026-01-01T00:00:00Z', ?, ?)",
            (f"pushed with {TOKEN}", json.dumps({"token": PGPASS})),
        )
        conn.execute(
            "UPDATE code_symbols SET signature = ?, doc = ? WHERE name = 'connect'",
            (f'def connect(host, password="{DOC_PASSWORD}")', f"Uses token: {TOKEN}"),
        )
        conn.execute(
            "INSERT INTO store_settings (key, value) VALUES ('session_map:proj', ?)",
            (f'app.py\n  def connect(host, password="{DOC_PASSWORD}")',),
        )


def _memory_files(workdir: Path) -> dict[Path, str]:
    """Memory files memlode wrote, with raw secrets appended as an older version wrote them;
    the user's own prose and a private region stay as they are."""
    note = workdir / "memory" / "deploy.md"
    text = note.read_text("utf-8")
    text += (
        f"\nCI pushes with {TOKEN} (rotated monthly).\n"
        "The user's own line: deploys on Fridays are fine.\n"
        "<private>my own scratch: key fig-orchard-42</private>\n"
    )
    note.write_text(text, "utf-8")
    memory = workdir / "MEMORY.md"
    memory.write_text(
        "# Project memory\n\n## Compaction summary, 2026-01-01 10:00 UTC\n\n"
        f"Fixed the login; PGPASSWORD={PGPASS} psql -h db worked.\n",
        "utf-8",
    )
    return {note: text, memory: memory.read_text("utf-8")}


def _vector_hashes(db: Path) -> dict[str, str]:
    with closing(sqlite3.connect(db)) as conn:
        return dict(conn.execute("SELECT memory_id, text_hash FROM memory_embeddings"))


def _raw_bytes(db: Path) -> bytes:
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    wal = db.with_name(db.name + "-wal")
    return db.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def _search_ids(cli: Callable[..., Any], query: str, *db: str) -> list[str]:
    return [str(hit["id"]) for hit in _ok(cli(*db, "search", query, "--json"))]


def _build(cli: Callable[..., Any], workdir: Path, *db: str) -> dict[str, str]:
    ids = {
        "note": _id(cli(*db, "store", "staging warmup script placeholder", "--json")),
        "turn": _id(cli(*db, "store", "orchard listing", "--source", "transcript", "--json")),
        "twin1": _id(cli(*db, "store", "kiln one", "--json")),
        "twin2": _id(cli(*db, "store", "kiln two", "--json")),
    }
    _ok(cli(*db, "memory", "store", "deploy", "Deploy from the main branch."))
    return ids


def test_repair_redacts_what_an_older_version_stored(
    cli: Callable[..., Any], workdir: Path, memlode_home: Path
) -> None:
    (workdir / "app.py").write_text(
        'def connect(host):\n    """Open a connection."""\n    return host\n', "utf-8"
    )
    ids = _build(cli, workdir)
    _ok(cli("index", str(workdir), "--wait"))
    _ok(cli("embed"))
    db = memlode_home / "memlode.db"
    hashes = _vector_hashes(db)
    _plant_sqlite(db, ids)
    files = _memory_files(workdir)
    assert all(s.encode() in _raw_bytes(db) for s in (PASSWORD, PGPASS, TOKEN, HTTPIE))

    first = _ok(cli("doctor", "--repair", "--json"))
    assert first["ok"], first["problems"]
    red = first["redacted"]
    assert red["memories_by_source"] == {"memory": 3, "transcript": 1}
    assert (red["transcript_turns"], red["memories_kept_distinct"]) == (1, 1)
    assert (red["sessions"], red["code_symbols"], red["session_maps"]) == (1, 1, 1)
    assert red["memory_files"] == 2

    raw = _raw_bytes(db)
    assert [s for s in SECRETS if s.encode() in raw] == []
    for path in files:
        text = path.read_text("utf-8")
        assert [s for s in SECRETS if s in text] == [], path
        assert "[redacted:" in text
    note = next(p for p in files if p.name == "deploy.md").read_text("utf-8")
    # only the secret changed: the user's prose and their private region are as written
    assert "The user's own line: deploys on Fridays are fine." in note
    assert "<private>my own scratch: key fig-orchard-42</private>" in note
    assert note.startswith("Deploy from the main branch.")

    assert ids["note"] in _search_ids(cli, "staging warmup")
    assert ids["turn"] in _search_ids(cli, "orchard trees")
    both = _search_ids(cli, "kiln service rotated")
    assert {ids["twin1"], ids["twin2"]} <= set(both)  # nothing lost to the dedup key
    listed = _ok(cli("symbols", "connect", "--json"))
    assert DOC_PASSWORD not in json.dumps(listed) and "connect" in json.dumps(listed)

    # a changed memory's vector was dropped: the one it has now is of its redacted text
    _ok(cli("embed"))
    after = _vector_hashes(db)
    assert len(after) == len(hashes)
    assert [after[ids[k]] != hashes[ids[k]] for k in ("note", "turn")] == [True, True]

    snapshot = {p: p.read_bytes() for p in files}
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT id, content, tags, metadata FROM memories").fetchall()
    second = _ok(cli("doctor", "--repair", "--json"))
    assert second["ok"] and second["redacted"]["changed"] == 0
    assert {p: p.read_bytes() for p in files} == snapshot
    with closing(sqlite3.connect(db)) as conn:
        again = conn.execute("SELECT id, content, tags, metadata FROM memories").fetchall()
    assert sorted(again) == sorted(rows)


def test_repair_redacts_a_team_store(
    cli: Callable[..., Any], workdir: Path, pg_store_url: str
) -> None:
    import psycopg

    db = ("--db", pg_store_url)
    ids = _build(cli, workdir, *db)
    with psycopg.connect(pg_store_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE memories SET content = %s, tags = %s::jsonb, metadata = %s::jsonb"
            " WHERE id = %s",
            (
                f"staging warmup script, config:\ndb_password: {PASSWORD}",
                json.dumps([f"cmd:PGPASSWORD={PGPASS} psql"]),
                json.dumps({"password": PASSWORD}),
                ids["note"],
            ),
        )
        conn.execute(
            "UPDATE memories SET content = %s WHERE id = %s",
            (f"ran http -a ana:{HTTPIE} GET api.example.com/orchard to list trees", ids["turn"]),
        )
    files = _memory_files(workdir)

    report = _ok(cli(*db, "doctor", "--repair", "--json"))
    assert report["ok"] and report["redacted"]["memories_by_source"] == {
        "memory": 1,
        "transcript": 1,
    }
    assert report["redacted"]["memory_files"] == 2
    with psycopg.connect(pg_store_url) as conn:
        stored = conn.execute(
            "SELECT string_agg(content || tags::text || metadata::text || search_terms, ' ')"
            " FROM memories"
        ).fetchone()[0]
    assert [s for s in SECRETS if s in stored] == []
    for path in files:
        assert [s for s in SECRETS if s in path.read_text("utf-8")] == []
    assert ids["note"] in _search_ids(cli, "staging warmup", *db)
    assert ids["turn"] in _search_ids(cli, "orchard trees", *db)
    second = _ok(cli(*db, "doctor", "--repair"))  # as a person reads it: nothing left
    assert "redacted again: nothing" in second
    assert "none to rebuild on a PostgreSQL store" in second
