"""The detectors of the patterns cycle: what repeats across a namespace's sessions in what the
hooks stored, each a :class:`Pattern` with its evidence and a strength in 0..1.

Pure functions over rows already read (no SQL, no writes, no model); the cycle
(:mod:`memlode.engine.consolidation.patterns`) reads, compares with what it stored, and writes.
Error → fix pairs and decision chains are in ``patterns_fixes``.

Strength, per kind (each capped at 1; "sessions" are the namespace's sessions that have
observations):

- ``hotspot`` (a file read or edited in many sessions): ``share * min(1, s / 5)``, where ``s``
  is the number of sessions that touched the file and ``share`` is ``s`` over all sessions; at
  least ``HOTSPOT_MIN_SESSIONS`` sessions, and only the ``MAX_HOTSPOTS`` strongest files of the
  project (files outside it, such as a plan or a tool's saved output, are none). Raw counts do
  not count: one session that reads a file forty times is not a hotspot.
- ``question`` (the same question asked in two or more sessions): ``min(1, s / 4) * mean
  similarity`` (word-set Jaccard of the normalised prompts, at least ``QUESTION_SIMILARITY``).
- ``search`` (the same search, by its words, run in ``SEARCH_MIN_SESSIONS`` or more sessions:
  a Grep, or a ``grep``/``rg``/``ag``/``ack`` command): ``min(1, s / 6) * mean similarity``
  (word-set Jaccard of the searched words, at least ``SEARCH_SIMILARITY``); only the
  ``MAX_SEARCHES`` strongest. What is searched for again and again is worth knowing where it is.
- ``habit`` (how the project runs its tests, which search tool it uses): ``share *
  min(1, s / 4)``, where ``share`` is the majority form's share of the runs (at least
  ``HABIT_MAJORITY``) over at least ``HABIT_MIN_SESSIONS`` sessions.
- ``error-fix`` (a failed command, then edits or other commands, then the same command
  passing, in one session): 0.5, plus 0.25 for each other session in which the same command
  failed and was fixed the same way (the same files or commands in between).
- ``decision-chain`` (edits to one file with the decisions that led to them):
  ``min(1, d / 2) * min(1, e / 4)`` for ``d`` decisions and ``e`` edits.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from memlode.storage.capture import FAILURE_TAG
from memlode.textutil import STOPWORDS, command_key, query_terms
from memlode.types import MemoryType

__all__ = ["KINDS", "Observation", "Pattern", "habits", "hotspots", "questions", "searches"]

KINDS = ("hotspot", "question", "search", "habit", "error-fix", "decision-chain")
HOTSPOT_MIN_SESSIONS = 3
MAX_HOTSPOTS = 10  # the strongest files of a namespace; the rest are ordinary work
QUESTION_SIMILARITY = 0.6
QUESTION_MIN_WORDS = 3
# A search run in two sessions is ordinary work; in three, the project keeps looking for it.
SEARCH_MIN_SESSIONS = 3
SEARCH_SIMILARITY = 0.6
MAX_SEARCHES = 10
HABIT_MIN_SESSIONS = 2
HABIT_MIN_RUNS = 4
HABIT_MAJORITY = 0.6
# Evidence edges per pattern: the latest ones (the hash and the count cover all of them).
MAX_EVIDENCE = 30
_TEST_WORDS = ("test", "pytest", "jest", "vitest", "rspec", "phpunit", "ctest")
_SEARCH_TOOLS = {"Grep": "the Grep tool", "Glob": "the Glob tool"}
_SEARCH_COMMANDS = {"grep": "grep", "rg": "rg (ripgrep)", "find": "find", "ag": "ag", "ack": "ack"}


@dataclass
class Observation:
    id: str
    content: str
    tags: list[str]
    meta: dict[str, Any]
    session: str
    created_at: str
    seen: tuple[str, ...] = ()  # other sessions that met it again (stored once: session_seen)

    @property
    def sessions(self) -> set[str]:
        return {s for s in (self.session, *self.seen) if s}

    @property
    def failed(self) -> bool:
        return FAILURE_TAG in self.tags

    @property
    def command(self) -> str:
        value = self.meta.get("command")
        return value if "command" in self.tags and isinstance(value, str) else ""

    @property
    def file(self) -> str:
        value = self.meta.get("file")
        return value if isinstance(value, str) else ""


@dataclass
class Pattern:
    kind: str
    key: str
    text: str
    strength: float
    evidence: list[str]
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def memory_type(self) -> MemoryType:
        insight = self.kind in ("error-fix", "decision-chain")
        return MemoryType.INSIGHT if insight else MemoryType.PATTERN

    @property
    def evidence_hash(self) -> str:
        """The evidence ids, and the text: a repeat met again in another session changes the
        counts the text gives, not the ids."""
        joined = "\n".join([*sorted(set(self.evidence)), self.text])
        return hashlib.sha256(joined.encode()).hexdigest()[:32]


def days(items: list[Observation]) -> str:
    days = sorted({o.created_at[:10] for o in items})
    return days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"


def shown(path: str, items: list[Observation]) -> str:
    """The file as the hooks showed it (relative to the project), else its base name."""
    for o in reversed(items):
        first = o.content.split("\n", 1)[0]
        for verb in ("Read ", "Edited ", "Created "):
            if first.startswith(verb):
                return first[len(verb) :].split(":", 1)[0].split(" lines ", 1)[0].strip()
    return os.path.basename(path)


def clamp(value: float) -> float:
    return round(min(1.0, max(0.0, value)), 3)


def hotspots(observations: list[Observation], total_sessions: int) -> list[Pattern]:
    by_file: dict[str, list[Observation]] = defaultdict(list)
    for o in observations:
        if o.file and ("read" in o.tags or "edit" in o.tags) and not o.failed:
            by_file[o.file].append(o)
    out = []
    for path, items in by_file.items():
        touched = set[str]().union(*(o.sessions for o in items))
        if len(touched) < HOTSPOT_MIN_SESSIONS:
            continue
        name = shown(path, items)
        if name.startswith(("/", "~")):
            continue  # outside the project (the hooks show project files relative): a plan,
            # a tool's saved output
        share = len(touched) / max(total_sessions, len(touched))
        edits = sum("edit" in o.tags for o in items)
        text = (
            f"{name} is a hotspot: worked on in {len(touched)} of"
            f" {max(total_sessions, len(touched))} sessions ({edits} edits,"
            f" {len(items) - edits} reads, {days(items)})."
        )
        out.append(
            Pattern(
                "hotspot",
                path,
                text,
                clamp(share * min(1.0, len(touched) / 5)),
                [o.id for o in items],
                {"file": path, "sessions": len(touched), "edits": edits},
            )
        )
    # the few files most worked on; a month where every file is touched in a third of the
    # sessions has no seventy hotspots
    out.sort(key=lambda p: (-p.strength, -len(p.evidence), p.key))
    return out[:MAX_HOTSPOTS]


def _question_words(text: str) -> frozenset[str]:
    words = (w.rstrip("s") if len(w) > 4 else w for w in query_terms(text.lower()))
    return frozenset(w for w in words if w not in STOPWORDS and len(w) > 1)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def questions(observations: list[Observation]) -> list[Pattern]:
    prompts = [
        (o, _question_words(o.content))
        for o in observations
        if ("prompt" in o.tags or "instruction" in o.tags) and o.sessions
    ]
    groups: list[list[tuple[Observation, frozenset[str], float]]] = []
    for o, words in prompts:
        if len(words) < QUESTION_MIN_WORDS:
            continue
        for group in groups:
            similarity = _jaccard(group[0][1], words)
            if similarity >= QUESTION_SIMILARITY:
                group.append((o, words, similarity))
                break
        else:
            groups.append([(o, words, 1.0)])
    out = []
    for group in groups:
        sessions = set[str]().union(*(o.sessions for o, _w, _s in group))
        if len(sessions) < 2:
            continue
        first = group[0][0]
        # asked word for word again, a prompt is stored once (similarity 1)
        similarity = sum(s for _o, _w, s in group[1:]) / (len(group) - 1) if group[1:] else 1.0
        asked = " ".join(first.content.split())[:160]
        when = days([o for o, _w, _s in group])
        text = f'The same question was asked in {len(sessions)} sessions ({when}): "{asked}".'

        out.append(
            Pattern(
                "question",
                " ".join(sorted(group[0][1]))[:200],
                text,
                clamp(min(1.0, len(sessions) / 4) * similarity),
                [o.id for o, _w, _s in group],
                {"sessions": len(sessions), "asked": len(group)},
            )
        )
    return out


_REGEX_ESCAPE = re.compile(r"\\[A-Za-z]")  # \s, \b, \w: syntax, not words
_SEARCH_WORD = re.compile(r"[0-9a-z_]{2,}")
# Options of grep and rg that take a value (the value is not the pattern).
_VALUE_OPTIONS = frozenset(
    {"-A", "-B", "-C", "-m", "-g", "-t", "-T", "--glob", "--type", "--max-count", "--include"}
)


def _searched(o: Observation) -> str:
    """What ``o`` searched for: a Grep's pattern, or a grep/rg/ag/ack command's; else ""."""
    if o.meta.get("tool") == "Grep" and "search" in o.tags:
        return str(o.meta.get("pattern", ""))
    if not o.command:
        return ""
    try:
        words = shlex.split(o.command.split("|", 1)[0].split("&&")[-1])
    except ValueError:
        return ""
    if words[:2] == ["git", "grep"]:
        words = words[1:]
    if not words or words[0] not in ("grep", "rg", "ag", "ack", "egrep"):
        return ""
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in ("-e", "--regexp"):
            skip = False  # the next word is the pattern
        elif word in _VALUE_OPTIONS:
            skip = True
        elif not word.startswith("-"):
            return word
    return ""


def _search_words(pattern: str) -> frozenset[str]:
    return frozenset(_SEARCH_WORD.findall(_REGEX_ESCAPE.sub(" ", pattern).lower()))


def searches(observations: list[Observation]) -> list[Pattern]:
    """The same search (by its words) run in several sessions."""
    groups: list[list[tuple[Observation, str, frozenset[str], float]]] = []
    for o in observations:
        pattern = _searched(o) if not o.failed else ""
        words = _search_words(pattern)
        if not words or not o.sessions:
            continue
        for group in groups:
            similarity = _jaccard(group[0][2], words)
            if similarity >= SEARCH_SIMILARITY:
                group.append((o, pattern, words, similarity))
                break
        else:
            groups.append([(o, pattern, words, 1.0)])
    out = []
    for group in groups:
        sessions = set[str]().union(*(o.sessions for o, _p, _w, _s in group))
        if len(sessions) < SEARCH_MIN_SESSIONS:
            continue
        similarity = sum(s for *_r, s in group[1:]) / (len(group) - 1) if group[1:] else 1.0
        items = [o for o, _p, _w, _s in group]
        # where the latest Grep found it (a command's output is not summarised so)
        heads = (o.content.split("\n", 1)[0] for o in reversed(items))
        found = next((h.partition(" -> ")[2] for h in heads if " -> " in h), "")
        text = (
            f"The same search was run in {len(sessions)} sessions ({days(items)}):"
            f' "{group[0][1][:120]}"' + (f" (last found: {found[:200]})." if found else ".")
        )
        out.append(
            Pattern(
                "search",
                " ".join(sorted(group[0][2]))[:200],
                text,
                clamp(min(1.0, len(sessions) / 6) * similarity),
                [o.id for o in items],
                {"sessions": len(sessions), "searches": len(group), "searched": group[0][1]},
            )
        )
    out.sort(key=lambda p: (-p.strength, -len(p.evidence), p.key))
    return out[:MAX_SEARCHES]


def _before_pipe(command: str) -> list[str]:
    parts = [p.strip() for p in command.split("&&")]
    while len(parts) > 1 and parts[0].startswith("cd "):
        parts.pop(0)
    return parts[0].split("|", 1)[0].split() if parts else []


def _is_test(key: str) -> bool:
    return any(w in part for part in key.split() for w in _TEST_WORDS)


def _habit(
    kind_key: str, label: str, runs: list[tuple[Observation, str]], form: str
) -> Pattern | None:
    """A habit when ``form`` is a clear majority of ``runs`` (observation, form) over several
    sessions; None otherwise."""
    chosen = [o for o, f in runs if f == form]
    sessions = set[str]().union(*(o.sessions for o in chosen))
    share = len(chosen) / len(runs)
    if len(runs) < HABIT_MIN_RUNS or share < HABIT_MAJORITY or len(sessions) < HABIT_MIN_SESSIONS:
        return None
    text = (
        f"{label} {form}: {len(chosen)} of {len(runs)} runs, in {len(sessions)} sessions"
        f" ({days(chosen)})."
    )
    return Pattern(
        "habit",
        kind_key,
        text,
        clamp(share * min(1.0, len(sessions) / 4)),
        [o.id for o in chosen],
        {"form": form, "runs": len(runs), "sessions": len(sessions)},
    )


def habits(observations: list[Observation]) -> list[Pattern]:
    tests: list[tuple[Observation, str]] = []
    searches: list[tuple[Observation, str]] = []
    for o in observations:
        tool = o.meta.get("tool")
        if tool in _SEARCH_TOOLS and "search" in o.tags and str(o.meta.get("pattern", "")):
            searches.append((o, _SEARCH_TOOLS[str(tool)]))
        if not o.command:
            continue
        words = _before_pipe(o.command)
        key = command_key(" ".join(words))
        if words and words[0] in _SEARCH_COMMANDS:
            searches.append((o, _SEARCH_COMMANDS[words[0]]))
        elif key and _is_test(key):
            tests.append((o, f"`{key}`"))
    out = []
    if tests:
        form = Counter(f for _o, f in tests).most_common(1)[0][0]
        habit = _habit("test-command", "Tests are run with", tests, form)
        if habit is not None:
            flags = Counter(
                w
                for o in habit_runs(tests, form)
                for w in set(_before_pipe(o.command))
                if w[:1] == "-"
            )
            usual = [
                w for w, n in flags.most_common(3) if n >= HABIT_MAJORITY * len(habit.evidence)
            ]
            if usual:
                habit.text = habit.text.replace(":", f", usually with {' '.join(usual)}:", 1)
                habit.details["flags"] = usual
            out.append(habit)
    if searches:
        form = Counter(f for _o, f in searches).most_common(1)[0][0]
        habit = _habit("search-tool", "Code is searched with", searches, form)
        if habit is not None:
            out.append(habit)
    return out


def habit_runs(runs: list[tuple[Observation, str]], form: str) -> list[Observation]:
    return [o for o, f in runs if f == form]
