"""``memlode demo`` (and ``make run``): the product at work on one coding session.

The demo builds a store in a temporary home (nothing touches the user's store), replays a small
synthetic coding session through the real hooks (``memlode.engine.demo_session``: a bug report,
a read, a failing test, the fix, the passing test, the user's decision; one hook process per
event, fed the payloads Claude Code sends), indexes the session's project and this package's own
code, fills the vectors, then shows what the user's assistant would get:

1. what SessionStart hands the assistant the next morning,
2. what the prompt hook injects for a follow-up question,
3. a hybrid ``memlode search --explain``,
4. the repo map of memlode's own code,
5. ``memlode stats``.

Every step says how long it took. Embeddings use the configured provider (the local model by
default); without one, recall runs on text alone and the demo says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.demo_session import (
    AUTH_AFTER,
    NEXT_SESSION_ID,
    SESSION_ID,
    session_steps,
    write_project,
    write_transcript,
)
from memlode.errors import InvalidInput, MemlodeError

__all__ = ["FOLLOW_UP", "SEARCH", "main", "run_demo"]

FOLLOW_UP = "Why do we normalise passwords before hashing them?"
SEARCH = "password hashing with accents"
MAP_TOKENS = 600
WIDTH = 96


class _Out:
    """Sections and timed steps on ``stream``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def line(self, text: str = "") -> None:
        print(text, file=self.stream, flush=True)

    def section(self, title: str) -> None:
        self.line()
        self.line(f"== {title} " + "=" * max(0, WIDTH - len(title) - 4))

    def block(self, text: str, indent: str = "  ") -> None:
        for raw in text.rstrip().splitlines():
            self.line(indent + textwrap.shorten(raw, WIDTH * 2, placeholder=" …") if raw else "")

    @contextmanager
    def step(self, what: str) -> Iterator[None]:
        print(f"{what} ...", end="", file=self.stream, flush=True)
        started = time.perf_counter()
        yield
        print(f" {time.perf_counter() - started:.1f} s", file=self.stream, flush=True)


