"""Every command of the CLI fed hostile input: never a traceback, always a known exit code, and
an error is one line that starts ``memlode: error:``.

The command tree is walked from the real click group (``memlode --help`` lists the same), so a
command added later is fuzzed too. For each parameter, values hostile to its type replace a
benign base invocation one at a time: huge and negative integers, NaN and infinities, empty
text, text that is not UTF-8 (surrogate escapes, as Python hands undecodable argv bytes over),
JSON nested far past Python's recursion limit, JSON numbers with thousands of digits, paths that
are folders, missing, under a regular file, binary garbage or a full device, and ``*`` where a
write needs one namespace. These bulk runs call the console script's function in-process through
click's runner; the cases that depend on a real process (bytes on stdin, the exit status the
shell sees, the long-running ``mcp``, ``watch`` and ``hook`` commands) run as subprocesses.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlode.cli import cli as root_group
from memlode.cli import main

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

# ---- running the CLI -----------------------------------------------------------------------


@dataclass
class Result:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str


def run_in_process(args: list[str], *, env: dict[str, str], stdin: bytes = b"") -> Result:
    """``memlode ARGS`` through ``memlode.cli.main``; an escaping exception becomes the
    traceback the interpreter would print, so the checks see it."""
    runner = CliRunner()
    code = 0
    with runner.isolation(input=stdin, env=env) as (out, err, _):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
    return Result(
        list(args),
        code,
        out.getvalue().decode("utf-8", "replace"),
        err.getvalue().decode("utf-8", "replace"),
    )


def run_process(
    args: list[str | bytes], *, env: dict[str, str], cwd: Path, stdin: bytes = b""
) -> Result:
    """The real console entry point as a subprocess; arguments may be raw bytes."""
    proc = subprocess.run(
        [sys.executable.encode(), b"-m", b"memlode", *(os.fsencode(a) for a in args)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    return Result(
        [os.fsdecode(a) for a in args],
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


# Exit codes of the README: 0 ok, 1 error, 2 usage, 3 not found (130, aborted, only on a
# declined confirmation: the base invocations avoid it with --yes; a drawn line without --yes
# gets stdin's end as its answer, a decline).
KNOWN_CODES = {0, 1, 2, 3}
# Status commands whose exit code is their answer, with a report on stdout and nothing on
# stderr: doctor (1: problems found), resident status (3: none running).
VERDICTS = {("doctor",): 1, ("resident", "status"): 3}


def check(result: Result) -> None:
    shown = [a if len(a) <= 60 else a[:57] + "..." for a in result.args]
    tail = "\n".join(line[:300] for line in result.stderr.strip().splitlines()[-4:])
    where = f"memlode {shown!r} exited {result.returncode}:\n{tail}"
    assert "Traceback" not in result.stderr, where
    assert "MemoryError" not in result.stderr, where  # an input read without end
    declined = result.returncode == 130 and result.stderr.strip() == "memlode: aborted"
    assert result.returncode in KNOWN_CODES or declined, where  # a drawn line may lack --yes
    verdict = next((c for p, c in VERDICTS.items() if result.args[: len(p)] == list(p)), None)
    if result.returncode == verdict and not result.stderr.strip():
        assert result.stdout.strip(), where  # a status command's answer, with its report
        return
    if result.returncode in (1, 3):
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, where
        assert lines[0].startswith("memlode: error: "), where
    elif result.returncode == 2:
        assert "Error:" in result.stderr or "memlode: error: " in result.stderr, where


# ---- hostile values ------------------------------------------------------------------------

DEEP = 50_000  # 100 KB of brackets: under Linux's 128 KiB limit on one argument
DEEP_ARRAY = "[" * DEEP + "]" * DEEP
DEEP_OBJECT = '{"a":' * 10_000 + "1" + "}" * 10_000  # 60 KB, ten times the recursion limit
NOT_UTF8 = "caf\udce9 \udcff\udcfe"  # the bytes b"caf\xe9 \xff\xfe" as argv hands them over
HUGE_INT = "1" + "0" * 20  # 10^20: past SQLite's 64-bit integers
HUGE_DIGITS = "9" * 5000  # past Python's int/str conversion limit (4300 digits)

INTEGERS = [HUGE_INT, "-" + HUGE_INT, "-1", "0", "9223372036854775808", "nan"]
FLOATS = ["nan", "inf", "-inf", "1e400", "-1", HUGE_DIGITS]
TEXTS = ["", "   ", "*", NOT_UTF8, "a\x00b", "x" * 200_000]
JSON_TEXTS = [
    DEEP_ARRAY,
    DEEP_OBJECT,
    '{"n": NaN}',
    '{"n": 1e999}',
    '{"n": ' + HUGE_DIGITS + "}",
    '["' + NOT_UTF8 + '"]',
    "[1, true, null]",
    '{"a": [' + ",".join(["1"] * 10) + "]",
]
JSON_PARAMS = {"metadata", "tags", "properties"}


@dataclass
class Fixture:
    home: Path
    project: Path
    env: dict[str, str]
    paths: dict[str, str]
    ids: dict[str, str]


def _transcript(path: Path, cwd: Path) -> None:
    lines = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": "fuzz-session",
            "cwd": str(cwd),
            "timestamp": "2026-03-02T09:00:00.000Z",
            "message": {"role": "user", "content": "How do we retry SQLITE_BUSY?"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": "fuzz-session",
            "cwd": str(cwd),
            "timestamp": "2026-03-02T09:00:07.000Z",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "BEGIN IMMEDIATE with jittered retries."}],
            },
        },
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _full_device(where: Path) -> str:
    """A full device of our own (``mknod c 1 7``), so that a regression that renamed over it
    could never replace the machine's /dev/full."""
    device = where / "full"
    try:
        os.mknod(device, 0o666 | 0o020000, os.makedev(1, 7))
    except OSError:
        pytest.skip("cannot create a full device (mknod c 1 7) here")
    return str(device)


