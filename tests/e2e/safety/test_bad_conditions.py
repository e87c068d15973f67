"""Bad conditions of the machine, through the real CLI process: a read-only file system, a
database file that cannot be written, a full disk (before and during a write), a full device
as the export target, a damaged database, and transcripts in other encodings or none.

Reads keep working when writes cannot; a write that cannot happen fails with one line and exit
1; nothing already stored changes. The read-only file system and the small disk are real: a
tmpfs mounted for the test (``mount -t tmpfs``, then ``remount,ro``), and a file made immutable
with ``chattr +i`` (tests run as root, and chmod does not stop root). Where this machine does not
allow mounting or chattr, those tests skip and say why.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from memlode.cli import main

# ---- running the CLI -----------------------------------------------------------------------


@dataclass
class Result:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def memlode(
    *args: str,
    home: Path,
    cwd: Path | None = None,
    stdin: bytes = b"",
    stdout: int | None = None,
) -> Result:
    env = {**os.environ, "MEMLODE_HOME": str(home), "MEMLODE_EMBED_PROVIDER": "hash"}
    env.pop("MEMLODE_DB", None)
    proc = subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        input=stdin,
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    out = proc.stdout.decode("utf-8", "replace") if proc.stdout is not None else ""
    return Result(args, proc.returncode, out, proc.stderr.decode("utf-8", "replace"))


def ok(result: Result) -> Result:
    assert result.returncode == 0, (result.args, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def clean_error(result: Result, *words: str) -> Result:
    """Exit 1, one line on stderr starting ``memlode: error:``, containing ``words``."""
    assert result.returncode == 1, (result.args, result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("memlode: error: "), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert "cannot rollback" not in lines[0]
    return result


def rows(db: Path) -> list[tuple[object, ...]]:
    """Every memory row, read with a plain sqlite3 connection; integrity checked first."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return [tuple(r) for r in conn.execute("SELECT * FROM memories ORDER BY id")]
    finally:
        conn.close()


# ---- mounts --------------------------------------------------------------------------------


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str, str], Path]]:
    """``tmpfs(name, size)`` mounts a fresh tmpfs at tmp_path/name; unmounted afterwards."""
    mounted: list[Path] = []

    def mount(name: str, size: str) -> Path:
        point = tmp_path / name
        point.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(point)],
            capture_output=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
        mounted.append(point)
        return point

    yield mount
    for point in reversed(mounted):
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def remount(point: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(point)], check=True)


# ---- a store with something in it ----------------------------------------------------------


def transcript_lines(session: str, turns: int, cwd: str, words: str = "") -> str:
    out = []
    parent = None
    for i in range(turns):
        user = {
            "type": "user",
            "uuid": f"{session}-u{i}",
            "parentUuid": parent,
            "sessionId": session,
            "cwd": cwd,
            "timestamp": f"2026-03-02T09:{i % 60:02d}:00.000Z",
            "message": {"role": "user", "content": f"Question {i}: how do we retry café? {words}"},
        }
        reply = {
            "type": "assistant",
            "uuid": f"{session}-a{i}",
            "parentUuid": f"{session}-u{i}",
            "sessionId": session,
            "cwd": cwd,
            "timestamp": f"2026-03-02T09:{i % 60:02d}:07.000Z",
            "message": {
                "id": f"{session}-m{i}",
                "role": "assistant",
                "content": [{"type": "text", "text": f"Answer {i}: jittered retries. {words}"}],
            },
        }
        parent = reply["uuid"]
        out += [json.dumps(user, ensure_ascii=False), json.dumps(reply, ensure_ascii=False)]
    return "".join(line + "\n" for line in out)


@dataclass
class Store:
    home: Path
    project: Path
    ids: list[str]

    @property
    def db(self) -> Path:
        return self.home / "memlode.db"

    def run(self, *args: str, **kw: object) -> Result:
        return memlode(*args, home=self.home, cwd=self.project, **kw)  # type: ignore[arg-type]


