"""Offline re-judging of a kept session replay: change the gate or the rendering, not the store.

`memlode eval replay --keep DIR` leaves the replayed store behind. This script copies it
without the next-day session's stored prompts (so that the store is what each prompt met
live: the prompt hook stores a prompt only after recalling for it), asks the engine once for
each prompt's top ``--k`` hits as the store's resident would (``Engine.search`` with the
prompt's project namespace, the same wire form), then runs the hook's gate and rendering
(``memlode.hooks._resident.recalled`` and ``memlode.hooks.injection.prompt_context``) on them
and judges the text as the replay does. Each relevant prompt that is not answered is put in
one of four bins:

- *excerpt*: the chosen memories hold the answer, the rendered passages do not show it;
- *ranking*: the answer is in the engine's top ``--k`` but not among the chosen memories;
- *absent*: stored, but not in the top ``--k``;
- *unstored*: some part of the answer is in no memory of the store (a capture question, not a
  recall one).

A miss the gate shut on (nothing handed over) is marked "(nothing)".

    .venv/bin/python bench/replay_offline.py DIR [--k 30] [--budget CHARS] [--limit 10] [--json]

The defaults are the hook's defaults: ``[hooks] question_max_memories`` memories in the room
of ``question_budget_tokens`` for a question, ``prompt_max_memories`` in
``prompt_budget_tokens`` for another prompt (``--limit`` and ``--budget`` give every prompt the
same), of the engine's first ``--k`` hits (three times the larger count).

Variants of the gate are tried by editing ``memlode.hooks`` and running it again: the
engine's hits are cached in DIR/offline-hits-K.json, K the ``--k`` (delete it after a change
to capture or ranking). The live replay is the figure that counts; this one moves with it (within a
prompt or two on the same store) and takes seconds instead of minutes.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sqlite3
import sys
import uuid
from pathlib import Path
from typing import Any

QUESTIONS = Path(__file__).with_name("replay_prompts.json")


def _name(file: str) -> str:
    return "tool_heavy" if "tool_heavy" in file else Path(file).stem


def _copy_without_next_day(work: Path, spec: dict[str, Any]) -> Path:
    """The kept store, backed up to DIR/offline.db, without the next-day sessions' rows."""
    target = work / "offline.db"
    target.unlink(missing_ok=True)
    with sqlite3.connect(work / "memlode-home" / "memlode.db") as src:
        dst = sqlite3.connect(target)
        src.backup(dst)
    ids = [
        str(uuid.uuid5(uuid.NAMESPACE_URL, f"next-day/{_name(s['file'])}"))
        for s in spec["sessions"]
    ]
    marks = ",".join("?" * len(ids))
    dst.execute(f"DELETE FROM memories WHERE session_id IN ({marks})", ids)
    dst.commit()
    dst.close()
    return target


def _items(spec: dict[str, Any]) -> list[tuple[str, str, str, Any]]:
    out = []
    for session in spec["sessions"]:
        name = _name(session["file"])
        out += [(name, "relevant", p["prompt"], p["expect"]) for p in session["prompts"]]
        controls = (spec.get("controls") or []) + session.get("controls", [])
        out += [(name, "control", c["prompt"], c["split"]) for c in controls]
    return out


@functools.cache
def _namespace(work: Path, name: str) -> str:
    """The namespace of the replayed project ``name``: its identity key, as the hooks had it."""
    from memlode.project import project_identity

    identity = project_identity(str(work / "projects" / name))
    return identity.key if identity else name


def _hits(work: Path, db: Path, items: list[Any], k: int) -> dict[str, Any]:
    cache = work / f"offline-hits-{k}.json"
    if cache.exists():
        cached: dict[str, Any] = json.loads(cache.read_text())
        return cached
    os.environ["MEMLODE_DB"] = str(db)
    os.environ["MEMLODE_HOME"] = str(work / "memlode-home")
    from memlode.config import Settings
    from memlode.engine import Engine
    from memlode.resident.protocol import _cosines, _recall_hit

    engine = Engine(Settings.load({}), cwd=work)
    out: dict[str, Any] = {}
    for name, _kind, prompt, _x in items:
        engine.namespace = _namespace(work, name)
        hits = engine.search(prompt, k, exclude_session="offline")
        cosines = _cosines(engine, prompt, [h.memory.id for h in hits])
        out[f"{name}\n{prompt}"] = [_recall_hit(h, cosines.get(h.memory.id, 0.0)) for h in hits]
    engine.close()
    cache.write_text(json.dumps(out))
    return out


