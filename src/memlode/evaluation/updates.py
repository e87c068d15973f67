"""The update evaluation: is what memlode hands over the current statement, not a replaced one?

Each case (``bench/update_cases.json``) holds an earlier statement, the statement that
replaces it, a question whose answer is the new one, and distractor decisions on neighbouring
subjects that must not be linked. Per project (one namespace each, in a fresh temporary
store), every case's earlier statement and distractors are stored first, then, a month later,
every replacing statement, each through ``Engine.store``: the path of ``memlode store`` and
the MCP ``store_memory``, where supersession is detected. Then each question is asked:

- **search**: ``Engine.search`` (the ranking every interface uses); current-first when the
  first of the case's statements in the hits is the new one;
- **injection**: what the prompt hook hands over for the question (the engine's ranking as the
  resident gives it, the hook's gate and selection, ``memlode.hooks.injection.prompt_context``);
  current-first when the new statement is injected and is the first of the case's statements
  shown as current; "replaced shown as current" when the old statement is injected other than
  as history ("was: ...");
- **links**: each replacement link made is checked against the cases: the expected new ->
  old pairs found, and false supersessions (any other link: a distractor or another case's
  statement linked), as a share of all links made;
- **offered**: whether the MCP ``store_memory`` answer for the new statement names the old one,
  as linked (``replaces``) or as one it may replace (``may_replace``, ``Engine.replacing``), for
  the assistant that stored it to judge; for a control, offering the earlier one asks the
  assistant to decline.

A file may also hold **controls** (``bench/update_controls_heldout.json``): an earlier
statement, a later one on the same subject that does *not* replace it, and a question whose
answer is the earlier one. They are stored the same way (the later one a month later) and judged
the other way round: the earlier statement first in search and in the injection, and any link
between the two a false supersession. And **silent** questions
(``bench/update_silent_heldout.json``): asked in a project's store, answered by none of its
statements, so the prompt hook must inject nothing. Several files may be judged together; a
project's statements are then stored in one store, whichever file holds them.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memlode.config import Settings
from memlode.engine import Engine
from memlode.errors import InvalidInput
from memlode.evaluation.stores import fresh_store
from memlode.storage import supersession
from memlode.types import format_ts

__all__ = ["UpdateCase", "format_updates", "load_update_cases", "run_updates"]

# When the earlier statements are stored, and how much later their replacements are.
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
LATER = timedelta(days=30)
SEARCH_K = 10
# The fields of a hit the resident hands the prompt hook (memlode.resident.protocol).
_HIT_FIELDS = ("id", "content", "created_at", "source")


@dataclass(slots=True, frozen=True)
class UpdateCase:
    id: str
    project: str
    old: str
    new: str
    question: str
    distractors: tuple[str, ...]
    memory_type: str = "decision"
    kind: str = ""
    source: str = ""
    role: str = "update"  # "control": ``new`` does not replace ``old``, the answer is ``old``;
    # "silent": no statement (``old``, ``new`` empty) answers the question

    @property
    def control(self) -> bool:
        return self.role == "control"

    @property
    def silent(self) -> bool:
        return self.role == "silent"


def load_update_cases(*paths: Path) -> list[UpdateCase]:
    """The cases of JSON files (``{"cases": [...], "controls": [...], "silent": [...]}``, any
    of the lists, or a list of cases); InvalidInput naming what is wrong. A control's
    ``earlier`` and ``later`` statements are its case's ``old`` and ``new``."""
    out: list[UpdateCase] = []
    seen: set[str] = set()
    for path in paths:
        for item, role in _items(path):
            case = _case(item, role, path)
            if case.id in seen:
                raise InvalidInput(f"case id {case.id!r} appears twice in {path}")
            seen.add(case.id)
            out.append(case)
    return out


_ROLES = {"cases": "update", "controls": "control", "silent": "silent"}
# What each role's entries must give, by the names the file uses.
_REQUIRED = {
    "update": ("id", "project", "old", "new", "question"),
    "control": ("id", "project", "earlier", "later", "question"),
    "silent": ("id", "project", "question"),
}


