"""The patterns cycle through ``memlode patterns`` on a store the real hooks wrote: a hotspot,
a repeated question and an error → fix pair found with their EXEMPLIFIES evidence, ``--dry-run``
writing nothing, a re-run writing nothing, grown evidence rewriting a pattern in place, the
SessionStart section shown only for strong patterns, bad input, and a killed run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.conftest import killed_runs
from tests.conftest import run_hook_ok as _hook
from tests.conftest import run_memlode as _memlode
from tests.engine.hooked_store import finished_copy

from memlode.config import Settings
from memlode.engine import Engine
from memlode.storage import memories
from memlode.storage.values import NewMemory


def _base(project: Path, session: str, event: str) -> dict[str, Any]:
    return {"session_id": session, "cwd": str(project), "hook_event_name": event}


def _read(project: Path, session: str) -> None:
    path = str(project / "src" / "billing.py")
    payload = {
        **_base(project, session, "PostToolUse"),
        "tool_name": "Read",
        "tool_input": {"file_path": path},
        "tool_response": {
            "type": "text",
            "file": {
                "filePath": path,
                "content": "RETRY_LIMIT = 3\n\ndef charge(order):\n    return order.total\n",
                "numLines": 4,
                "startLine": 1,
                "totalLines": 4,
            },
        },
    }
    _hook("post-tool", payload, project)


def _ask(project: Path, session: str, prompt: str) -> None:
    _hook("prompt", {**_base(project, session, "UserPromptSubmit"), "prompt": prompt}, project)


def _run(project: Path, session: str, stdout: str) -> None:
    payload = {
        **_base(project, session, "PostToolUse"),
        "tool_name": "Bash",
        "tool_input": {"command": "pytest tests/test_billing.py -q"},
        "tool_response": {"stdout": stdout, "stderr": ""},
    }
    _hook("post-tool", payload, project)


def _error_then_fix(project: Path, session: str) -> None:
    """pytest fails on an ImportError, billing.py is edited, pytest passes."""
    failure = {
        **_base(project, session, "PostToolUseFailure"),
        "tool_name": "Bash",
        "tool_input": {"command": "pytest tests/test_billing.py -q"},
        "error": "Exit code 1\nE   ImportError: cannot import name 'refund' from 'billing'\n"
        "1 error in 0.12s",
        "is_interrupt": False,
    }
    _hook("post-tool-failure", failure, project)
    path = str(project / "src" / "billing.py")
    edit = {
        **_base(project, session, "PostToolUse"),
        "tool_name": "Edit",
        "tool_input": {"file_path": path, "old_string": "x", "new_string": "y"},
        "tool_response": {
            "filePath": path,
            "oldString": "def charge(order):",
            "newString": "def refund(order):\n    return -order.total\n\ndef charge(order):",
            "structuredPatch": [
                {
                    "oldStart": 3,
                    "oldLines": 1,
                    "newStart": 3,
                    "newLines": 4,
                    "lines": [
                        "+def refund(order):",
                        "+    return -order.total",
                        "+",
                        " def charge(order):",
                    ],
                }
            ],
        },
    }
    _hook("post-tool", edit, project)
    _run(project, session, "4 passed in 0.2s")


def _session(project: Path, session: str, *, ask: str = "", fix: bool = False) -> None:
    _hook(
        "session-start", {**_base(project, session, "SessionStart"), "source": "startup"}, project
    )
    _read(project, session)  # the same Read each time: stored once, met again (session_seen)
    if ask:
        _ask(project, session, ask)
    if fix:
        _error_then_fix(project, session)


def _counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        tables = ("memories", "graph_edges", "consolidation_clusters", "consolidation_log")
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


def _evidence(db: Path, memory_id: str) -> list[tuple[str, str]]:
    """(content's first line, tags) of what EXEMPLIFIES the pattern ``memory_id``."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT substr(m.content, 1, 60), m.tags FROM graph_edges e"
            " JOIN memories m ON m.id = e.source_id"
            " WHERE e.target_id = ? AND e.relationship = 'EXEMPLIFIES' ORDER BY m.rowid",
            (memory_id,),
        ).fetchall()


def _detect(cwd: Path, *extra: str) -> dict[str, Any]:
    done = _memlode("patterns", "--detect", "--json", *extra, cwd=cwd)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert isinstance(out, dict)
    return out