@pytest.fixture
def fx(tmp_path: Path, memlode_home: Path) -> Fixture:
    project = tmp_path / "proj"
    (project / "docs").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    (project / "app.py").write_text("def main():\n    return helper()\n\ndef helper():\n    pass\n")
    (project / "docs" / "guide.md").write_text("# Guide\n\nRetry SQLITE_BUSY with jitter.\n")
    (project / "MEMORY.md").write_text("# Memory\n\n- seeded memory file\n")
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    env = {
        "MEMLODE_HOME": str(memlode_home),
        "MEMLODE_EMBED_PROVIDER": "hash",
        "HOME": str(user_home),
        "MEMLODE_NAMESPACE": "",
    }
    del env["MEMLODE_NAMESPACE"]  # the namespace comes from the project folder
    files = tmp_path / "files"
    files.mkdir()
    garbage = files / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 64)
    blocker = files / "a-file"
    blocker.write_text("in the way\n")
    old_output = files / "old-output.jsonl"
    old_output.write_text("an older export\n")
    transcript = files / "session.jsonl"
    _transcript(transcript, project)
    paths = {
        "project": str(project),
        "docs": str(project / "docs"),
        "transcript": str(transcript),
        "folder": str(files),
        "missing": str(files / "missing" / "nothing.jsonl"),
        "garbage": str(garbage),
        "old_output": str(old_output),
        "under_file": str(blocker / "child.jsonl"),
        "full": _full_device(files),
        "not_utf8": str(files) + "/caf\udce9.jsonl",
    }
    old = Path.cwd()
    os.chdir(project)
    try:
        ids: dict[str, str] = {}
        for key, text in [
            ("id", "SQLite busy_timeout comes before journal_mode=WAL"),
            ("id2", "FTS5 external content tables are kept in sync by triggers"),
        ]:
            result = run_in_process(["store", text, "--tags", "seed"], env=env)
            assert result.returncode == 0, result.stderr
            ids[key] = result.stdout.strip()
        witness = run_in_process(
            ["store", "the witness memory, never touched", "-n", "witness"], env=env
        )
        assert witness.returncode == 0, witness.stderr
        ids["witness"] = witness.stdout.strip()
        export = files / "good.jsonl"
        assert run_in_process(["export", str(export)], env=env).returncode == 0
        paths["export"] = str(export)
        assert run_in_process(["index", str(project)], env=env).returncode == 0
    finally:
        os.chdir(old)
    return Fixture(memlode_home, project, env, paths, ids)