def _items(path: Path) -> list[tuple[Any, str]]:
    if path.exists() and not path.is_file():  # a device (/dev/zero) would be read without end
        raise InvalidInput(f"update cases {path}: not a regular file; give a JSON file")
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"cannot read update cases from {path}: {exc}") from None
    if isinstance(data, dict):
        lists = {key: data.get(key, []) for key in _ROLES}
    else:
        lists = {"cases": data}
    if not all(isinstance(v, list) for v in lists.values()) or not any(lists.values()):
        raise InvalidInput(f"{path} holds no cases: expected {{'cases': [...]}}")
    return [(item, _ROLES[key]) for key, items in lists.items() for item in items]


def _case(item: Any, role: str, path: Path) -> UpdateCase:
    if not isinstance(item, dict):
        raise InvalidInput(f"an entry of {path} is not an object: {str(item)[:60]!r}")
    missing = [k for k in _REQUIRED[role] if not item.get(k)]
    if missing:
        where = repr(item["id"]) if item.get("id") else f"with question {item.get('question')!r}"
        raise InvalidInput(f"{role} {where} of {path} lacks {', '.join(missing)}")
    distractors = item.get("distractors") or []
    if not isinstance(distractors, list) or not all(isinstance(d, str) for d in distractors):
        raise InvalidInput(f"case {item['id']!r}: distractors must be a list of strings")
    old, new = ("earlier", "later") if role == "control" else ("old", "new")
    return UpdateCase(
        id=str(item["id"]),
        project=str(item["project"]),
        old=str(item.get(old) or ""),
        new=str(item.get(new) or ""),
        question=str(item["question"]),
        distractors=tuple(distractors),
        memory_type=str(item.get("memory_type") or "decision"),
        kind=str(item.get("kind") or ""),
        source=str(item.get("source") or ""),
        role=role,
    )


@dataclass(slots=True)
class _Stored:
    old: str
    new: str
    distractors: tuple[str, ...]


def run_updates(cases: list[UpdateCase], settings: Settings) -> dict[str, Any]:
    """Store every case and ask its question; the report (see the module doc)."""
    projects: dict[str, list[UpdateCase]] = {}
    for case in cases:
        projects.setdefault(case.project, []).append(case)
    results: list[dict[str, Any]] = []
    rules: list[str] = []
    false_links: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="memlode-updates-") as tmp:
        for number, (project, group) in enumerate(projects.items()):
            home = Path(tmp) / f"p{number}"
            with fresh_store(settings, home, project) as fresh, Engine(fresh) as engine:
                stored = _store(engine, group)
                engine.embed_pending()
                made = supersession.linked_pairs(engine.conn, engine.namespace)
                rules.extend(rep.how or "manual" for rep in made)
                updates = [stored[c.id] for c in group if c.role == "update"]
                expected = {(ids.old, ids.new) for ids in updates}
                texts = _texts(group, stored)
                for rep in made:
                    if (rep.old_id, rep.new_id) not in expected:
                        false_links.append(
                            {
                                "old": texts.get(rep.old_id, ""),
                                "new": texts.get(rep.new_id, ""),
                                "how": rep.how,
                            }
                        )
                pairs = {(r.old_id, r.new_id) for r in made}
                for case in group:
                    if case.silent:
                        results.append(_ask_silent(engine, case))
                        continue
                    ids = stored[case.id]
                    result = _ask(engine, case, ids)
                    result["linked"] = (ids.old, ids.new) in pairs
                    # what the MCP store_memory answer puts before the assistant that stored
                    # the later statement: linked, or offered for it to judge (may_replace)
                    linked, maybe = engine.replacing(ids.new)
                    result["offered"] = ids.old in {m.id for m in [*linked, *maybe]}
                    results.append(result)
    return _report(results, rules, false_links)


def _store(engine: Engine, everything: list[UpdateCase]) -> dict[str, _Stored]:
    group = [case for case in everything if not case.silent]
    earlier: dict[str, tuple[str, tuple[str, ...]]] = {}
    for i, case in enumerate(group):
        at = START + timedelta(hours=i)
        old = engine.store(case.old, case.memory_type, created_at=format_ts(at)).id
        distractors = tuple(
            engine.store(d, "decision", created_at=format_ts(at + timedelta(minutes=j + 1))).id
            for j, d in enumerate(case.distractors)
        )
        earlier[case.id] = (old, distractors)
    out: dict[str, _Stored] = {}
    for i, case in enumerate(group):
        at = START + LATER + timedelta(hours=i)
        new = engine.store(case.new, case.memory_type, created_at=format_ts(at)).id
        old, distractors = earlier[case.id]
        out[case.id] = _Stored(old, new, distractors)
    return out


