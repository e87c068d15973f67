"""The README's "When a decision changes" block, typed into bash as printed (memlode on PATH, in
a project folder), the command's bad input (one line, non-zero exit, no traceback), and the
update evaluation's slice: the README's `memlode eval updates` command, run from the checkout
as printed, must meet the targets (current first >= 95% in injection and search, false
supersessions <= 2%)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EVAL_COMMAND = "memlode eval updates bench/update_cases.json --limit 12 --json"
HELDOUT_COMMAND = (
    "memlode eval updates bench/update_cases_heldout3.json bench/update_controls_heldout.json"
    " bench/update_silent_heldout.json"
)


def _readme_block() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n### When a decision changes\n", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)[0]


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")])}
    return subprocess.run(
        ["bash", "-ec", script], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


def test_the_readme_block_runs_as_printed(workdir: Path) -> None:
    block = _readme_block()
    done = _bash(block + 'echo "ids $old $new"\n', workdir)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    old, new = lines[-1].split()[1:]
    # --chain: linked when stored, oldest first with its end date; then the current one
    assert lines[0].startswith(old) and " until " in lines[0] and "(current)" in lines[2]
    # search: the current one first, the replaced one after it, saying what replaced it
    assert lines[4].startswith(new) and "replaced" not in lines[4]
    assert lines[6].startswith(old) and lines[6].endswith(f" by {new})")
    # list, newest first: the replaced one marked the same way
    assert lines[8].startswith(new) and "replaced" not in lines[8]
    assert lines[10].startswith(old) and lines[10].endswith(f" by {new})")
    assert lines[12] == f"{new} no longer replaces {old}"
    linked = json.loads("\n".join(lines[13:-1]))
    assert linked["old"] == old and linked["new"] == new and linked["created"] is True


def test_bad_ids_are_one_line_errors(workdir: Path, cli) -> None:
    a = cli("store", "Tickets are tracked in Jira.", cwd=workdir).stdout.strip()
    b = cli("store", "Docs live in Notion.", cwd=workdir).stdout.strip()
    elsewhere = cli("store", "Other project note.", "-n", "other", cwd=workdir).stdout.strip()
    for args, expected in (
        (("supersede", "nope", b), "no memory with id 'nope'"),
        (("supersede", a, a), "cannot replace itself"),
        (("supersede", a, elsewhere), "namespace"),
        (("supersede", "--undo", a, b), "nothing to undo"),
        (("supersede", a), "give two ids"),
    ):
        result = cli(*args, cwd=workdir)
        assert result.returncode != 0, args
        assert expected in result.stderr and len(result.stderr.strip().splitlines()) <= 3, args
        assert "Traceback" not in result.stderr


def test_the_update_evaluation_slice_meets_its_targets() -> None:
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert f"`{EVAL_COMMAND}`" in readme
    done = _bash(EVAL_COMMAND, REPO)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["cases"] == 12
    assert report["search_current_first"] >= 0.95
    assert report["injection_current_first"] >= 0.95
    assert report["injection_old_as_current"] == 0
    assert report["false_supersession_rate"] <= 0.02
    assert report["linked"] >= 0.95
    # every link is counted under the rule that made it
    by_rule = report["links_by_rule"]
    assert sum(n["links"] for n in by_rule.values()) == report["links_made"]
    assert sum(n["false"] for n in by_rule.values()) == report["false_supersessions"]


def test_the_held_out_sets_are_judged_together_as_printed() -> None:
    """The README's held-out command: 40 cases, 40 controls and 64 silent questions, each
    project's statements in one store; its figures are in bench/RESULTS.md (no target here:
    the held-out sets are far from it)."""
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert f"`{HELDOUT_COMMAND}`" in readme
    done = _bash(HELDOUT_COMMAND, REPO)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "update cases: 40" in lines
    assert "controls (a later statement that replaces nothing): 40" in lines
    assert "silent questions (no statement answers them): 64" in lines
    assert any(line.startswith("false supersessions: ") for line in lines)
    assert any(line.startswith("  by rule: ") and "false)" in line for line in lines)


def test_bad_update_case_files_are_one_line_errors(tmp_path: Path, cli) -> None:
    for name, text, expected in (
        ("broken.json", "{not json", "cannot read update cases"),
        ("empty.json", '{"cases": []}', "holds no cases"),
        ("partial.json", '{"cases": [{"id": "x", "project": "p"}]}', "lacks old, new, question"),
        (
            "control.json",
            '{"controls": [{"id": "c", "project": "p", "earlier": "a", "question": "q?"}]}',
            "control 'c' of",
        ),
        ("silent.json", '{"silent": [{"id": "s", "project": "p"}]}', "lacks question"),
        ("listed.json", '{"silent": {"id": "s"}}', "holds no cases"),
    ):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = cli("eval", "updates", str(path), "--json")
        assert result.returncode != 0 and result.stdout == ""
        assert expected in result.stderr and len(result.stderr.strip().splitlines()) == 1
        assert "Traceback" not in result.stderr


def test_controls_and_silent_questions_are_judged_with_the_cases(tmp_path: Path, cli) -> None:
    """A control (a later statement that replaces nothing) and a silent question, given in a
    second file, are asked in the same project's store: the control's earlier statement comes
    first, the silent question gets no injection, and nothing links the control's pair."""
    cases = {
        "cases": [
            {
                "id": "cache",
                "project": "shop",
                "old": "We cache user sessions in Redis.",
                "new": "Sessions move to Memcached; Redis is dropped for sessions.",
                "question": "Which cache backend holds the sessions?",
            },
            {  # no change word: not linked, but offered to the assistant that stores it
                "id": "gateway",
                "project": "shop",
                "old": "Kong fronts every public API route of the shop.",
                "new": "Envoy fronts every public API route of the shop, with its rate limits.",
                "question": "What fronts the public API routes?",
            },
        ]
    }
    others = {
        "controls": [
            {
                "id": "tickets",
                "project": "shop",
                "earlier": "Bugs are tracked in Jira under the SHOP project.",
                "later": "Jira tickets now also carry a Sentry link when one exists.",
                "question": "Where do we file a bug we found?",
            }
        ],
        "silent": [
            {"id": "fonts", "project": "shop", "question": "Which web font does the logo use?"}
        ],
    }
    first, second = tmp_path / "cases.json", tmp_path / "others.json"
    first.write_text(json.dumps(cases), encoding="utf-8")
    second.write_text(json.dumps(others), encoding="utf-8")
    done = cli("eval", "updates", str(first), str(second), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["cases"], report["controls"], report["silent"]) == (2, 1, 1)
    assert report["linked"] == 0.5 and report["controls_linked"] == 0
    assert report["not_linked"] == ["gateway"] and report["linked_or_offered"] == 1.0
    assert report["controls_offered"] == 0  # "now also carry": one that adds offers nothing
    assert report["controls_search_earlier_first"] == 1.0
    assert report["silent_injected"] == 0.0
    roles = {r["id"]: r["role"] for r in report["per_case"]}
    assert roles == {
        "cache": "update",
        "gateway": "update",
        "tickets": "control",
        "fonts": "silent",
    }
    text = cli("eval", "updates", str(first), str(second)).stdout
    assert "  linked or offered when stored:  100.0%" in text
    assert "controls (a later statement that replaces nothing): 1" in text
    assert "silent questions (no statement answers them): 1" in text


def test_get_says_what_replaced_a_memory(workdir: Path, cli) -> None:
    old = cli("store", "Builds run on CircleCI.", "-t", "decision", cwd=workdir).stdout.strip()
    new = cli("store", "Builds run on Buildkite.", "-t", "decision", cwd=workdir).stdout.strip()
    assert cli("supersede", old, new, cwd=workdir).returncode == 0
    shown = cli("get", old, cwd=workdir).stdout
    assert f" by {new} (see: memlode supersede --chain {old})" in shown
    shown_json = json.loads(cli("get", old, "--json", cwd=workdir).stdout)
    assert shown_json["replaced_by"] == new and shown_json["replaced_at"]
    assert "replaced" not in cli("get", new, cwd=workdir).stdout
    assert "replaced_by" not in json.loads(cli("get", new, "--json", cwd=workdir).stdout)