# ---- the command tree ----------------------------------------------------------------------

# Long-running or hook commands: servers (MCP, the dashboard), a watcher, and the hooks (fed
# payloads, always exit 0). They are driven as subprocesses in test_process_only_commands
# instead.
NOT_IN_PROCESS = {("mcp",), ("viz",), ("watch",), ("hook",)}

# A benign invocation of each command; the fuzz replaces one parameter at a time. Commands
# not named here (added later) run with their required arguments set to a plain word.
BASE: dict[tuple[str, ...], list[str]] = {
    ("store",): ["a benign memory"],
    ("get",): ["{id}"],
    ("update",): ["{id}", "--importance", "0.6"],
    ("delete",): ["00000000-0000-0000-0000-000000000000"],
    ("associate",): ["{id}", "{id2}"],
    ("neighbors",): ["{id}"],
    ("search",): ["busy"],
    ("namespaces",): ["--yes"],
    ("reembed",): ["--yes"],
    ("import",): ["{export}"],
    ("ingest", "transcript"): ["{transcript}"],
    ("ingest", "transcripts"): ["--project", "{project}", "--claude-dir", "{folder}"],
    ("index",): ["{project}"],
    ("symbols",): ["main"],
    ("impact",): ["main"],
    ("docs", "add"): ["{docs}"],
    ("docs", "remove"): ["{docs}"],
    ("memory", "get"): ["MEMORY.md"],
    ("memory", "search"): ["guide"],
    ("memory", "store"): ["notes", "a benign note"],
    ("config", "set-weights"): ["bm25=0.2"],
    ("eval", "locomo"): ["{missing}"],
    ("init",): ["--scope", "project"],
    ("disable",): ["--scope", "project"],
}