def _has(text: str, groups: list[list[str]]) -> bool:
    low = text.lower()
    return all(any(p.lower() in low for p in group) for group in groups)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", type=Path, help="the folder `memlode eval replay --keep` left")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    from memlode.hook_settings import (
        CHARS_PER_TOKEN,
        PROMPT_BUDGET_TOKENS,
        PROMPT_MEMORIES,
        QUESTION_BUDGET_TOKENS,
        QUESTION_MEMORIES,
    )

    most = max(PROMPT_MEMORIES, QUESTION_MEMORIES)
    parser.add_argument("--k", type=int, default=most * 3, help="hits per prompt")
    parser.add_argument("--budget", type=int, help="injection budget, chars (default: the hook's)")
    parser.add_argument("--limit", type=int, help="memories per prompt (default: the hook's)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (args.work / "memlode-home" / "memlode.db").exists():
        print(f"error: no kept replay store in {args.work}", file=sys.stderr)
        return 2
    spec = json.loads(args.questions.read_text())
    items = _items(spec)
    db = _copy_without_next_day(args.work, spec)
    hits = _hits(args.work, db, items, args.k)
    from memlode.hooks._recall import asks
    from memlode.hooks._resident import recalled
    from memlode.hooks.injection import prompt_context

    rooms = {
        True: QUESTION_BUDGET_TOKENS * CHARS_PER_TOKEN,
        False: PROMPT_BUDGET_TOKENS * CHARS_PER_TOKEN,
    }
    memories = {True: QUESTION_MEMORIES, False: PROMPT_MEMORIES}

    conn = sqlite3.connect(db)
    bins = {"answered": 0, "excerpt": 0, "ranking": 0, "absent": 0, "unstored": 0}
    stored = [row[0] for row in conn.execute("SELECT content FROM memories")]
    silent: dict[str, list[int]] = {}
    missed = []
    shown: list[int] = []  # characters handed over for each relevant prompt
    for name, kind, prompt, x in items:
        project = _namespace(args.work, name)
        question = asks(prompt)
        limit = args.limit or memories[question]
        found = recalled(conn, hits[f"{name}\n{prompt}"], prompt, limit, "", project=project)
        budget = args.budget or rooms[question]
        text = prompt_context(found, budget)
        if kind == "control":
            counts = silent.setdefault(x, [0, 0])
            counts[0] += not text
            counts[1] += 1
            continue
        shown.append(len(text))
        if _has(text, x):
            where = "answered"
        elif _has(" ".join(f.content for f in found), x):
            where = "excerpt"
        elif _has(" ".join(h["content"] for h in hits[f"{name}\n{prompt}"]), x):
            where = "ranking"
        elif all(any(_has(content, [group]) for content in stored) for group in x):
            where = "absent"
        else:
            where = "unstored"
        bins[where] += 1
        if where != "answered":
            missed.append({"prompt": prompt, "bin": where, "injected": bool(text)})
    mean_chars = round(sum(shown) / len(shown), 1) if shown else 0.0
    report = {
        "relevant": bins,
        "mean_chars_relevant": mean_chars,
        "controls_silent": silent,
        "missed": missed,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        total = sum(bins.values())
        print(
            f"answered {bins['answered']}/{total}; not answered: excerpt {bins['excerpt']},"
            f" ranking {bins['ranking']}, absent {bins['absent']}, unstored {bins['unstored']};"
            f" {mean_chars:.0f} characters handed over a relevant prompt on average"
        )
        for split, (quiet, n) in silent.items():
            print(f"controls silent ({split}) {quiet}/{n}")
        for row in missed:
            print(f"  {row['bin']:<8} {row['prompt']}" + ("" if row["injected"] else " (nothing)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
