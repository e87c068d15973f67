"""Supersession: which stored statement is current, and which one it replaced.

- ``plan_replacements`` and ``record``: each memory a user stores (source ``memory``: the
  CLI's and MCP's ``memory_store``, the engine's ``store``) is read against the namespace's
  earlier stored statements by the rules of :mod:`memlode.engine.supersede_rules`; the one it
  replaces is linked (``storage.supersession``: new ``SUPERSEDES`` old, old ``INVALIDATED_BY``
  new, at the new one's time). The rules read on a reading connection once the insert has
  committed, and only the links are written, in a short transaction of their own: reading up
  to ``CANDIDATES`` statements inside the insert's write lock kept every other writer waiting
  (eight processes storing at once timed out).
- ``supersede`` / ``unsupersede``: the manual link for what the rules miss, and its undo.
- ``decision_chain``: a memory's replacements in order, with their dates.

What reads the links: search ranks a replaced row below its replacement
(``memlode.search.hybrid``), the prompt hook and SessionStart hand over the current one with the
replaced one as history (``memlode.hooks.injection``), the dashboard marks it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memlode.engine.supersede_rules import Statement, best_match, has_cue, kept_apart, terms
from memlode.errors import InvalidInput, NotFound
from memlode.search.statements import adds, sittings_apart
from memlode.storage import memories as memory_repo
from memlode.storage import supersession as links
from memlode.types import Memory, MemoryType, format_ts, utcnow

if TYPE_CHECKING:
    from memlode.storage.sql import Connection
    from memlode.storage.store import Store

__all__ = [
    "CAPTURED",
    "DETECTED_SOURCES",
    "decision_chain",
    "fields",
    "marked",
    "new_statements",
    "plan_by_meaning",
    "plan_replacements",
    "record",
    "replaced",
    "replaced_by_it",
    "same_subject",
    "supersede",
    "unsupersede",
]

# What the rules read, on both ends: what a user stored on purpose (``links.STATED_SOURCES``).
DETECTED_SOURCES = links.STATED_SOURCES
# Every kind of statement, a pattern too: a detected one (a count over sessions, not a choice) is
# written by consolidation (source ``consolidation``), never from ``DETECTED_SOURCES``, and one a
# user stores ("data access goes through one repository per aggregate") is a choice that a
# later one replaces (training update set C, session 32: its pattern cases were never read).
DETECTED_TYPES = tuple(str(t) for t in MemoryType)
# Earlier statements read per new one, newest first. The rules cost about 7 us per candidate in
# Python (2,000 candidates: ~15 ms a store, and eight processes storing 500 similar memories each
# spent a minute in them, session 18); what a user stored further back is linked by hand
# (``memlode supersede``).
CANDIDATES = 500
# A longer text is a document, not a statement: the rules would find some overlap in anything.
MAX_STATEMENT_CHARS = 1500
MANUAL = "manual"
# What the user told the assistant to do, as the prompt hook keeps it (source ``hook``, tag
# ``instruction``: memlode.hooks.prompt), and what the user chose when the assistant asked
# (tag ``asked-user``: an AskUserQuestion answer, memlode.hooks.extract): statements too, read
# by the supersede consolidation cycle (engine/consolidation/supersede.py) rather than in the
# hook, which stays light. A choice made in the assistant's own dialog is as much a decision
# as one stored on purpose, and as often changed later in the session.
CAPTURED = ("hook", ("instruction", "asked-user"))


def new_statements(items: Sequence[Any], stored: Sequence[tuple[str, bool]]) -> list[str]:
    """The ids of a batch just stored that the rules read: ``items`` (each a ``NewMemory``) and
    their (id, created) in the same order; a duplicate is not new."""
    return [
        memory_id
        for item, (memory_id, created) in zip(items, stored, strict=True)
        if created and item.source in DETECTED_SOURCES
    ]


def record(conn: Connection, found: Sequence[links.Replacement]) -> list[links.Replacement]:
    """Write the links ``plan_replacements`` found (inside a write transaction); those made
    (a pair already linked is not made again)."""
    ids = list(dict.fromkeys([i for r in found for i in (r.old_id, r.new_id)]))
    rows = memory_repo.fetch_many(conn, ids) if ids else {}
    made: list[links.Replacement] = []
    for rep in found:
        old, new = rows.get(rep.old_id), rows.get(rep.new_id)
        if old is None or new is None:  # deleted since it was read
            continue
        pair = (new.id, new.content, new.namespace), (old.id, old.content, old.namespace)
        if links.link(conn, *pair, rep.at, rep.how):
            made.append(rep)
    return made


def plan_replacements(
    conn: Connection, memory_ids: Sequence[str], *, captured: bool = False
) -> list[links.Replacement]:
    """Each of ``memory_ids`` (stored, oldest first) with the earlier statement it replaces, if
    the rules find one, written nowhere (``record`` writes them; a dry run shows them). With
    ``captured`` the user's instructions the prompt hook kept (``CAPTURED``) are statements
    too, on both ends."""
    out: list[links.Replacement] = []
    stored = memory_repo.fetch_many(conn, list(memory_ids))
    for memory in (stored[i] for i in memory_ids if i in stored):
        found = _replaced_statement(conn, memory, captured)
        if found is not None:
            out.append(links.Replacement(found[0], memory.id, memory.created_at, found[2]))
    return out


def _earlier(conn: Connection, memory: Memory, captured: bool) -> list[tuple[str, str, str]]:
    """The statements a new one is read against: (id, content, created_at), newest first."""
    rows = links.earlier_statements(
        conn,
        memory.namespace,
        DETECTED_SOURCES,
        DETECTED_TYPES,
        memory.created_at,
        [memory.id],
        CANDIDATES,
        CAPTURED if captured else None,
    )
    return [r for r in rows if len(r[1]) <= MAX_STATEMENT_CHARS]


def _replaced_statement(
    conn: Connection, memory: Memory, captured: bool
) -> tuple[str, str, str] | None:
    told = captured and memory.source == CAPTURED[0] and bool(set(CAPTURED[1]) & set(memory.tags))
    stated = memory.source in DETECTED_SOURCES and str(memory.memory_type) in DETECTED_TYPES
    if not (told or stated) or len(memory.content) > MAX_STATEMENT_CHARS:
        return None
    rows = _earlier(conn, memory, captured)
    if not rows:
        return None
    # whether a candidate was replaced matters only to one the rules read (a shared subject
    # word): asked for those alone, not for every candidate
    subject = terms(memory.content)
    replaced = links.replaced_by(conn, [r[0] for r in rows if terms(r[1]) & subject])
    # what the new one already replaced by hand, or what replaced it, is no candidate
    known = {r.new_id for r in replaced.values() if r.old_id == memory.id}
    earlier = [
        Statement(r[0], r[1], r[2], superseded=r[0] in replaced) for r in rows if r[0] not in known
    ]
    match = best_match(Statement(memory.id, memory.content, memory.created_at), earlier)
    if match is None:
        return None
    content = next(r[1] for r in rows if r[0] == match.old_id)
    return match.old_id, content, match.rule


# The meaning rule, for what the wording rules miss ("Top speed is 0.5 m/s now" after "Nav2
# caps linear velocity at 0.8 m/s", "We build with CMake now; mkmf is gone" after "The model is
# built from a hand-maintained Makefile"): a statement that says it changes something, whose
# nearest earlier statement by the embedding is near (MEANING_MIN_COSINE), clearly nearer than
# any other (MEANING_MARGIN), and shares MEANING_MIN_SHARED subject words with it. It reads
# vectors, so it runs once the new statement is embedded (``EmbeddingOps.embed_pending``).
# Chosen on the update cases (bench/RESULTS.md, "Session 27"): the replaced statement is the
# nearest earlier one for 126 of 132 new statements; a nearest neighbour on a different subject
# is as near as 0.65, which the cue and the shared words keep out.
# 0.45 until session 28: 11 of 40 held-out later statements that only add to an earlier one
# were linked at 0.53-0.70; the held-out replacements it linked are at 0.67-0.90.
MEANING_MIN_COSINE = 0.65
MEANING_MARGIN = 0.05
MEANING_MIN_SHARED = 2
MEANING_RULE = "same-meaning"


# Statements of one sitting (``search.statements.sittings_apart``) are read as parts of one
# account by the meaning rule, not as an answer that replaces an earlier one. (The update sets
# store a project's earlier statements within hours and their replacements a month later; real
# sessions change their minds within minutes too, which is why the wording rules keep no such
# gap.)


def plan_by_meaning(
    conn: Connection,
    memory_ids: Sequence[str],
    cosines: Callable[[str, list[str]], list[float]],
) -> list[links.Replacement]:
    """Of ``memory_ids`` (just embedded), the statements that replace nothing yet and that the
    meaning rule links to an earlier one of an earlier sitting (``sittings_apart``), written
    nowhere (``record`` writes them);
    ``cosines(id, others)`` is the cosine of a memory's vector with each of the others'."""
    stored = memory_repo.fetch_many(conn, list(memory_ids))
    new = [
        m
        for m in (stored[i] for i in memory_ids if i in stored)
        if m.source in DETECTED_SOURCES
        and str(m.memory_type) in DETECTED_TYPES
        and len(m.content) <= MAX_STATEMENT_CHARS
        and has_cue(m.content)
        and not adds(m.content)
    ]
    done = links.replacements_of(conn, [m.id for m in new]) if new else {}
    out: list[links.Replacement] = []
    for memory in new:
        if done.get(memory.id):
            continue
        rows = [
            r
            for r in _earlier(conn, memory, captured=False)
            if sittings_apart(r[2], memory.created_at)
        ]
        if not rows:
            continue
        sims = cosines(memory.id, [r[0] for r in rows])
        order = sorted(range(len(rows)), key=lambda i: -sims[i])
        best = order[0]
        second = sims[order[1]] if len(order) > 1 else 0.0
        if sims[best] < MEANING_MIN_COSINE or sims[best] - second < MEANING_MARGIN:
            continue
        old_id, old_text, _at = rows[best]
        if len(terms(old_text) & terms(memory.content)) < MEANING_MIN_SHARED:
            continue
        if kept_apart(memory.content, old_text):
            continue
        if links.replaced_by(conn, [old_id]):  # what replaced it is what this one replaces
            continue
        out.append(links.Replacement(old_id, memory.id, memory.created_at, MEANING_RULE))
    return out


def replaced_by_it(conn: Connection, memory_id: str) -> list[str]:
    """The memories ``memory_id`` replaced, oldest link first."""
    return [r.old_id for r in links.replacements_of(conn, [memory_id]).get(memory_id, [])]


# What a statement the rules linked to nothing may still replace, offered to whoever stored it
# to judge (the MCP ``store_memory`` answer: the assistant reads both and links what it sees
# replaced): the earlier statements of its type this near by meaning, nearest first. Chosen on
# the training update sets (bench/update_train_a.json, _b.json: 72 replacements, 22 linked by
# the rules): at 0.65 the replaced statement is offered for 42 of the other 50, with 43 other
# statements offered over the 72; at 0.75, 28 of 50 with 10 others (bench/RESULTS.md,
# "Session 30").
SUGGEST_MIN_COSINE = 0.65
SUGGESTIONS = 3


def same_subject(
    conn: Connection,
    memory_id: str,
    cosines: Callable[[str, list[str]], list[float]],
    limit: int = SUGGESTIONS,
) -> list[str]:
    """Earlier statements of ``memory_id``'s type, nearest first, at cosine
    ``SUGGEST_MIN_COSINE`` or more, that nothing marks as history and that it does not replace
    already: what it may replace, for a reader to judge. None for a statement that says it adds
    ("also") or that is not one (a note of what happened, a document)."""
    memory = memory_repo.fetch_many(conn, [memory_id]).get(memory_id)
    if (
        memory is None
        or memory.source not in DETECTED_SOURCES
        or str(memory.memory_type) not in DETECTED_TYPES
        or len(memory.content) > MAX_STATEMENT_CHARS
        or adds(memory.content)
    ):
        return []
    linked = set(replaced_by_it(conn, memory_id))
    rows = [r[0] for r in _earlier(conn, memory, captured=False) if r[0] not in linked]
    kinds = memory_repo.fetch_many(conn, rows) if rows else {}
    rows = [i for i in rows if i in kinds and kinds[i].memory_type == memory.memory_type]
    if not rows:
        return []
    sims = cosines(memory_id, rows)
    near = sorted(
        (i for i in range(len(rows)) if sims[i] >= SUGGEST_MIN_COSINE), key=lambda i: -sims[i]
    )
    history = links.replaced_by(conn, [rows[i] for i in near]) if near else {}
    return [rows[i] for i in near if rows[i] not in history][:limit]


def _pair(conn: Connection, old_id: str, new_id: str) -> tuple[Memory, Memory]:
    if not old_id or not new_id:
        raise InvalidInput("give two memory ids: the replaced one, then the one replacing it")
    if old_id == new_id:
        raise InvalidInput(f"a memory cannot replace itself ({old_id})")
    found = memory_repo.fetch_many(conn, [old_id, new_id])
    for memory_id in (old_id, new_id):
        if memory_id not in found:
            raise NotFound(f"no memory with id {memory_id!r}")
    old, new = found[old_id], found[new_id]
    if old.namespace != new.namespace:
        raise InvalidInput(
            f"{old_id} is in namespace {old.namespace!r} and {new_id} in {new.namespace!r}:"
            " a memory replaces one of its own project"
        )
    return old, new


def supersede(db: Store, old_id: str, new_id: str) -> dict[str, Any]:
    """Record by hand that ``new_id`` replaces ``old_id`` (same namespace); the link, with
    ``created`` False when it was there already."""
    with db.write() as conn:
        old, new = _pair(conn, old_id, new_id)
        backwards = links.replaced_by(conn, [new_id]).get(new_id)
        if backwards is not None and backwards.new_id == old_id:
            raise InvalidInput(
                f"{old_id} already replaces {new_id}; undo that first"
                f" (memlode supersede --undo {new_id} {old_id})"
            )
        # when the replacement happened: the newer one's creation, or now for an older one
        at = new.created_at if new.created_at >= old.created_at else format_ts(utcnow())
        created = links.link(
            conn,
            (new.id, new.content, new.namespace),
            (old.id, old.content, old.namespace),
            at,
            MANUAL,
        )
    return {"old": old_id, "new": new_id, "at": at, "created": created}


def unsupersede(db: Store, old_id: str, new_id: str) -> dict[str, Any]:
    """Remove the link saying ``new_id`` replaces ``old_id`` (a rule's or a user's)."""
    with db.write() as conn:
        _pair(conn, old_id, new_id)
        if not links.unlink(conn, new_id, old_id):
            raise NotFound(f"{new_id} does not replace {old_id}: nothing to undo")
    return {"old": old_id, "new": new_id, "removed": True}


def replaced(ids: Sequence[str], conn: Connection) -> dict[str, dict[str, str]]:
    """Of ``ids``, those a later memory replaced: id -> {"replaced_by": what replaced it (the
    latest), "replaced_at": when}, the fields search hits and ``memlode get`` add (as a chain
    member's ``replaced_by`` and ``until``)."""
    if not ids:
        return {}
    return {old: fields(rep) for old, rep in links.replaced_by(conn, ids).items()}


def marked(conn: Connection, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each memory (a dict with its ``id``) that a later one replaced gets ``replaced_by`` and
    ``replaced_at`` of its latest replacement, as search hits carry them: every listing of
    memories handed over (a neighbour, an expansion, a walk, a decision chain) says which of
    them is history."""
    found = replaced([str(i["id"]) for i in items], conn)
    for item in items:
        item.update(found.get(str(item["id"]), {}))
    return items


def fields(rep: links.Replacement) -> dict[str, str]:
    """A replacement as the fields a replaced memory's listing adds."""
    return {"replaced_by": rep.new_id, "replaced_at": rep.at}


def decision_chain(conn: Connection, memory_id: str) -> dict[str, Any]:
    """The memory's chain of replacements, oldest first: each member with its dates (from, and
    until when a later one replaced it), which one is current, and each link's rule."""
    if memory_repo.fetch(conn, memory_id) is None:
        raise NotFound(f"no memory with id {memory_id!r}")
    reps = links.chain_members(conn, memory_id)
    ids = list(dict.fromkeys([memory_id, *(r.old_id for r in reps), *(r.new_id for r in reps)]))
    memories = memory_repo.fetch_many(conn, ids)
    until: dict[str, links.Replacement] = {}
    for rep in reps:
        known = until.get(rep.old_id)
        if known is None or rep.at > known.at:
            until[rep.old_id] = rep
    members = sorted(
        (m for m in memories.values()), key=lambda m: (m.created_at, m.id)
    )  # oldest first
    chain = [
        {
            "id": m.id,
            "content": m.content,
            "memory_type": str(m.memory_type),
            "from": m.created_at,
            "until": until[m.id].at if m.id in until else None,
            "replaced_by": until[m.id].new_id if m.id in until else None,
            "how": until[m.id].how if m.id in until else None,
            "current": m.id not in until,
        }
        for m in members
    ]
    return {"id": memory_id, "chain": chain, "links": len(reps)}