def _texts(group: list[UpdateCase], stored: dict[str, _Stored]) -> dict[str, str]:
    out: dict[str, str] = {}
    for case in group:
        if case.silent:
            continue
        ids = stored[case.id]
        out[ids.old], out[ids.new] = case.old, case.new
        out.update(zip(ids.distractors, case.distractors, strict=True))
    return out


def _ask(engine: Engine, case: UpdateCase, ids: _Stored) -> dict[str, Any]:
    """One question's figures. For a control, "current" is its earlier statement (``old``)
    and "replaced" the later one, which must not be ranked or shown before it."""
    mine = {ids.old, ids.new, *ids.distractors}
    current, replaced = (ids.old, ids.new) if case.control else (ids.new, ids.old)
    hits = engine.search(case.question, SEARCH_K)
    first = next((h.memory.id for h in hits if h.memory.id in mine), None)
    ranked = [h.memory.id for h in hits]
    old_above = replaced in ranked and (
        current not in ranked or ranked.index(replaced) < ranked.index(current)
    )
    text = _injection(engine, case.question)
    lines = [line for line in text.splitlines() if line.startswith("- [")]
    shown = [_shown_as_current(line, case) for line in lines]
    first_shown = next((s for s in shown if s is not None), None)
    want, other = ("old", "new") if case.control else ("new", "old")
    return {
        "id": case.id,
        "project": case.project,
        "role": case.role,
        "search_current_first": first == current,
        "search_old_above_new": old_above,
        "injected": bool(text),
        "injection_current_first": first_shown == want,
        "injection_old_as_current": other in shown,
        "injection_chars": len(text),
    }


def _ask_silent(engine: Engine, case: UpdateCase) -> dict[str, Any]:
    """A silent question: what the prompt hook injects for it, which should be nothing."""
    text = _injection(engine, case.question)
    return {
        "id": case.id,
        "project": case.project,
        "role": case.role,
        "injected": bool(text),
        "injection_chars": len(text),
    }


def _shown_as_current(line: str, case: UpdateCase) -> str | None:
    """Which of the case's statements an injected line shows as current ('new', 'old', 'other'
    for a distractor), or None; what follows "(was: " is history."""
    head = line.split(" (was: ", 1)[0]
    body = head.split("] ", 1)[1] if "] " in head else head
    for name, text in (("new", case.new), ("old", case.old)):
        if _same(body, text):
            return name
    if any(_same(body, d) for d in case.distractors):
        return "other"
    return None


def _same(shown: str, text: str) -> bool:
    flat = " ".join(text.split())
    shown = shown.rstrip("…")
    return bool(shown) and (flat.startswith(shown[:60]) or shown.startswith(flat[:60]))


def _injection(engine: Engine, prompt: str) -> str:
    """What the prompt hook hands over for ``prompt``: the resident's ranking (``Engine.search``
    with its raw cosines), the hook's gate and selection, and its rendering."""
    from memlode.hook_settings import HookSettings
    from memlode.hooks import _recall, _resident
    from memlode.hooks.injection import prompt_context

    hooks = HookSettings()  # the user's [hooks] settings, as the hook reads them
    question = _recall.asks(prompt)
    limit = hooks.prompt_memories(question)
    hits = engine.search(prompt, limit * 3)
    cosines = _cosines(engine, prompt, [h.memory.id for h in hits])
    payload = []
    for hit in hits:
        item: dict[str, Any] = {name: getattr(hit.memory, name) for name in _HIT_FIELDS}
        item.update(
            memory_type=str(hit.memory.memory_type),
            tags=list(hit.memory.tags),
            score=hit.score,
            signals={**hit.signals, "cosine": cosines.get(hit.memory.id, 0.0)},
        )
        payload.append(item)
    # A case's project is its name and a description ("pacekeeper (Kotlin Android running
    # app)"); a real namespace is the name alone, which is all the gate leaves out.
    name = engine.namespace.split(" (", 1)[0]
    found = _resident.recalled(engine.conn, payload, prompt, limit, project=name)
    return prompt_context(found, hooks.prompt_budget_chars(question))