def test_detects_hotspot_question_and_error_fix_with_evidence(workdir: Path) -> None:
    (workdir / "src").mkdir()
    _session(workdir, "s1", ask="How do we configure the billing retry limit?")
    _session(workdir, "s2", fix=True)
    _session(workdir, "s3", ask="how do I configure the billing retry limits again")
    db = Settings.load({}).database
    before = _counts(db)

    dry = _detect(workdir, "--dry-run")
    assert _counts(db) == before  # no pattern, edge, record or log row
    assert sorted(c["kind"] for c in dry["changes"]) == ["error-fix", "hotspot", "question"]
    assert all(c["state"] == "new" and c["memory_id"] is None for c in dry["changes"])

    found = {p["kind"]: p for p in _detect(workdir)["patterns"]}
    assert set(found) == {"error-fix", "hotspot", "question"}
    hotspot, question, fix = found["hotspot"], found["question"], found["error-fix"]
    assert hotspot["text"].startswith("src/billing.py is a hotspot: worked on in 3 of 3 sessions")
    assert hotspot["strength"] == 0.6 and hotspot["memory_type"] == "pattern"
    # the Read (stored once, met again in two sessions) and the edit
    assert [c.split(" ")[0] for c, _t in _evidence(db, hotspot["id"])] == ["Read", "Edited"]
    assert question["text"] == (
        f"The same question was asked in 2 sessions ({hotspot['updated_at'][:10]}):"
        ' "How do we configure the billing retry limit?".'
    )
    asked = _evidence(db, question["id"])
    assert [c for c, _t in asked] == [
        "How do we configure the billing retry limit?",
        "how do I configure the billing retry limits again",
    ]
    assert fix["memory_type"] == "insight" and fix["strength"] == 0.5
    assert fix["text"].startswith(
        "`pytest tests/test_billing.py -q` failed with"
        " \"E ImportError: cannot import name 'refund' from 'billing'\"; fixed by editing"
        " src/billing.py"
    )
    shown = [c.split("\n")[0] for c, _t in _evidence(db, fix["id"])]
    assert shown[0].startswith("Failed: $ pytest") and shown[1].startswith("Edited src/billing.py")
    assert shown[2].startswith("$ pytest")
    with sqlite3.connect(db) as conn:
        tags = conn.execute("SELECT tags FROM memories WHERE id = ?", (fix["id"],)).fetchone()[0]
    assert json.loads(tags) == ["pattern", "pattern:error-fix"]

    after = _counts(db)
    again = _detect(workdir)
    assert again["runs"][0]["changes"] == [] and again["runs"][0]["counts"]["unchanged"] == 3
    assert {k: v for k, v in _counts(db).items() if k != "consolidation_log"} == {
        k: v for k, v in after.items() if k != "consolidation_log"
    }

    _session(workdir, "s4")  # billing.py read in a fourth session: the hotspot grows
    grown = _detect(workdir)
    [change] = grown["runs"][0]["changes"]
    assert (change["kind"], change["state"], change["memory_id"]) == (
        "hotspot",
        "changed",
        hotspot["id"],
    )
    listed = json.loads(_memlode("patterns", "--kind", "hotspot", "--json", cwd=workdir).stdout)
    [rewritten] = listed["patterns"]
    assert rewritten["id"] == hotspot["id"] and "4 of 4 sessions" in rewritten["text"]
    assert rewritten["strength"] == 0.8