def make_store(home: Path, project: Path) -> Store:
    """Two linked memories (one import) and an indexed project (one index run)."""
    project.mkdir(parents=True, exist_ok=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    (project / "app.py").write_text(
        "def main():\n    return helper()\n\n\ndef helper():\n    pass\n"
    )
    ids = ["seed-busy", "seed-fts"]
    seed = project.parent / f"seed-{project.name}.jsonl"  # beside the project, off the store
    records = [
        {"kind": "memory", "id": ids[0], "content": "Decision: busy_timeout before WAL"},
        {"kind": "memory", "id": ids[1], "content": "Insight: FTS5 triggers keep sync"},
    ]
    for record in records:
        record |= {"namespace": "", "tags": ["seed"], "created_at": "2026-01-01T00:00:00Z"}
    edge = {"kind": "edge", "source_id": ids[0], "target_id": ids[1]}
    edge["relationship"] = "RELATES_TO"
    seed.write_text("".join(json.dumps(r) + "\n" for r in [*records, edge]))
    store = Store(home, project, ids)
    ok(store.run("import", str(seed)))
    ok(store.run("index", str(project)))
    return store


# Commands that only read (the memories are in the global namespace: -n '' shows them).
READS: list[tuple[str, ...]] = [
    ("list", "-n", "*", "--json"),
    ("search", "busy_timeout", "-n", "*"),
    ("get", "{id}"),
    ("stats",),
    ("neighbors", "{id}"),
    ("symbols", "helper"),
]
# Commands that write, refused with one line.
WRITES: list[tuple[str, ...]] = [
    ("store", "a new memory"),
    ("update", "{id}", "--importance", "0.9"),
    ("import", "{export}"),
    ("ingest", "transcript", "{transcript}"),
    ("index", "."),  # with a new file to index
]


def _fill(args: tuple[str, ...], names: dict[str, str]) -> list[str]:
    return [a.format(**names) for a in args]


def check_reads_and_refused_writes(store: Store, tmp_path: Path, *reason: str) -> None:
    transcript = tmp_path / "later.jsonl"
    transcript.write_text(transcript_lines("later", 2, str(store.project)), encoding="utf-8")
    export = tmp_path / "export-before.jsonl"
    names = {"id": store.ids[0], "export": str(export), "transcript": str(transcript)}
    for args in READS:
        result = ok(store.run(*_fill(args, names)))
        if args[0] in ("list", "search", "get"):
            assert "busy_timeout" in result.stdout, (args, result.stdout)
    export_to = tmp_path / "outside.jsonl"  # written outside the read-only store
    ok(store.run("export", str(export_to)))
    assert "busy_timeout" in export_to.read_text()
    assert len(export_to.read_text().splitlines()) == 4  # header, 2 memories, 1 edge
    new = {"kind": "memory", "id": "imported-1", "content": "an imported memory"}
    new |= {"namespace": "x", "created_at": "2026-01-01T00:00:00Z"}
    export.write_text(export_to.read_text() + json.dumps(new) + "\n")
    (store.project / "extra.py").write_text("def extra():\n    return 1\n")  # index must write
    for args in WRITES:
        clean_error(store.run(*_fill(args, names)), *reason)
    # a hook that cannot store its observation stays silent and exits 0, as hooks always do
    payload = {"session_id": "s1", "cwd": str(store.project), "hook_event_name": "PostToolUse"}
    payload |= {"tool_name": "Edit", "tool_input": {"file_path": str(store.project / "app.py")}}
    hook = store.run("hook", "PostToolUse", stdin=json.dumps(payload).encode())
    assert (hook.returncode, hook.stdout, "Traceback" in hook.stderr) == (0, "", False), hook


# ---- the tests -----------------------------------------------------------------------------


def test_reads_work_on_a_read_only_file_system(tmpfs: Callable[..., Path], tmp_path: Path) -> None:
    point = tmpfs("ro", "16m")
    store = make_store(point / "home", tmp_path / "proj")
    before = rows(store.db)
    remount(point, "ro")
    check_reads_and_refused_writes(store, tmp_path, "read-only")
    remount(point, "rw")
    assert rows(store.db) == before  # not even an access count changed


def test_reads_work_when_the_database_file_cannot_be_written(tmp_path: Path) -> None:
    store = make_store(tmp_path / "home", tmp_path / "proj")
    before = rows(store.db)
    done = subprocess.run(["chattr", "+i", str(store.db)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"chattr +i is not supported here: {done.stderr.decode().strip()}")
    try:
        check_reads_and_refused_writes(store, tmp_path, "not writable")
    finally:
        subprocess.run(["chattr", "-i", str(store.db)], check=True)
    assert rows(store.db) == before
    ok(store.run("store", "writable again"))


def test_a_read_only_database_that_needs_upgrading_is_a_clear_error(tmp_path: Path) -> None:
    """No migration is attempted on a database that cannot be written: it is refused whole."""
    store = make_store(tmp_path / "home", tmp_path / "proj")
    old = tmp_path / "old" / "memlode.db"
    old.parent.mkdir()
    shutil.copyfile(store.db, old)
    conn = sqlite3.connect(old)
    with conn:  # as if written by the version before the latest migration
        conn.execute(
            "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM"
            " schema_migrations)"
        )
    conn.close()
    done = subprocess.run(["chattr", "+i", str(old)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"chattr +i is not supported here: {done.stderr.decode().strip()}")
    try:
        clean_error(store.run("--db", str(old), "list"), "needs upgrading", "not writable")
    finally:
        subprocess.run(["chattr", "-i", str(old)], check=True)
    assert rows(old) == rows(store.db)  # nothing was changed in it


def fill(filler: Path) -> None:
    """Fill the file system holding ``filler`` to its last block."""
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


def test_a_full_disk_refuses_writes_and_keeps_reads(
    tmpfs: Callable[..., Path], tmp_path: Path
) -> None:
    point = tmpfs("small", "2m")
    store = make_store(point / "home", tmp_path / "proj")
    before = rows(store.db)
    filler = point / "filler"
    fill(filler)
    check_reads_and_refused_writes(store, tmp_path, "full")
    # an export onto the full disk: an error, and no partial file left behind
    clean_error(store.run("export", str(point / "export.jsonl")), "No space left")
    assert sorted(p.name for p in point.iterdir()) == ["filler", "home"]
    filler.unlink()
    assert rows(store.db) == before
    ok(store.run("store", "space again"))
    assert len(rows(store.db)) == len(before) + 1


def test_the_disk_fills_during_an_ingest(tmpfs: Callable[..., Path], tmp_path: Path) -> None:
    point = tmpfs("tiny", "1m")
    home = point / "home"
    project = tmp_path / "proj"
    project.mkdir()
    first = ok(memlode("store", "stored before the disk filled", home=home, cwd=project))
    before = rows(home / "memlode.db")
    big = tmp_path / "big.jsonl"  # ~1.5 MB of turns: more than the disk can take
    big.write_text(transcript_lines("big", 250, str(project), "word " * 500), encoding="utf-8")
    clean_error(
        memlode("ingest", "transcript", str(big), home=home, cwd=project), "is full", "nothing"
    )
    assert rows(home / "memlode.db") == before  # the ingest is one transaction: all or nothing
    shown = ok(memlode("get", first.stdout.strip(), home=home, cwd=project))
    assert "stored before the disk filled" in shown.stdout


def _full_device(where: Path) -> Path:
    device = where / "full"
    try:
        os.mknod(device, 0o666 | 0o020000, os.makedev(1, 7))
    except OSError as exc:
        pytest.skip(f"cannot create a full device (mknod c 1 7) here: {exc}")
    return device


def test_export_to_a_full_device(tmp_path: Path) -> None:
    store = make_store(tmp_path / "home", tmp_path / "proj")
    device = _full_device(tmp_path)
    clean_error(store.run("export", str(device)), "No space left")
    assert device.is_char_device()  # written in place, never renamed over
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))
    with device.open("wb") as full:  # stdout on the full device: the same error, no traceback
        clean_error(store.run("export", stdout=full.fileno()), "disk is full")
        clean_error(store.run("list", stdout=full.fileno()), "disk is full")
    devnull = ok(store.run("export", "/dev/null"))
    assert "exported" in devnull.stderr


def test_a_failed_export_keeps_the_old_file(tmpfs: Callable[..., Path], tmp_path: Path) -> None:
    store = make_store(tmp_path / "home", tmp_path / "proj")
    bulk = tmp_path / "bulk.jsonl"
    words = "filler words " * 400
    bulk.write_text(
        "".join(
            json.dumps({"kind": "memory", "id": f"bulk-{i}", "content": f"memory {i} {words}"})[:-1]
            + ', "created_at": "2026-01-01T00:00:00Z"}\n'
            for i in range(40)
        )
    )
    ok(store.run("import", str(bulk)))  # ~200 KB to export
    point = tmpfs("out", "64k")
    old = point / "export.jsonl"
    old.write_text("the previous export\n")
    clean_error(store.run("export", str(old)), "nothing was exported")
    assert old.read_text() == "the previous export\n"
    assert sorted(p.name for p in point.iterdir()) == ["export.jsonl"]


def _corrupt(source: Path, target: Path, tables: tuple[str, ...]) -> None:
    """A copy of ``source`` whose pages of ``tables`` are overwritten with garbage (the copy is
    not open in any process; the original is not touched)."""
    conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        marks = ",".join("?" * len(tables))
        pages = [
            r[0] for r in conn.execute(f"SELECT pageno FROM dbstat WHERE name IN ({marks})", tables)
        ]
    finally:
        conn.close()
    assert pages, tables
    shutil.copyfile(source, target)
    junk = bytes((i * 37 + 11) % 256 for i in range(size))
    with target.open("r+b") as fh:
        for page in pages:
            fh.seek((page - 1) * size)
            fh.write(b"\x0d" + junk[1:])  # a leaf page type with garbage cells


@pytest.fixture(scope="module")
def built_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    base = tmp_path_factory.mktemp("built")
    return make_store(base / "home", base / "proj")


def run_in_process(*args: str, home: Path, cwd: Path) -> Result:
    """``memlode ARGS`` through the console script's function in this process (fast, for a
    matrix of commands); an escaping exception becomes the traceback the process would print."""
    runner = CliRunner()
    code = 0
    env = {"MEMLODE_HOME": str(home), "MEMLODE_EMBED_PROVIDER": "hash"}
    old = Path.cwd()
    os.chdir(cwd)
    try:
        with runner.isolation(env=env) as (out, err, _):
            try:
                main(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
    finally:
        os.chdir(old)
    return Result(args, code, out.getvalue().decode(errors="replace"), err.getvalue().decode())


@pytest.mark.parametrize(
    ("tables", "failing"),
    [
        (("code_files", "code_symbols"), [("index", "{proj}"), ("symbols", "helper")]),
        (("memories",), [("list", "-n", "*"), ("export",), ("store", "x"), ("get", "{id}")]),
        (("sqlite_schema",), [("list",), ("stats",), ("index", "{proj}"), ("export",)]),
    ],
)
def test_a_damaged_database_is_an_error_for_every_command_that_reads_it(
    built_store: Store, tmp_path: Path, tables: tuple[str, ...], failing: list[tuple[str, ...]]
) -> None:
    store = built_store
    damaged = tmp_path / "damaged.db"
    _corrupt(store.db, damaged, tables)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(transcript_lines("dmg", 1, str(store.project)), encoding="utf-8")
    names = {"id": store.ids[0], "proj": str(store.project), "transcript": str(transcript)}
    for args in failing:  # through the real process: the exit status a shell sees
        clean_error(store.run("--db", str(damaged), *_fill(args, names)), "damaged")
    names["export"] = str(tmp_path / "none.jsonl")
    matrix = [*READS, *WRITES, ("export",), ("graph", "recompute"), ("map",), ("embed",)]
    for args in matrix:  # whatever they answer: never a traceback, one line for an error
        result = run_in_process(
            "--db", str(damaged), *_fill(args, names), home=store.home, cwd=store.project
        )
        assert "Traceback" not in result.stderr, (args, result.stderr)
        assert result.returncode in (0, 1, 3), (args, result.stderr)
        if result.returncode:
            assert len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)
            assert result.stderr.startswith("memlode: error: "), (args, result.stderr)
    assert rows(store.db)  # the original is intact


ENCODINGS = ["utf-8-sig", "utf-16", "utf-16-be", "utf-32"]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_transcripts_in_other_encodings_are_read(tmp_path: Path, encoding: str) -> None:
    home = tmp_path / "home"
    path = tmp_path / f"session-{encoding}.jsonl"
    path.write_bytes(transcript_lines("enc", 2, str(tmp_path)).encode(encoding))
    first = json.loads(
        ok(memlode("ingest", "transcript", str(path), "-n", "t", "--json", home=home)).stdout
    )
    assert first["turns"] == 2 and first["malformed_lines"] == 0, first
    # grown by appends in the same encoding (no second byte order mark): only the tail is read
    more = transcript_lines("enc", 3, str(tmp_path)).splitlines(keepends=True)[4:]
    codec = {"utf-16": "utf-16-le", "utf-32": "utf-32-le", "utf-8-sig": "utf-8"}.get(
        encoding, encoding
    )
    with path.open("ab") as fh:
        fh.write("".join(more).encode(codec))
    second = json.loads(
        ok(memlode("ingest", "transcript", str(path), "-n", "t", "--json", home=home)).stdout
    )
    assert second["turns"] == 3 and second["malformed_lines"] == 0, second
    hits = json.loads(ok(memlode("search", "retry café", "-n", "t", "--json", home=home)).stdout)
    assert hits and all("café" in h["content"] for h in hits), hits


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (bytes(range(256)) * 40, "binary"),
        (b"\x00\x01garbage without any newline" * 10, "not a Claude Code transcript"),
        (b"just some notes\nnot a transcript at all\n", "not a JSON record"),
        (b"\xff\xfe" + "plain prose in UTF-16\n".encode("utf-16-le"), "not a JSON record"),
    ],
)
def test_a_file_that_is_no_transcript_is_an_error(tmp_path: Path, data: bytes, reason: str) -> None:
    home = tmp_path / "home"
    path = tmp_path / "notes.jsonl"
    path.write_bytes(data)
    clean_error(memlode("ingest", "transcript", str(path), "-n", "t", home=home), reason)
    assert not (home / "memlode.db").exists() or not rows(home / "memlode.db")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    ok(memlode("ingest", "transcript", str(empty), "-n", "t", home=home))