def _environment(home: Path) -> dict[str, str]:
    """The hooks' environment: the demo's home, no resident left behind, no consolidation;
    the user's embedding provider choice is kept."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")}
    if "MEMLODE_EMBED_PROVIDER" in os.environ:
        env["MEMLODE_EMBED_PROVIDER"] = os.environ["MEMLODE_EMBED_PROVIDER"]
    env.update(
        MEMLODE_HOME=str(home),
        MEMLODE_RESIDENT_AUTOSTART="0",
        MEMLODE_CONSOLIDATE_EVERY="0",
    )
    return env


def _hook(event: str, payload: dict[str, Any], env: dict[str, str], cwd: Path) -> str:
    """Run one hook process as Claude Code does; its stdout (a hook prints only JSON)."""
    done = subprocess.run(
        [sys.executable, "-m", "memlode.hooks", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    return done.stdout


def _injected(stdout: str) -> str:
    """The additionalContext a SessionStart or UserPromptSubmit hook printed, or ''."""
    try:
        data = json.loads(stdout) if stdout.strip() else {}
    except json.JSONDecodeError:
        return ""
    return str(data.get("hookSpecificOutput", {}).get("additionalContext", ""))


def _package_root() -> Path:
    """This repository's root when run from a clone, else the installed package's folder."""
    package = Path(__file__).resolve().parents[1]
    repo = package.parents[1]
    return repo if (repo / "pyproject.toml").is_file() and (repo / "src").is_dir() else package


def run_demo(work: Path, out: _Out) -> None:
    """The whole demo in ``work`` (an empty folder the caller owns)."""
    started = time.perf_counter()
    home, project = work / "memlode-home", work / "shop"
    transcript = work / "claude" / "projects" / "shop" / f"{SESSION_ID}.jsonl"
    env = _environment(home)
    write_project(project)
    out.line("memlode demo: one coding session replayed through the real hooks, in a")
    out.line(f"temporary home ({work}); your own store is not touched.")
    out.line()
    steps = list(session_steps(project, transcript))
    with out.step(f"[1/4] {len(steps)} hook events of one session, one process each"):
        for step in steps:
            if step.what.startswith("Edit"):
                (project / "shop" / "auth.py").write_text(AUTH_AFTER)
            if step.event == "stop":
                write_transcript(transcript, project)
            _hook(step.event, step.payload, env, project)
    settings = Settings.load(environ=env)
    with Engine(settings, cwd=project) as engine:
        _index_and_embed(engine, project, out)
        _show(engine, env, project, transcript, out)
    out.line()
    out.line(f"Done in {time.perf_counter() - started:.1f} s.")


def _index_and_embed(engine: Engine, project: Path, out: _Out) -> None:
    from memlode.engine import code

    own = _package_root()
    with out.step(f"[2/4] code index: the session's project and memlode's own code ({own.name})"):
        code.index(engine, project, embed=False)
        stats = code.index(engine, own, namespace="memlode-demo-code", embed=False)
    out.line(f"      {stats['files']} files, {stats['symbols']} symbols of memlode indexed")
    with out.step("[3/4] vectors for the captured memories"):
        done = engine.embed_pending()
    model = engine.embeddings.model_name()
    mode = f"hybrid: {model} + BM25" if model else f"text only ({engine.embeddings.error})"
    out.line(f"      {done} memories embedded; search mode {mode}")


def _show(engine: Engine, env: dict[str, str], project: Path, transcript: Path, out: _Out) -> None:
    from memlode.engine import code

    base = {"session_id": NEXT_SESSION_ID, "transcript_path": str(transcript),
            "cwd": str(project)}  # fmt: skip
    with out.step("[4/4] the next morning: SessionStart and a follow-up prompt"):
        start = _hook("session-start", {**base, "hook_event_name": "SessionStart",
                                        "source": "startup"}, env, project)  # fmt: skip
        prompt = _hook("prompt", {**base, "hook_event_name": "UserPromptSubmit",
                                  "prompt": FOLLOW_UP}, env, project)  # fmt: skip
    out.section("1. What SessionStart hands the assistant the next morning")
    out.block(_injected(start) or "(nothing)")
    out.section(f"2. The prompt hook, for the follow-up {FOLLOW_UP!r}")
    out.block(_injected(prompt) or "(nothing injected)")
    out.section(f'3. memlode search "{SEARCH}" --explain')
    for rank, hit in enumerate(engine.search(SEARCH, 3), 1):
        data = hit.to_dict(explain=True)
        signals = data.get("signals") or {}
        parts = ", ".join(f"{k} {v:.3f}" for k, v in signals.items() if v)
        out.line(f"  {rank}. {hit.score:.3f} [{hit.memory.memory_type}, {hit.memory.source}]")
        out.block(textwrap.shorten(hit.memory.content, 180, placeholder=" …"), "     ")
        if parts:
            out.line(f"     {parts}")
    out.section(f"4. The repo map of memlode's own code ({MAP_TOKENS} tokens)")
    the_map = code.repo_map(engine, tokens=MAP_TOKENS, namespace="memlode-demo-code")
    out.block(str(the_map["text"]))
    out.section("5. memlode stats")
    stats = engine.stats()
    by_type = ", ".join(f"{name} {count}" for name, count in stats["by_type"].items())
    by_source = ", ".join(f"{name} {count}" for name, count in stats["by_source"].items())
    out.line(f"  memories {stats['memories']} ({by_type})")
    out.line(f"  sources  {by_source}")
    out.line(f"  graph    {stats['graph_nodes']} nodes, {stats['graph_edges']} edges")
    out.line(f"  database {stats['database_bytes'] / 1024:.0f} KiB")


def demo(keep: Path | None = None, stream: TextIO | None = None) -> None:
    """Run the demo in ``keep`` (created, must be empty) or in a temporary folder removed after."""
    out = _Out(stream or sys.stdout)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        if any(keep.iterdir()):
            raise InvalidInput(f"{keep} is not empty; give a new or empty folder to keep")
        run_demo(keep, out)
        out.line(f"The demo's home is kept in {keep}: MEMLODE_HOME={keep / 'memlode-home'}")
        return
    work = Path(tempfile.mkdtemp(prefix="memlode-demo-"))
    try:
        run_demo(work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m memlode.engine.demo [--keep DIR]``."""
    args = sys.argv[1:] if argv is None else argv
    keep = Path(args[1]) if len(args) == 2 and args[0] == "--keep" else None
    try:
        demo(keep)
    except MemlodeError as exc:
        print(f"memlode: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