def _cosines(engine: Engine, query: str, ids: list[str]) -> dict[str, float]:
    embeddings = engine.embeddings
    index = embeddings.index if embeddings.embedder is not None else None
    if not ids or index is None or len(index) == 0:
        return {}
    vector = embeddings.embed_query(query)
    if vector is None:
        return {}
    return dict(zip(ids, (float(c) for c in index.similarities(vector, ids)), strict=True))


def _share(results: list[dict[str, Any]], key: str) -> float:
    return round(sum(1 for r in results if r[key]) / len(results), 4) if results else 0.0


def _report(
    every: list[dict[str, Any]], rules: list[str], false_links: list[dict[str, str]]
) -> dict[str, Any]:
    links_made = len(rules)
    wrong = Counter(link["how"] or "manual" for link in false_links)
    results = [r for r in every if r["role"] == "update"]
    controls = [r for r in every if r["role"] == "control"]
    silent = [r for r in every if r["role"] == "silent"]
    missed = [r["id"] for r in results if not r["linked"]]
    return {
        "cases": len(results),
        "linked": _share(results, "linked"),
        "links_made": links_made,
        "false_supersessions": len(false_links),
        "false_supersession_rate": round(len(false_links) / links_made, 4) if links_made else 0.0,
        "search_current_first": _share(results, "search_current_first"),
        "search_old_above_new": _share(results, "search_old_above_new"),
        "injected": _share(results, "injected"),
        "injection_current_first": _share(results, "injection_current_first"),
        "injection_old_as_current": _share(results, "injection_old_as_current"),
        "linked_or_offered": _share(results, "offered"),
        "controls": len(controls),
        "controls_linked": sum(1 for r in controls if r["linked"]),
        "controls_offered": sum(1 for r in controls if r["offered"]),
        "controls_search_earlier_first": _share(controls, "search_current_first"),
        "controls_injection_earlier_first": _share(controls, "injection_current_first"),
        "controls_injected": _share(controls, "injected"),
        "silent": len(silent),
        "silent_injected": _share(silent, "injected"),
        "not_linked": missed,
        "false_links": false_links,
        # which rule made the links, and how many of each were false: what to read first
        "links_by_rule": {
            rule: {"links": n, "false": wrong[rule]} for rule, n in Counter(rules).most_common()
        },
        "per_case": every,
    }


def format_updates(report: dict[str, Any]) -> str:
    """The report as a few lines of text."""
    lines = []
    if report["cases"]:
        lines += [
            f"update cases: {report['cases']}",
            f"  linked (expected pair found):   {report['linked']:.1%}",
            f"  linked or offered when stored:  {report['linked_or_offered']:.1%}"
            "  (MCP store_memory: replaces, may_replace)",
            f"  search: current first           {report['search_current_first']:.1%}"
            f"  (replaced above current {report['search_old_above_new']:.1%})",
            f"  injection: current first        {report['injection_current_first']:.1%}"
            f"  (injected {report['injected']:.1%},"
            f" replaced shown as current {report['injection_old_as_current']:.1%})",
        ]
    if report["controls"]:
        lines += [
            f"controls (a later statement that replaces nothing): {report['controls']}",
            f"  linked (false):                 {report['controls_linked']}",
            f"  offered when stored:            {report['controls_offered']}"
            "  (the assistant is to decline)",
            f"  search: earlier first           {report['controls_search_earlier_first']:.1%}",
            f"  injection: earlier first        {report['controls_injection_earlier_first']:.1%}"
            f"  (injected {report['controls_injected']:.1%})",
        ]
    if report["silent"]:
        lines += [
            f"silent questions (no statement answers them): {report['silent']}",
            f"  injected (should be none):      {report['silent_injected']:.1%}",
        ]
    lines.append(
        f"false supersessions: {report['false_supersessions']} of {report['links_made']} links"
        f" ({report['false_supersession_rate']:.1%})"
    )
    if report["links_by_rule"]:
        lines.append(
            "  by rule: "
            + ", ".join(
                f"{rule} {n['links']} ({n['false']} false)"
                for rule, n in report["links_by_rule"].items()
            )
        )
    if report["not_linked"]:
        lines.append(f"  not linked: {', '.join(report['not_linked'])}")
    for link in report["false_links"]:
        rule = link["how"] or "manual"
        lines.append(f"  false link ({rule}): {link['new'][:60]!r} -> {link['old'][:60]!r}")
    return "\n".join(lines)
