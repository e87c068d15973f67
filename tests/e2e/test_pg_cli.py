"""The memory commands on a PostgreSQL store, through the real entry point (``python -m memlode
--db postgresql://...``): store, search, list, get, update, delete and stats read and write the
server's tables, each command a process of its own (a one-shot search builds its text index from
the store), and the same URL by ``MEMLODE_DB`` or by ``db_path`` in config.toml is the same
store. Nothing of the store is left in a file: no SQLite database is made in the home.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

pytestmark = [pytest.mark.heavy, pytest.mark.usefixtures("workdir")]


def _ok(result) -> object:  # type: ignore[no-untyped-def]
    assert result.returncode == 0, result.stderr
    return result.json()


def test_memory_commands_round_trip_on_postgresql(
    cli, workdir: Path, memlode_home: Path, pg_store_url: str
) -> None:
    db = ("--db", pg_store_url)
    first = _ok(
        cli(
            *db,
            "--created-by",
            "ana@laptop",
            "store",
            "Rotate the JWT signing keys every 24 hours",
            "-t",
            "decision",
            "--tags",
            "auth,security",
            "--json",
            cwd=workdir,
        )
    )
    second = _ok(
        cli(
            *db,
            "store",
            "The cache_eviction policy is LRU with a 10 minute TTL",
            "--json",
            cwd=workdir,
        )
    )
    _ok(cli(*db, "store", "Lunch is at noon on Fridays", "--json", cwd=workdir))
    again = _ok(
        cli(
            *db,
            "store",
            "Rotate the JWT signing keys every 24 hours",
            "-t",
            "decision",
            "--json",
            cwd=workdir,
        )
    )
    assert first["created"] and not again["created"] and again["id"] == first["id"]  # dedup

    hits = _ok(cli(*db, "search", "jwt signing keys", "--json", cwd=workdir))
    assert [h["id"] for h in hits][:1] == [first["id"]]
    assert hits[0]["memory_type"] == "decision" and hits[0]["tags"] == ["auth", "security"]
    phrase = _ok(cli(*db, "search", "cache_eviction", "--json", cwd=workdir))  # a phrase
    assert [h["id"] for h in phrase][:1] == [second["id"]]
    assert _ok(cli(*db, "search", "zebra", "--json", cwd=workdir)) == []

    listed = _ok(cli(*db, "list", "--json", cwd=workdir))
    assert len(listed) == 3 and first["id"] in {m["id"] for m in listed}
    decisions = _ok(cli(*db, "list", "-t", "decision", "--json", cwd=workdir))
    assert [m["id"] for m in decisions] == [first["id"]]

    got = _ok(cli(*db, "get", first["id"], "--json", cwd=workdir))
    assert got["content"].startswith("Rotate the JWT") and got["access_count"] == 1
    _ok(cli(*db, "update", second["id"], "--importance", "0.9", "--json", cwd=workdir))
    assert _ok(cli(*db, "get", second["id"], "--json", cwd=workdir))["importance"] == 0.9

    stats = _ok(cli(*db, "stats", "--json", cwd=workdir))
    assert stats["memories"] == 3 and stats["by_type"]["decision"] == 1
    assert stats["database_bytes"] > 0 and stats["database"].startswith("postgres@")

    deleted = cli(*db, "delete", first["id"], cwd=workdir)
    assert deleted.returncode == 0, deleted.stderr
    missing = cli(*db, "get", first["id"], cwd=workdir)
    assert missing.returncode == 3 and len(missing.stderr.strip().splitlines()) == 1
    assert first["id"] not in {
        h["id"] for h in _ok(cli(*db, "search", "jwt signing keys", "--json", cwd=workdir))
    }
    assert _ok(cli(*db, "stats", "--json", cwd=workdir))["memories"] == 2

    # what the commands did is in the server's tables, with who stored it
    with psycopg.connect(pg_store_url) as conn:
        rows = conn.execute("SELECT content, created_by FROM memories ORDER BY content").fetchall()
    assert [r[0][:5] for r in rows] == ["Lunch", "The c"]
    assert all(r[1] for r in rows)
    assert not (memlode_home / "memlode.db").exists()


def test_the_url_from_the_environment_or_the_config_file_is_the_same_store(
    cli, workdir: Path, memlode_home: Path, pg_store_url: str
) -> None:
    stored = _ok(
        cli(
            "store",
            "Deploys go out on Tuesdays",
            "--json",
            cwd=workdir,
            env={"MEMLODE_DB": pg_store_url, "MEMLODE_CREATED_BY": "bo@desk"},
        )
    )
    memlode_home.mkdir(parents=True, exist_ok=True)
    (memlode_home / "config.toml").write_text(f'db_path = "{pg_store_url}"\n')
    hits = _ok(cli("search", "deploys tuesdays", "--json", cwd=workdir))
    assert [h["id"] for h in hits] == [stored["id"]]
    with psycopg.connect(pg_store_url) as conn:
        row = conn.execute("SELECT created_by FROM memories").fetchone()
    assert row == ("bo@desk",)
    assert not (memlode_home / "memlode.db").exists()


def test_a_command_not_on_postgresql_names_itself_and_touches_nothing(
    cli, workdir: Path, memlode_home: Path, pg_store_url: str
) -> None:
    result = cli("--db", pg_store_url, "backup", str(workdir / "copy.db"), cwd=workdir)
    assert result.returncode == 1
    assert result.stderr.startswith("memlode: error: `memlode backup` copies a SQLite store")
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (workdir / "copy.db").exists() and not (memlode_home / "memlode.db").exists()


def test_an_unreachable_server_is_one_line(cli, workdir: Path) -> None:
    url = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"
    result = cli("--db", url, "list", cwd=workdir)
    assert result.returncode == 1
    assert "cannot connect to PostgreSQL at nobody@127.0.0.1:1/none" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_the_other_commands_that_run_on_postgresql(
    cli, workdir: Path, tmp_path: Path, pg_store_url: str
) -> None:
    db = ("--db", pg_store_url)
    a = _ok(
        cli(
            *db,
            "store",
            "Use argon2id for password hashing",
            "-t",
            "decision",
            "--json",
            cwd=workdir,
        )
    )["id"]
    b = _ok(cli(*db, "store", "Password hashes are rehashed on login", "--json", cwd=workdir))["id"]

    linked = cli(*db, "associate", a, b, "-r", "REINFORCES", cwd=workdir)
    assert linked.returncode == 0 and f"{a} -REINFORCES-> {b}" in linked.stdout, linked.stderr
    near = cli(*db, "neighbors", a, cwd=workdir)
    assert near.returncode == 0 and b in near.stdout and "rehashed" in near.stdout, near.stderr
    names = cli(*db, "namespaces", cwd=workdir)
    assert (
        names.returncode == 0 and "2 memories" in names.stdout and "(this project)" in names.stdout
    )
    assert cli(*db, "sessions", cwd=workdir).stdout.strip() == "no sessions"

    weights = _ok(
        cli(*db, "config", "set-weights", "bm25=2", "vector=2", "--replace", "--json", cwd=workdir)
    )
    assert weights["bm25"] == pytest.approx(0.5)
    assert _ok(cli(*db, "config", "get-weights", "--json", cwd=workdir)) == pytest.approx(weights)

    embedded = _ok(cli(*db, "embed", "--json", cwd=workdir))
    assert embedded["embedded"] == 2 and embedded["pending"] == 0
    assert embedded["symbols_embedded"] == 0  # no code index on a PostgreSQL store
    again = _ok(cli(*db, "reembed", "--yes", "--json", cwd=workdir))
    assert again["embedded"] == 2
    hits = _ok(cli(*db, "search", "argon2id", "--explain", "--json", cwd=workdir))
    assert hits[0]["id"] == a and "vector" in hits[0]["signals"]

    exported = tmp_path / "out.jsonl"
    assert cli(*db, "export", str(exported), cwd=workdir).returncode == 0
    assert exported.read_text().count("\n") >= 3  # two memories and their edge
    sqlite_store = ("--db", str(tmp_path / "copy.db"))
    imported = _ok(cli(*sqlite_store, "import", str(exported), "--json", cwd=workdir))
    assert imported["memories_added"] == 2 and imported["edges_added"] == 1
    back = _ok(cli(*db, "import", str(exported), "--json", cwd=workdir))
    assert (back["memories_added"], back["memories_skipped"]) == (0, 2)  # already there

    runs = _ok(cli(*db, "consolidate", "--json", cwd=workdir))
    assert {r["cycle"] for r in runs} >= {"decay", "creative"}
    patterns = cli(*db, "patterns", "--detect", cwd=workdir)
    assert patterns.returncode == 0, patterns.stderr


def test_a_store_migrated_to_postgresql_is_searched_there(
    cli, workdir: Path, tmp_path: Path, pg_url: str
) -> None:
    lite = ("--db", str(tmp_path / "mine.db"))
    kept = _ok(cli(*lite, "store", "Feature flags live in LaunchDarkly", "--json", cwd=workdir))
    _ok(cli(*lite, "store", "Retries use exponential backoff", "--json", cwd=workdir))
    assert _ok(cli(*lite, "embed", "--json", cwd=workdir))["embedded"] == 2
    moved = cli(*lite, "--created-by", "cy@old-laptop", "migrate", "--to", pg_url, cwd=workdir)
    assert moved.returncode == 0, moved.stderr
    hits = _ok(
        cli("--db", pg_url, "search", "launchdarkly flags", "--explain", "--json", cwd=workdir)
    )
    assert hits[0]["id"] == kept["id"] and {"bm25", "vector"} <= set(hits[0]["signals"])
    assert _ok(cli("--db", pg_url, "stats", "--json", cwd=workdir))["embedded"] == 2
    with psycopg.connect(pg_url) as conn:
        who = conn.execute("SELECT DISTINCT created_by FROM memories").fetchall()
    assert who == [("cy@old-laptop",)]


def test_who_stored_is_recorded_and_filtered(  # type: ignore[no-untyped-def]
    cli, workdir: Path, pg_store_url: str
) -> None:
    db = ("--db", pg_store_url)
    for author, text in (
        ("ana@laptop", "Deploys go through the blue-green switch"),
        ("bo@desktop", "Deploys are frozen on Fridays"),
        ("ana@laptop", "The staging database is refreshed nightly"),
    ):
        _ok(cli(*db, "--created-by", author, "store", text, "--json", cwd=workdir))
    hers = _ok(cli(*db, "list", "--stored-by", "ana@laptop", "--json", cwd=workdir))
    assert sorted(m["content"] for m in hers) == [
        "Deploys go through the blue-green switch",
        "The staging database is refreshed nightly",
    ]
    found = _ok(cli(*db, "search", "deploys", "--stored-by", "bo@desktop", "--json", cwd=workdir))
    assert [h["content"] for h in found] == ["Deploys are frozen on Fridays"]
    nobody = _ok(cli(*db, "list", "--stored-by", "cy@laptop", "--json", cwd=workdir))
    assert nobody == []
    with psycopg.connect(pg_store_url) as conn:
        authors = conn.execute("SELECT created_by, count(*) FROM memories GROUP BY 1 ORDER BY 1")
        assert [tuple(r) for r in authors] == [("ana@laptop", 2), ("bo@desktop", 1)]

    local = cli("list", "--stored-by", "ana@laptop", cwd=workdir)
    assert local.returncode != 0 and "Traceback" not in local.stderr
    assert "records no author" in local.stderr


def test_doctor_reports_the_team_store(  # type: ignore[no-untyped-def]
    cli, workdir: Path, pg_store_url: str
) -> None:
    db = ("--db", pg_store_url)
    _ok(cli(*db, "store", "Doctor reads the server's counts", "--json", cwd=workdir))
    report = cli(*db, "doctor", "--json", cwd=workdir)  # exit 1: no hooks installed here
    assert "Traceback" not in report.stderr
    database = report.json()["database"]
    assert database["exists"] and database["memories"] == 1
    assert "@" in database["url"] and "password" not in database["url"]
    # on a team store --repair redacts stored text again; nothing derived to rebuild there
    repair = cli(*db, "doctor", "--repair", cwd=workdir)
    assert repair.returncode == 0 and "Traceback" not in repair.stderr
    assert "none to rebuild on a PostgreSQL store" in repair.stdout
    backup = cli(*db, "backup", str(workdir / "copy.db"), cwd=workdir)
    assert backup.returncode != 0 and "pg_dump" in backup.stderr
    assert len(backup.stderr.strip().splitlines()) == 1