def leaf_commands() -> list[tuple[tuple[str, ...], click.Command]]:
    ctx = click.Context(root_group)
    found: list[tuple[tuple[str, ...], click.Command]] = []

    def walk(group: click.Group, prefix: tuple[str, ...]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, name
            path = (*prefix, name)
            if isinstance(command, click.Group):
                walk(command, path)
            else:
                found.append((path, command))

    walk(root_group, ())
    return found


# Commands whose path is written: they get a file of their own to replace rather than the
# garbage file the readers are fed.
WRITERS = {("export",)}


def _hostile_values(path: tuple[str, ...], param: click.Parameter, fx: Fixture) -> list[str]:
    kind = param.type
    if isinstance(param, click.Option) and (param.is_flag or param.count):
        return []
    if isinstance(kind, click.Choice):
        return ["", "no-such-choice"]
    if isinstance(kind, click.types.IntParamType):
        return INTEGERS
    if isinstance(kind, click.types.FloatParamType):
        return FLOATS
    if isinstance(kind, click.Path | click.File):
        keys = ["folder", "missing", "garbage", "under_file", "full", "not_utf8"]
        if path in WRITERS:
            keys[2] = "old_output"
        return ["", *(fx.paths[k] for k in keys)]
    values = list(TEXTS)
    if param.name in JSON_PARAMS:
        values += JSON_TEXTS
    if getattr(kind, "name", "") not in ("text", "string"):  # a type of our own: its text
        values += INTEGERS[:2]
    return values


def _fill(args: list[str], fx: Fixture) -> list[str]:
    names = {**fx.paths, **fx.ids}
    return [names.get(a[1:-1], a) if a.startswith("{") and a.endswith("}") else a for a in args]


def _base(path: tuple[str, ...], command: click.Command, fx: Fixture) -> list[str]:
    if path in BASE:
        return _fill(BASE[path], fx)
    needed = [p for p in command.params if isinstance(p, click.Argument) and p.required]
    return ["benign" for _ in needed]


def cases(fx: Fixture) -> Iterator[list[str]]:
    for path, command in leaf_commands():
        if path in NOT_IN_PROCESS:
            continue
        base = _base(path, command, fx)
        arguments = [p for p in command.params if isinstance(p, click.Argument)]
        for param in command.params:
            for value in _hostile_values(path, param, fx):
                if isinstance(param, click.Argument):
                    position = arguments.index(param)
                    args = list(base)
                    if position < len(args):
                        args[position] = value
                    else:
                        args.append(value)
                    # "--" keeps a value that starts with "-" an argument, as a user would
                    yield [*path, "--", *args] if value.startswith("-") else [*path, *args]
                else:
                    yield [*path, *base, param.opts[-1], value]


@contextlib.contextmanager
def inside(folder: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


@contextlib.contextmanager
def memory_cap(extra: int = 2 << 30) -> Iterator[None]:
    """Cap this process's address space for the fuzz: a command that read a device without end
    (/dev/zero, a full device) fails with MemoryError, which ``check`` reports, instead of
    taking the machine's memory."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        yield
        return
    cap = pages * os.sysconf("SC_PAGE_SIZE") + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _stored(home: Path, memory_id: str) -> tuple[object, ...]:
    conn = sqlite3.connect(home / "memlode.db")
    try:
        row = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    assert integrity == "ok"
    return tuple(row)


# ---- the tests -----------------------------------------------------------------------------


def test_every_command_is_fuzzed(fx: Fixture) -> None:
    """The tree the fuzz walks is the one ``memlode --help`` shows, subcommands included."""
    names = {path[0] for path, _ in leaf_commands()}
    listed = run_in_process(["--help"], env=fx.env)
    for name in names:
        assert f"  {name}" in listed.stdout, name
    assert {"store", "list", "export", "import", "index", "ingest", "docs"} <= names


def test_hostile_values_for_every_parameter(fx: Fixture) -> None:
    before = _stored(fx.home, fx.ids["witness"])
    failures: list[str] = []
    runs = 0
    with inside(fx.project), memory_cap():
        for args in cases(fx):
            runs += 1
            result = run_in_process(args, env=fx.env)
            try:
                check(result)
            except AssertionError as exc:
                failures.append(str(exc))
    assert not failures, f"{len(failures)} of {runs} runs failed:\n\n" + "\n\n".join(failures)
    assert runs > 300
    assert _stored(fx.home, fx.ids["witness"]) == before
    assert Path(fx.paths["full"]).is_char_device()  # written to, never renamed over
    left = [p.name for p in Path(fx.paths["folder"]).iterdir()]
    assert not [name for name in left if name.endswith(".tmp")], left  # no partial export


# ---- random command lines ------------------------------------------------------------------

_IN_PROCESS = [(p, c) for p, c in leaf_commands() if p not in NOT_IN_PROCESS]
_TOKENS = [
    *INTEGERS,
    *FLOATS[:4],
    *TEXTS[:5],
    DEEP_ARRAY,
    '{"a": 1}',
    "[]",
    "-",
    "--",
    "--json",
    "-n",
    "{id}",
    "{transcript}",
    "{garbage}",
    "{folder}",
    "{full}",
]


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], list[str]]:
    path, command = draw(st.sampled_from(_IN_PROCESS))
    options = [opt for p in command.params for opt in p.opts if opt.startswith("-")]
    token = st.sampled_from(_TOKENS + options) if options else st.sampled_from(_TOKENS)
    return path, draw(st.lists(token, max_size=5))


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same command lines on every run: a failure reproduces
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(line=command_lines())
def test_random_command_lines(fx: Fixture, line: tuple[tuple[str, ...], list[str]]) -> None:
    path, tokens = line
    args = [*path, *_fill(tokens, fx)]
    with inside(fx.project), memory_cap():
        check(run_in_process(args, env=fx.env))


# ---- through the real process: bytes on stdin and in argv, exit statuses -------------------


def _capped() -> None:  # in the child: a read without end fails instead of eating the machine
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run_capped(
    args: list[str | bytes], *, env: dict[str, str], cwd: Path, stdin: bytes = b""
) -> Result:
    proc = subprocess.run(
        [sys.executable.encode(), b"-m", b"memlode", *(os.fsencode(a) for a in args)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, **env},
        timeout=120,
        preexec_fn=_capped,
    )
    return Result(
        [os.fsdecode(a) for a in args],
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


BAD_BYTES = b"caf\xe9 \xff\xfe na\xefve"  # Latin-1, not UTF-8

# (arguments, stdin, exit code, words the one error line holds)
PROCESS_CASES: list[tuple[list[str | bytes], bytes, int, tuple[str, ...]]] = [
    (["store", "-"], BAD_BYTES, 1, ("not UTF-8", "0xe9")),
    (["store", "-", "--json"], b"\xef\xbb\xbfa memory after a byte order mark", 0, ()),
    (["import", "-"], BAD_BYTES, 1, ("not UTF-8",)),
    (["memory", "store", "notes", "-"], BAD_BYTES, 1, ("not UTF-8",)),
    ([b"store", BAD_BYTES], b"", 1, ("not valid UTF-8", "0xe9")),
    ([b"list", b"-n", BAD_BYTES], b"", 1, ("UTF-8",)),
    ([b"get", BAD_BYTES], b"", 1, ("UTF-8",)),
    ([b"search", BAD_BYTES], b"", 1, ("UTF-8",)),
    ([b"ingest", b"transcript", b"/nonexistent/" + BAD_BYTES], b"", 3, ("no transcript",)),
    (["list", "--limit", HUGE_INT], b"", 1, ("limit must be at most",)),
    (["list", "--offset", "-" + HUGE_INT], b"", 1, ("offset must be at least 0",)),
    (["sessions", "--limit", HUGE_INT], b"", 1, ("limit",)),
    (["store", "x", "-n", "*"], b"", 1, ("'*'",)),
    (["store", "x", "--metadata", DEEP_OBJECT], b"", 1, ("nests deeper",)),
    (["store", "x", "--tags", DEEP_ARRAY], b"", 1, ("nests deeper",)),
    (["update", "{id}", "--metadata", '{"n": ' + HUGE_DIGITS + "}"], b"", 1, ("64 bits",)),
    (["store", "x", "--importance", "nan"], b"", 1, ("importance",)),
    (["import", "{full}"], b"", 1, ("not a regular file",)),
    (["eval", "replay", "{full}"], b"", 1, ("not a regular file",)),
    (["eval", "updates", "{full}"], b"", 1, ("not a regular file",)),
    (["ingest", "transcript", "{garbage}"], b"", 1, ("not a Claude Code transcript",)),
    (["no-such-command"], b"", 2, ()),
    (["mcp", "--port", HUGE_INT], b"", 2, ()),
    (["viz", "--port", HUGE_INT], b"", 2, ()),
    (["viz", "--port", "-1"], b"", 2, ()),
    (["watch", "--debounce", "-1"], b"", 2, ()),
]


@pytest.mark.parametrize(("args", "stdin", "code", "words"), PROCESS_CASES)
def test_hostile_input_through_the_process(
    fx: Fixture, args: list[str | bytes], stdin: bytes, code: int, words: tuple[str, ...]
) -> None:
    filled: list[str | bytes] = [_fill([a], fx)[0] if isinstance(a, str) else a for a in args]
    result = run_capped(filled, env=fx.env, cwd=fx.project, stdin=stdin)
    check(result)
    assert result.returncode == code, (result.args, result.stderr)
    for word in words:
        assert word in result.stderr, (word, result.stderr)


def test_non_utf8_stdin_in_the_c_locale(fx: Fixture) -> None:
    """In the C locale Python hands stdin's bad bytes over as surrogate escapes; the same
    clear error, and nothing stored."""
    env = {**fx.env, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}
    before = run_capped(["list", "--json", "--limit", "1000"], env=fx.env, cwd=fx.project)
    result = run_capped(["store", "-"], env=env, cwd=fx.project, stdin=BAD_BYTES)
    check(result)
    assert result.returncode == 1 and "not UTF-8" in result.stderr
    after = run_capped(["list", "--json", "--limit", "1000"], env=fx.env, cwd=fx.project)
    assert after.stdout == before.stdout


@pytest.mark.parametrize(
    "stdin",
    [BAD_BYTES, b"{" * 100_000, b'{"hook_event_name": "PostToolUse", "tool_input": 5}', b""],
)
def test_hooks_stay_silent_on_garbage(fx: Fixture, stdin: bytes) -> None:
    for event in ("PostToolUse", "UserPromptSubmit"):
        result = run_capped(["hook", event], env=fx.env, cwd=fx.project, stdin=stdin)
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        assert result.stdout.strip() in ("", "{}"), result.stdout
