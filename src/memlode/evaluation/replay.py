"""Session replay: what the installed hooks hand the assistant, judged like LoCoMo judges ranking.

Each real Claude Code session of a question file is replayed into its own project folder
(``git init``-ed, so it is a project) through the hook commands that ``memlode init``
registers (``memlode.evaluation.replay_hooks``), all projects sharing one memlode home as one
user's machine would. When the detached transcript ingests have finished, each project gets a
new session "the next day": SessionStart, then the session's next-day prompts with the control
prompts interleaved, each through UserPromptSubmit. Judged:

- a relevant prompt is *answered* when the text its UserPromptSubmit injects contains, for
  every group of its ``expect`` phrases, at least one phrase (case-insensitive);
- a control is *silent* when nothing is injected for it;
- SessionStart *states the end state* when its text holds a phrase of every ``end_state`` group;
- an *echo* is an injection that contains the current prompt, or an earlier prompt of the same
  next-day session (prompts of four words or more), as stored text;
- *files left* are files created or changed in a project folder (``.git`` aside);
- hook wall time per event, p50 and p95.

A question file (``bench/replay_prompts.json``, the tuned set; ``bench/replay_untuned.json``,
sessions of other projects written before they were first replayed) names its sessions relative
to a data folder: its own ``data`` (relative to the file), else ``--data``
(../shared/data/transcripts/spotter). Its top-level controls are asked in each of its sessions, a
session's own ``controls`` only in that session. Controls split into ``calibration`` (for tuning
a gate) and ``test`` (for reporting); only the test split counts in ``controls_silent``, and
any other split (controls written later, say) is reported on its own in
``controls_silent_by_split`` beside them. Several
files replay into one store; each file is a *set* (its ``set``, else its name) with its own
figures in ``by_set``, so tuned and untuned sessions are reported apart.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memlode.errors import InvalidInput
from memlode.evaluation.replay_hooks import InstalledHooks, replay_transcript
from memlode.evaluation.replay_spec import Control, Prompt, ReplaySession, ReplaySpec

__all__ = ["ReplaySession", "ReplaySpec", "format_replay", "run_replay"]

ECHO_MIN_WORDS = 4
DETACHED_WAIT_S = 300.0


def _matches(text: str, groups: list[list[str]]) -> bool:
    low = text.lower()
    return all(any(p.lower() in low for p in group) for group in groups)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if rel.parts and rel.parts[0] == ".git":
            continue
        if path.is_file():
            st = path.stat()
            out[str(rel)] = (st.st_size, st.st_mtime_ns)
    return out


def _detached_running(needles: list[str]) -> bool:
    wanted = [n.encode() for n in needles]
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"memlode" in cmdline and any(n in cmdline for n in wanted):
            return True
    return False


def _install(work: Path, env: dict[str, str], project: Path) -> Path:
    settings_file = work / "claude-settings.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memlode",
            "init",
            "--settings-file",
            str(settings_file),
            "--no-mcp",
        ],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise InvalidInput(f"memlode init failed: {proc.stderr.strip()}")
    return settings_file


def _interleave(prompts: list[Prompt], controls: list[Control]) -> list[tuple[str, Any]]:
    """The prompts in their order with the controls spread evenly between them."""
    slots: dict[int, list[Control]] = {}
    for j, control in enumerate(controls):
        slots.setdefault(round((j + 1) * len(prompts) / (len(controls) + 1)), []).append(control)
    order: list[tuple[str, Any]] = []
    for i in range(len(prompts) + 1):
        order.extend(("control", c) for c in slots.get(i, []))
        if i < len(prompts):
            order.append(("relevant", prompts[i]))
    return order


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def _mean(values: list[int]) -> float:
    return round(statistics.fmean(values), 1) if values else 0.0


def _p(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def run_replay(
    spec: ReplaySpec,
    *,
    home: Path | None = None,
    keep: Path | None = None,
    env_extra: dict[str, str] | None = None,
    progress: Callable[[str], None] | None = None,
    consolidate: bool = False,
) -> dict[str, Any]:
    """Replay every session of ``spec``, ask the next-day prompts, and return the report.

    ``consolidate``: the night between also consolidates the store (``memlode consolidate``,
    the default cycles, every namespace) after embedding it, as the resident does on its first
    start the next day; the
    resident's own automatic run is off during the replay, which would otherwise catch the
    first session half replayed."""
    run = _Run(spec, home, keep, env_extra, progress)
    for session in spec.sessions:
        run.replay(session)
    run.wait_for_ingests()
    embed = run.overnight_embed()
    consolidated = None
    if consolidate:
        # as on a machine where the resident embeds all day: the cycles (creative reads the
        # vectors) run over an embedded store, and what they write is embedded after them
        consolidated = run.overnight_consolidate()
        consolidated["embed"] = run.overnight_embed()
    for session, project, before in run.projects:
        run.next_day(session, project, before)
    recall_paths = _recall_paths(run.memlode_home, [p[0].name for p in run.projects])
    # The store's resident (started by SessionStart, as in use) goes with the run.
    subprocess.run(
        [sys.executable, "-m", "memlode", "resident", "stop"], env=run.env, capture_output=True
    )
    report = run.report(embed, recall_paths)
    if consolidated is not None:
        report["overnight_consolidation"] = consolidated
    return report


class _Run:
    """One replay: the work folder and environment, the projects replayed into it, and what
    the next-day prompts got."""

    def __init__(
        self,
        spec: ReplaySpec,
        home: Path | None,
        keep: Path | None,
        env_extra: dict[str, str] | None,
        progress: Callable[[str], None] | None,
    ) -> None:
        self.spec = spec
        self.say = progress or (lambda _line: None)
        self.work = Path(tempfile.mkdtemp(prefix="memlode-replay-")) if keep is None else keep
        self.work.mkdir(parents=True, exist_ok=True)
        self.memlode_home = home or self.work / "memlode-home"
        self.fake_home = self.work / "home"
        self.fake_home.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLODE_", "CLAUDE_"))}
        env.update({"HOME": str(self.fake_home), "MEMLODE_HOME": str(self.memlode_home)})
        env["MEMLODE_CONSOLIDATE_EVERY"] = "0"  # consolidated overnight when asked, not midway
        if "MEMLODE_EMBED_PROVIDER" in os.environ:
            env["MEMLODE_EMBED_PROVIDER"] = os.environ["MEMLODE_EMBED_PROVIDER"]
        env.update(env_extra or {})
        self.env = env
        self.started = time.monotonic()
        self.projects: list[tuple[ReplaySession, Path, dict[str, tuple[int, int]]]] = []
        self.calls: list[Any] = []
        self.replay_stats: dict[str, dict[str, Any]] = {}
        self.transcripts: list[str] = []
        self.per_session: dict[str, dict[str, Any]] = {}
        self.echo_hits: list[dict[str, str]] = []
        self.relevant: list[dict[str, Any]] = []
        self.controls: list[dict[str, Any]] = []
        self.files_left: dict[str, list[str]] = {}

    def hooks(self, settings_file: Path, project: Path) -> InstalledHooks:
        return InstalledHooks(
            settings_file, {**self.env, "CLAUDE_PROJECT_DIR": str(project)}, project
        )

    def replay(self, session: ReplaySession) -> None:
        """The session's transcript, line by line, through the hooks, in a fresh project."""
        project = self.work / "projects" / session.name
        if project.exists():
            shutil.rmtree(project)
        project.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(project)], check=True, env=self.env)
        before = _snapshot(project)
        hooks = self.hooks(_install(self.work, self.env, project), project)
        enc = re.sub(r"[^A-Za-z0-9]", "-", str(project))
        target = self.fake_home / ".claude" / "projects" / enc / session.file.name
        if target.exists():
            target.unlink()
        self.say(f"replaying {session.name} into {project}")
        t0 = time.monotonic()
        stats = replay_transcript(session.file, target, hooks, project)
        seconds = round(time.monotonic() - t0, 1)
        self.replay_stats[session.name] = {**stats.__dict__, "seconds": seconds}
        self.calls.extend(hooks.calls)
        self.transcripts.append(str(target))
        self.projects.append((session, project, before))

    def wait_for_ingests(self) -> None:
        deadline = time.monotonic() + DETACHED_WAIT_S
        while _detached_running(self.transcripts) and time.monotonic() < deadline:
            time.sleep(0.2)

    def overnight_consolidate(self) -> dict[str, Any]:
        """The night between, when asked: every cycle over every namespace; the counts."""
        t0 = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "memlode", "consolidate", "-n", "*", "--json"],
            env=self.env,
            capture_output=True,
            text=True,
        )
        totals: dict[str, dict[str, int]] = {}
        if done.returncode == 0:
            for cycle_run in json.loads(done.stdout):
                into = totals.setdefault(cycle_run["cycle"], {})
                for key, value in cycle_run["counts"].items():
                    into[key] = into.get(key, 0) + int(value)
        else:
            self.say(f"consolidation failed: {done.stderr.strip()}")
        return {"seconds": round(time.monotonic() - t0, 1), "counts": totals}

    def overnight_embed(self) -> dict[str, Any]:
        """The night between: whatever was stored without a vector gets one (the resident or
        the MCP server does this in the background on a real machine; here, at once)."""
        t0 = time.monotonic()
        embedded = subprocess.run(
            [sys.executable, "-m", "memlode", "embed"],
            env=self.env,
            capture_output=True,
            text=True,
        )
        note = (embedded.stdout or embedded.stderr).strip().splitlines()[-1:] or [""]
        return {"seconds": round(time.monotonic() - t0, 1), "result": note[0]}

    def next_day(
        self, session: ReplaySession, project: Path, before: dict[str, tuple[int, int]]
    ) -> None:
        """A new session in the project: SessionStart, then the prompts and the controls."""
        hooks = self.hooks(self.work / "claude-settings.json", project)
        next_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"next-day/{session.name}"))
        base = {
            "session_id": next_id,
            "transcript_path": str(self.fake_home / "next-day" / f"{next_id}.jsonl"),
            "cwd": str(project),
            "permission_mode": "default",
        }
        start_calls = hooks.fire("SessionStart", {**base, "source": "startup"}, "startup")
        start_text = "\n".join(c.injected() for c in start_calls)
        asked: list[str] = []
        for kind, item in _interleave(session.prompts, session.controls):
            calls = hooks.fire("UserPromptSubmit", {**base, "prompt": item.prompt})
            injected = "\n".join(c.injected() for c in calls)
            asked.append(item.prompt)
            self._echoes(session.name, item.prompt, injected, asked)
            row = {
                "set": session.set,
                "session": session.name,
                "prompt": item.prompt,
                "chars": len(injected),
                "injected": injected,
            }
            if kind == "relevant":
                row.update(kind=item.kind, answered=_matches(injected, item.expect))
                self.relevant.append(row)
            else:
                row.update(split=item.split, silent=not injected.strip())
                self.controls.append(row)
        self.calls.extend(hooks.calls)
        after = _snapshot(project)
        left = sorted(k for k, v in after.items() if before.get(k) != v)
        if left:
            self.files_left[session.name] = left
        answered = [r for r in self.relevant if r["session"] == session.name and r["answered"]]
        self.per_session[session.name] = {
            "set": session.set,
            "prompts": len(session.prompts),
            "answered": len(answered),
            "session_start_chars": len(start_text),
            "end_state_stated": _matches(start_text, session.end_state)
            if session.end_state
            else None,
            "replay": self.replay_stats[session.name],
        }

    def _echoes(self, session: str, prompt: str, injected: str, asked: list[str]) -> None:
        low = _norm(injected)
        for earlier in asked:
            if len(earlier.split()) >= ECHO_MIN_WORDS and _norm(earlier) in low:
                self.echo_hits.append({"session": session, "prompt": prompt, "echoed": earlier})

    def report(self, embed: dict[str, Any], recall_paths: dict[str, int]) -> dict[str, Any]:
        by_event: dict[str, list[float]] = {}
        failed_hooks = 0
        for call in self.calls:
            by_event.setdefault(call.event, []).append(call.ms)
            failed_hooks += call.returncode != 0
        relevant = self.relevant
        test = [r for r in self.controls if r["split"] == "test"]
        return {
            **_figures(len(self.spec.sessions), relevant, self.controls),
            "mean_chars_controls": _mean([r["chars"] for r in test]),
            "end_state_stated": sum(1 for s in self.per_session.values() if s["end_state_stated"]),
            "echo_hits": len(self.echo_hits),
            "recall_paths": recall_paths,
            "files_left": self.files_left,
            "failed_hooks": failed_hooks,
            "hook_ms": {
                event: {"n": len(v), "p50": round(_p(v, 0.5), 1), "p95": round(_p(v, 0.95), 1)}
                for event, v in sorted(by_event.items())
            },
            "by_set": self.by_set(),
            "per_session": self.per_session,
            "echoes": self.echo_hits[:20],
            "unanswered": _shown([r for r in relevant if not r["answered"]]),
            "noisy_controls": _shown(
                [r for r in self.controls if r["split"] != "calibration" and not r["silent"]]
            ),
            "overnight_embed": embed,
            "seconds": round(time.monotonic() - self.started, 1),
            "work_dir": str(self.work),
        }

    def by_set(self) -> dict[str, dict[str, Any]]:
        """The figures of each question file's sessions apart (tuned and untuned sets)."""
        return {
            label: _figures(
                sum(1 for s in self.spec.sessions if s.set == label),
                [r for r in self.relevant if r["set"] == label],
                [r for r in self.controls if r["set"] == label],
            )
            for label in dict.fromkeys(s.set for s in self.spec.sessions)
        }


