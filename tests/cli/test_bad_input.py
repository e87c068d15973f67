"""Every bad input of the foundation issue: one clear line on stderr, a non-zero exit, no
traceback, and nothing already stored changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

UNKNOWN = "00000000-0000-0000-0000-000000000000"


@pytest.fixture
def seeded(store: Any, cli: Any, db: Any) -> list[str]:
    """Two linked memories, so that a wrongly applied change would show in every table."""
    ids = [store("first seeded memory", "--tags", "a"), store("second seeded memory")]
    assert cli("associate", ids[0], ids[1]).returncode == 0
    db.add_embedding(ids[0])
    return ids


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["store", ""], "content is empty"),
        (["store", "   \n\t "], "content is empty"),
        (["store", "text", "--type", "opinion"], "unknown memory type 'opinion'"),
        (["store", "text", "--importance", "1.5"], "importance must be between 0 and 1"),
        (["store", "text", "--importance", "-0.1"], "importance must be between 0 and 1"),
        (["store", "text", "--importance", "nan"], "importance must be between 0 and 1"),
        (["store", "text", "--confidence", "2"], "confidence must be between 0 and 1"),
        (["store", "text", "--tags", '["a", '], "tags are not valid JSON"),
        (["store", "text", "--tags", '["a", 1]'], "each tag must be a string"),
        (["store", "text", "--metadata", "{bad json"], "metadata is not valid JSON"),
        (["store", "text", "--metadata", "[1, 2]"], "metadata must be a JSON object"),
        (["store", "text", "--namespace", "*"], "not '*'"),
        (["search", ""], "query is empty"),
        (["search", "x", "-k", "0"], "between 1 and 1000"),
        (["list", "--limit", "0"], "limit must be at least 1"),
        (["list", "--since", "yesterday"], "is not an ISO-8601 date"),
        (["list", "--type", "nope"], "unknown memory type"),
        (["namespaces", "--delete", "*", "--yes"], "one namespace at a time"),
    ],
)
def test_bad_value_changes_nothing(
    cli: Any, db: Any, seeded: list[str], clean_error: Any, args: list[str], message: str
) -> None:
    before = db.snapshot()
    result = cli(*args)
    clean_error(result, 1)
    assert message in result.stderr
    assert db.snapshot() == before


@pytest.mark.parametrize(
    "args",
    [
        ["update", "{id}", "--content", "   "],
        ["update", "{id}", "--type", "opinion"],
        ["update", "{id}", "--importance", "3"],
        ["update", "{id}", "--tags", "[oops"],
        ["update", "{id}", "--metadata", "{{oops"],
        ["update", "{id}"],  # nothing to update
        ["update", "{id}", "--content", "second seeded memory"],  # would duplicate the other
        ["associate", "{id}", "{id}"],
        ["associate", "{id}", "{other}", "-r", "LIKES"],
        ["associate", "{id}", "{other}", "--properties", "{{oops"],
    ],
)
def test_bad_update_or_link_changes_nothing(
    cli: Any, db: Any, seeded: list[str], clean_error: Any, args: list[str]
) -> None:
    before = db.snapshot()
    filled = [a.format(id=seeded[0], other=seeded[1]) for a in args]
    clean_error(cli(*filled), 1)
    assert db.snapshot() == before


@pytest.mark.parametrize(
    "args",
    [
        ["get", UNKNOWN],
        ["update", UNKNOWN, "--importance", "0.2"],
        ["delete", UNKNOWN],
        ["delete", "{id}", UNKNOWN],  # all or nothing: the known id is not deleted either
        ["associate", "{id}", UNKNOWN],
        ["associate", UNKNOWN, "{id}"],
        ["neighbors", UNKNOWN],
        ["namespaces", "--delete", "no-such-namespace", "--yes"],
    ],
)
def test_unknown_id_is_not_found(
    cli: Any, db: Any, seeded: list[str], clean_error: Any, args: list[str]
) -> None:
    before = db.snapshot()
    result = cli(*[a.format(id=seeded[0]) for a in args])
    clean_error(result, 3)
    assert "no " in result.stderr
    assert db.snapshot() == before


@pytest.mark.parametrize(
    "garbage",
    [b"this is a text file, not a database\n", b"hi", b"\x00" * 4096, b"SQLite format 2\x00" * 8],
)
def test_a_file_that_is_not_sqlite(
    cli: Any, workdir: Path, tmp_path: Path, clean_error: Any, garbage: bytes
) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(garbage)
    for args in (["store", "x"], ["list"], ["search", "x"], ["stats"], ["export"]):
        result = cli("--db", str(path), *args)
        clean_error(result, 1)
        assert str(path) in result.stderr or "database" in result.stderr
    assert path.read_bytes() == garbage
    assert not (tmp_path / "notes.db-wal").exists()


def test_a_database_path_that_is_a_folder(cli: Any, tmp_path: Path, clean_error: Any) -> None:
    folder = tmp_path / "adir"
    folder.mkdir()
    result = cli("--db", str(folder), "list")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr


def test_an_unwritable_home(cli: Any, workdir: Path, tmp_path: Path, clean_error: Any) -> None:
    # Tests run as root, where chmod does not stop writes; a home under a regular file can never
    # be created, whoever runs the test.
    blocker = tmp_path / "afile"
    blocker.write_text("in the way\n")
    env = {"MEMLODE_HOME": str(blocker / "home")}
    for args in (["store", "x"], ["list"], ["stats"], ["search", "x"]):
        result = cli(*args, env=env)
        clean_error(result, 1)
        assert "MEMLODE_HOME" in result.stderr or "--db" in result.stderr
    assert blocker.read_text() == "in the way\n"
    result = cli("--db", str(blocker / "sub" / "x.db"), "store", "x")
    clean_error(result, 1)


def test_export_to_an_unwritable_path(
    cli: Any, store: Any, tmp_path: Path, clean_error: Any
) -> None:
    store("something to export")
    blocker = tmp_path / "afile"
    blocker.write_text("")
    clean_error(cli("export", str(blocker / "out.jsonl")), 1)
    assert blocker.read_text() == ""


def test_import_of_a_missing_or_binary_file(
    cli: Any, seeded: list[str], db: Any, tmp_path: Path, clean_error: Any
) -> None:
    before = db.snapshot()
    clean_error(cli("import", str(tmp_path / "missing.jsonl")), 1)
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    clean_error(cli("import", str(binary)), 1)
    assert db.snapshot() == before


def _memory_line(field: str) -> str:
    """A memory record that is valid but for ``field`` (JSON text, e.g. '"namespace": "*"')."""
    return (
        '{"kind": "memory", "id": "x", "content": "c", "created_at": "2026-01-01", ' + field + "}"
    )


def _good_lines(n: int) -> list[str]:
    return [
        json.dumps(
            {
                "kind": "memory",
                "id": f"imported-{i}",
                "content": f"imported memory {i}",
                "namespace": "proj",
                "created_at": "2026-01-01T00:00:00Z",
            }
        )
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [
        ('{"kind": "memory", "id": "x", "content": "unterminated', "not valid JSON"),
        ("[1, 2, 3]", "must be a JSON object"),
        ('{"kind": "memory", "id": "x", "content": "c"}', "missing field 'created_at'"),
        (
            '{"kind": "memory", "id": "x", "content": "c", "created_at": "2026-01-01",'
            ' "memory_type": "opinion"}',
            "unknown memory type",
        ),
        (
            '{"kind": "memory", "id": "x", "content": "c", "created_at": "2026-01-01",'
            ' "importance": 7}',
            "importance",
        ),
        ('{"kind": "memory", "id": "x", "content": "", "created_at": "2026-01-01"}', "empty"),
        (
            '{"kind": "memory", "id": "x", "content": "c", "created_at": "2026-01-01",'
            ' "session_id": {"a": 1}}',
            "session_id must be a string",
        ),
        (
            '{"kind": "memory", "id": "x", "content": "c", "created_at": "2026-01-01",'
            ' "access_count": -3}',
            "access_count",
        ),
        ('{"kind": "session", "id": "s", "started_at": "2026-01-01", "summary": 5}', "summary"),
        ('{"kind": "memory", "id": "x", "content": "c", "created_at": "never"}', "ISO-8601"),
        ('{"kind": "edge", "source_id": "a", "target_id": "b", "relationship": "X"}', "unknown"),
        ('{"kind": "session", "namespace": "p"}', "missing field 'id'"),
        ('{"kind": "widget"}', "unknown kind"),
        # no coercion: a value of the wrong JSON type is an error, never "True" or "nan"
        (_memory_line('"namespace": "*"'), "not '*'"),
        (_memory_line('"namespace": true'), "namespace must be text"),
        (_memory_line('"namespace": NaN'), "NaN is not a number JSON allows"),
        (_memory_line('"source": 5'), "source must be a non-empty string"),
        (_memory_line('"tags": "a,b"'), "tags must be a list"),
        (_memory_line('"tags": ["a", 2]'), "each tag must be a string"),
        (_memory_line('"importance": "0.5"'), "importance must be a number"),
        (_memory_line('"confidence": true'), "confidence must be a number"),
        (_memory_line('"access_count": 1e400'), "too large"),
        (_memory_line('"access_count": 2.5'), "access_count must be a whole number"),
        (_memory_line('"access_count": 99999999999999999999'), "64 bits"),
        (_memory_line('"memory_type": 3'), "memory_type must be a string"),
        (_memory_line('"metadata": ' + "[" * 100 + "]" * 100), "nests deeper"),
        ('{"kind": "memory", "id": 7, "content": "c", "created_at": "2026-01-01"}', "id must be"),
        ('{"kind": "memory", "id": "x", "content": 5, "created_at": "2026-01-01"}', "text"),
        (
            '{"kind": "memory", "id": "x", "content": "lone \\ud800", "created_at": "2026-01-01"}',
            "not valid UTF-8",
        ),
        (
            '{"kind": "edge", "source_id": "a", "target_id": "b", "relationship": "RELATES_TO",'
            ' "weight": "heavy"}',
            "weight must be a number",
        ),
        ('{"kind": "session", "id": 5, "started_at": "2026-01-01"}', "id must be"),
    ],
)
def test_a_corrupt_import_line_is_reported_and_nothing_is_applied(
    cli: Any,
    db: Any,
    seeded: list[str],
    tmp_path: Path,
    clean_error: Any,
    bad_line: str,
    reason: str,
) -> None:
    lines = [json.dumps({"kind": "header", "format": "memlode-jsonl", "version": 1})]
    lines += _good_lines(3)
    lines.append(bad_line)  # line 5
    lines += _good_lines(6)[3:]
    path = tmp_path / "corrupt.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = db.snapshot()
    counts = {t: db.count(t) for t in before}
    result = cli("import", str(path))
    clean_error(result, 1)
    assert "line 5" in result.stderr
    assert reason in result.stderr
    assert {t: db.count(t) for t in before} == counts
    assert db.snapshot() == before


def test_usage_errors_exit_2(cli: Any, workdir: Path) -> None:
    for args in (["store"], ["nonsense-command"], ["list", "--limit", "many"], ["get"]):
        result = cli(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert "Usage:" in result.stderr or "Error:" in result.stderr


def test_an_import_never_silently_drops_a_memory_whose_id_is_taken(
    cli: Any, db: Any, seeded: list[str], tmp_path: Path
) -> None:
    """A record whose id is stored with other content keeps the stored memory and is reported:
    counted, named in the summary, listed under "conflicts" with --json."""
    exported = tmp_path / "export.jsonl"
    assert cli("export", str(exported)).returncode == 0
    lines = exported.read_text(encoding="utf-8").splitlines()
    edited = []
    for line in lines:
        record = json.loads(line)
        if record.get("id") == seeded[0]:
            record["content"] = "an edited version of the first memory"
        edited.append(json.dumps(record))
    new = {"kind": "memory", "id": "new-1", "namespace": "proj"}
    new["created_at"] = "2026-01-01T00:00:00Z"
    edited.append(json.dumps({**new, "content": "a new memory"}))
    edited.append(json.dumps({**new, "content": "a second text under one id"}))
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(edited) + "\n", encoding="utf-8")
    before = db.snapshot()
    result = cli("import", str(path), "--json")
    assert result.returncode == 0, result.stderr
    report = result.json()
    assert report["memories_added"] == 1  # new-1, the first time
    assert report["memories_conflicting"] == 2
    assert sorted(report["conflicts"]) == sorted([seeded[0], "new-1"])
    assert report["memories_skipped"] == 1  # the second seeded memory: the same
    stored = cli("get", seeded[0], "--json").json()
    assert stored["content"] == "first seeded memory"  # the stored version stays
    assert cli("get", "new-1", "--json").json()["content"] == "a new memory"
    assert len(db.rows("memories")) == len(before["memories"]) + 1
    text = cli("import", str(path))
    assert text.returncode == 0, text.stderr
    assert "kept the stored version of 2 memories" in text.stdout
    assert seeded[0] in text.stdout


def test_memlode_mcp_bad_settings_get_the_full_command_lines_errors(
    cli: Any, tmp_path: Path, memlode_home: Path, clean_error: Any
) -> None:
    # `memlode mcp` with no options starts without click; what click or the settings refuse
    # is still refused before anything serves, with the command line's own message
    folder = tmp_path / "adir"
    folder.mkdir()
    result = cli("mcp", env={"MEMLODE_DB": str(folder)})
    assert result.returncode == 2 and "is a directory" in result.stderr, result.stderr
    memlode_home.mkdir(parents=True, exist_ok=True)
    (memlode_home / "config.toml").write_text("[embed\nprovider = 1\n")
    result = cli("mcp")
    clean_error(result, 1)
    assert "config.toml" in result.stderr