def _session_context(project: Path) -> str:
    out = _hook(
        "session-start", {**_base(project, "s-new", "SessionStart"), "source": "startup"}, project
    )
    data = json.loads(out) if out else {}
    return str(data.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_session_start_shows_strong_patterns_only(workdir: Path) -> None:
    (workdir / "src").mkdir()
    _session(workdir, "s1")
    _session(workdir, "s2", fix=True)
    weak = _detect(workdir)["patterns"]
    assert [p["kind"] for p in weak] == ["error-fix"] and weak[0]["strength"] < 0.6
    text = _session_context(workdir)
    assert "## memlode" in text and "### Patterns" not in text
    assert "failed with" not in text  # nor among the decisions and insights

    ask = "How do we refund a cancelled order in billing?"
    for session in ("s3", "s4", "s5"):
        _session(workdir, session, ask=ask)
    strong = _detect(workdir, "--min-strength", "0.6")["patterns"]
    assert sorted(p["kind"] for p in strong) == ["hotspot", "question"]
    text = _session_context(workdir)
    section = text.split("### Patterns\n", 1)[1].split("###", 1)[0].strip().splitlines()
    question = next(p for p in strong if p["kind"] == "question")
    # the hot file is in the briefing's own File hotspots; Patterns holds the rest
    assert section == [f"- {question['text']}"]


def test_bad_input_is_one_line_and_nonzero(workdir: Path) -> None:
    for args, message in (
        (("--kind", "hot"), "unknown pattern kind 'hot'"),
        (("--min-strength", "1.5"), "the minimum strength must be between 0 and 1"),
        (("--dry-run",), "--dry-run needs --detect"),
    ):
        bad = _memlode("patterns", *args, cwd=workdir)
        assert bad.returncode == 1
        [line] = bad.stderr.strip().splitlines()
        assert line.startswith("memlode: error: ") and message in line
    assert _memlode("patterns", "--limit", "0", cwd=workdir).returncode != 0


def _fill(engine: Engine, sessions: int) -> None:
    """``sessions`` sessions in the hooks' shapes, each with an error → fix pair on a command of
    its own and reads of a few shared files."""
    with engine.db.write() as conn:
        for s in range(sessions):
            rows = []
            command = f"pytest tests/test_{s}.py"
            rows.append(
                NewMemory(
                    f"Failed: $ {command}\nExit code 1\nE   AssertionError: case {s}",
                    tags=["failure", "command", "tool:Bash"],
                    metadata={"command": command, "tool": "Bash"},
                )
            )
            path = f"/src/app/module_{s}.py"
            rows.append(
                NewMemory(
                    f"Edited app/module_{s}.py: +1 -1 lines",
                    tags=["edit", "tool:Edit"],
                    metadata={"file": path, "tool": "Edit"},
                )
            )
            rows.append(
                NewMemory(
                    f"$ {command}\n[stdout]\n3 passed",
                    tags=["command", "tool:Bash"],
                    metadata={"command": command, "tool": "Bash"},
                )
            )
            for f in range(3):
                rows.append(
                    NewMemory(
                        f"Read app/shared_{(s + f) % 40}.py lines 1-40 (session {s})",
                        tags=["read", "tool:Read"],
                        metadata={"file": f"/src/app/shared_{(s + f) % 40}.py", "tool": "Read"},
                    )
                )
            for new in rows:
                new.namespace, new.source, new.session_id = engine.namespace, "hook", f"s{s}"
                memories.insert(conn, new)


def _state(db: Path) -> tuple[Any, ...]:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return (
            conn.execute(
                "SELECT count(*) FROM consolidation_clusters WHERE kind LIKE 'pattern:%'"
            ).fetchone(),
            conn.execute(
                "SELECT count(*) FROM graph_edges WHERE relationship = 'EXEMPLIFIES'"
            ).fetchone(),
            sorted(conn.execute("SELECT content FROM memories WHERE source = 'consolidation'")),
            # every record names a pattern memory that exists: a batch is whole or absent
            conn.execute(
                "SELECT count(*) FROM consolidation_clusters c LEFT JOIN memories m"
                " ON m.id = c.summary_id WHERE c.kind LIKE 'pattern:%' AND m.id IS NULL"
            ).fetchone(),
        )


def test_a_killed_run_leaves_a_consistent_store_that_the_next_run_completes(
    workdir: Path, tmp_path: Path
) -> None:
    engine = Engine(Settings.load({}))
    try:
        _fill(engine, 600)
    finally:
        engine.close()
    db = Settings.load({}).database
    args = ["consolidate", "--cycle", "patterns"]
    reference = _state(finished_copy(db, tmp_path / "clean.db", args, cwd=workdir))
    # 600 error -> fix pairs, the 10 strongest of 40 hotspots, the habit of running pytest
    assert reference[0][0] == 611 and reference[3][0] == 0
    for _delay in killed_runs(args, cwd=workdir, delays=(0.3, 0.6, 0.9, 1.2)):
        assert _state(db)[3][0] == 0  # consistent, whatever moment the kill came at
    finished = _memlode("consolidate", "--cycle", "patterns", "--json", cwd=workdir)
    assert finished.returncode == 0, finished.stderr
    assert _state(db) == reference
    again = json.loads(_memlode("consolidate", "--cycle", "patterns", "--json", cwd=workdir).stdout)
    assert again[0]["changes"] == []


def _obs(n: int, content: str, tags: list[str], session: str = "s1", **meta: str) -> Any:
    from memlode.engine.consolidation.patterns_detect import Observation

    return Observation(f"m{n}", content, tags, dict(meta), session, f"2026-02-1{n % 10}T10:00:00Z")


def test_error_fix_pairs_from_the_order_of_work() -> None:
    from memlode.engine.consolidation.patterns import detect

    failed, ok = ["failure", "command"], ["command"]
    work = [
        # the command itself changed: the fix is the new command
        _obs(1, "Failed: $ git push\nExit code 128\nfatal: no upstream branch", failed,
             command="git push 2>&1"),
        _obs(2, "$ git push --set-upstream origin fum\n[stdout]\nok", ok,
             command="git push --set-upstream origin fum 2>&1"),
        # a narrower run passing fixes nothing
        _obs(12, "Failed: $ mix test\nExit code 2\n12 failures", failed, command="mix test"),
        _obs(13, "$ mix test test/a_test.exs\n[stdout]\n0 failures", ok,
             command="mix test test/a_test.exs"),
        # passed on a plain re-run: nothing was fixed, no pattern
        _obs(3, "Failed: $ make lint\nExit code 2\nerror: flaky", failed, command="make lint"),
        _obs(4, "$ make lint\n[stdout]\nok", ok, command="make lint"),
        # a cancelled parallel call is no error
        _obs(5, "Failed: $ npx vitest run\n<tool_use_error>Sibling tool call errored", failed,
             command="npx vitest run"),
        _obs(6, "Edited app.js: +1 -0", ["edit"], file="/p/app.js"),
        _obs(7, "$ npx vitest run\n[stdout]\n3 passed", ok, command="npx vitest run"),
        # looking around fixes nothing; running the formatter does
        _obs(8, "Failed: $ git commit -m x\nPre-commit validation failed:\n[FORMAT] not formatted",
             failed, command="git commit -m x"),
        _obs(9, "$ git status\n[stdout]\nmodified: a.ex", ok, command="git status"),
        _obs(10, "$ mix format", ok, command="mix format"),
        _obs(11, "$ git commit -m x\n[stdout]\n1 file changed", ok, command="git commit -m x"),
    ]  # fmt: skip
    found = [p for p in detect(work, []) if p.kind == "error-fix"]
    assert [p.text for p in found] == [
        '`git commit -m x` failed with "Pre-commit validation failed: [FORMAT] not formatted";'
        " fixed by running `mix format` (2026-02-11).",
        '`git push 2>&1` failed with "fatal: no upstream branch"; fixed by running'
        " `git push --set-upstream origin fum 2>&1` instead (2026-02-12).",
    ]
    assert found[0].evidence == ["m8", "m10", "m11"] and found[1].evidence == ["m1", "m2"]


def test_hotspots_are_the_few_strongest_files_of_the_project() -> None:
    from memlode.engine.consolidation.patterns_detect import MAX_HOTSPOTS, hotspots

    work = []
    for n in range(MAX_HOTSPOTS + 5):
        for s in range(3 + n % 4):  # files touched in 3 to 6 sessions
            work.append(
                _obs(
                    n,
                    f"Read src/mod_{n}.py lines 1-40",
                    ["read"],
                    f"s{s}",
                    file=f"/p/src/mod_{n}.py",
                )
            )
    for s in range(6):  # a plan outside the project, read in every session
        work.append(
            _obs(
                99,
                "Read /home/u/.claude/plans/plan.md",
                ["read"],
                f"s{s}",
                file="/home/u/.claude/plans/plan.md",
            )
        )
    found = hotspots(work, 6)
    assert len(found) == MAX_HOTSPOTS
    assert all(p.key.startswith("/p/src/") for p in found)
    kept = {p.details["sessions"] for p in found}
    assert kept == {6, 5, 4}  # the 7 files of 5 or 6 sessions, 3 of the 4 of 4; none of 3
    assert sum(p.details["sessions"] >= 5 for p in found) == 7