def _figures(
    sessions: int, relevant: list[dict[str, Any]], controls: list[dict[str, Any]]
) -> dict[str, Any]:
    """Answered prompts and silent controls (test and calibration apart, and each split of
    the controls on its own) of some sessions."""
    test = [r for r in controls if r["split"] == "test"]
    calib = [r for r in controls if r["split"] == "calibration"]
    splits: dict[str, list[dict[str, Any]]] = {}
    for r in controls:
        splits.setdefault(r["split"], []).append(r)
    answered = sum(1 for r in relevant if r["answered"])
    silent = sum(1 for r in test if r["silent"])
    return {
        "sessions": sessions,
        "relevant_prompts": len(relevant),
        "answered": answered,
        "answered_rate": _rate(answered, len(relevant)),
        "controls_test": len(test),
        "controls_silent": silent,
        "controls_silent_rate": _rate(silent, len(test)),
        "controls_calibration_silent": f"{sum(1 for r in calib if r['silent'])}/{len(calib)}",
        "controls_silent_by_split": {
            split: f"{sum(1 for r in rows if r['silent'])}/{len(rows)}"
            for split, rows in sorted(splits.items())
        },
        "mean_chars_relevant": _mean([r["chars"] for r in relevant]),
    }


def _shown(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "set": r["set"],
            "session": r["session"],
            **({"split": r["split"]} if "split" in r else {}),
            "prompt": r["prompt"],
            "injected": r["injected"][:400],
        }
        for r in rows
    ]


def _recall_paths(memlode_home: Path, names: list[str]) -> dict[str, int]:
    """How the next-day prompts were ranked: by the resident (the engine) or by the hook's
    lean BM25 (the resident did not answer in time), from the stored prompts' metadata."""
    from memlode.storage.db import connect
    from memlode.storage.store_stats import prompt_recall_paths

    ids = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"next-day/{name}")) for name in names]
    db = memlode_home / "memlode.db"
    out: dict[str, int] = {}
    if not ids or not db.exists():
        return out
    conn = connect(db, readonly=True)
    try:
        out = prompt_recall_paths(conn, ids)
    finally:
        conn.close()
    return out


def format_replay(report: dict[str, Any]) -> str:
    lines = [
        f"Session replay: {report['sessions']} sessions, {report['relevant_prompts']} next-day"
        f" prompts, {report['controls_test']} test controls ({report['seconds']} s)",
        f"  answered by the injection   {report['answered']}/{report['relevant_prompts']}"
        f" ({report['answered_rate']:.0%})",
        f"  controls left silent        {report['controls_silent']}/{report['controls_test']}"
        f" ({report['controls_silent_rate']:.0%});"
        f" calibration {report['controls_calibration_silent']}"
        + "".join(
            f", {split} {silent}"
            for split, silent in report["controls_silent_by_split"].items()
            if split not in ("test", "calibration")
        ),
        f"  injected chars, mean        relevant {report['mean_chars_relevant']:.0f},"
        f" controls {report['mean_chars_controls']:.0f}",
        f"  SessionStart end state      {report['end_state_stated']}/{report['sessions']}",
        f"  echo hits                   {report['echo_hits']}",
        "  prompts ranked by           "
        + (", ".join(f"{k} {v}" for k, v in sorted(report["recall_paths"].items())) or "-"),
        f"  files left in the project   {sum(len(v) for v in report['files_left'].values())}"
        + (f" {report['files_left']}" if report["files_left"] else ""),
        f"  hooks failed (exit != 0)    {report['failed_hooks']}",
        "  hook wall ms (n, p50, p95): "
        + ", ".join(f"{e} {v['n']}/{v['p50']}/{v['p95']}" for e, v in report["hook_ms"].items()),
    ]
    if len(report["by_set"]) > 1:
        for label, row in report["by_set"].items():
            lines.append(
                f"  set {label:<10} answered {row['answered']}/{row['relevant_prompts']}"
                f" ({row['answered_rate']:.0%}), controls silent"
                f" {row['controls_silent']}/{row['controls_test']}"
                f" (calibration {row['controls_calibration_silent']}),"
                f" {row['mean_chars_relevant']:.0f} chars mean"
            )
    for name, row in report["per_session"].items():
        stated = "yes" if row["end_state_stated"] else "no"
        lines.append(
            f"  {name[:12]:<12} answered {row['answered']}/{row['prompts']}, end state {stated},"
            f" SessionStart {row['session_start_chars']} chars,"
            f" replay {row['replay']['lines']} lines in {row['replay']['seconds']} s"
        )
    return "\n".join(lines)
