"""Which memory replaced which: the ``SUPERSEDES`` / ``INVALIDATED_BY`` edge pair in
``graph_edges``, written, removed and read.

A replacement is two edges with the same time (``created_at``: when the new memory took over,
i.e. its own creation time): new ``SUPERSEDES`` old and old ``INVALIDATED_BY`` new, with
properties ``{"how": <rule or "manual">}``. The consolidation's reflect cycle writes the first
of them for its insights; a row is superseded when either edge says so, as the forget cycle
reads it (``storage.archive``).

Import-light (the prompt hook reads which of its recalled rows were replaced): nothing but
``capture``'s node insert, whose module a hook already imports. The SQL runs on both backends.
"""

from __future__ import annotations

from memlode.storage.capture import ensure_memory_node
from memlode.storage.sql import dialect_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.storage.sql import Connection

__all__ = [
    "ASKED_GAP",
    "ASKED_SUBJECT_COSINE",
    "CENTRED_FLOOR",
    "CENTRED_MIN_STATEMENTS",
    "SAME_SUBJECT_COSINE",
    "SAME_SUBJECT_MARGIN",
    "SITTING_SECONDS",
    "STATED_SOURCES",
    "Replacement",
    "captured_after",
    "chain_members",
    "current_of",
    "earlier_statements",
    "link",
    "linked_pairs",
    "replaced_by",
    "replacements_of",
    "stated_ids",
    "statements",
    "unlink",
]

# memlode.types.Relationship's names, not imported: the hooks read this module (injection),
# and memlode.types loads json, re and datetime
SUPERSEDES = "SUPERSEDES"
INVALIDATED_BY = "INVALIDATED_BY"
# What a user stored on purpose (its source): a statement of what holds. Conversation turns,
# memory files and the hooks' observations are records of what happened.
STATED_SOURCES = ("memory",)
# Two stated memories whose vectors are this alike (cosine of their embedded texts, which carry
# the project's name and the memory's type) are on one subject: search puts a later one before
# an earlier one it is nearest to (``search.hybrid._later_first``). Update sets (session 28):
# 56% of the held-out replacements are this close to what they replace, 5% of the later
# statements that only add to an earlier one, 0.6% of unrelated pairs of one project.
SAME_SUBJECT_COSINE = 0.75
SAME_SUBJECT_MARGIN = 0.0  # nearer than any other earlier one among the hits, by this much
# Less alike (ASKED_SUBJECT_COSINE), a later statement is on the earlier one's subject as the
# question asks it when it answers the question nearly as well: its cosine with the question at
# most ASKED_GAP below the earlier one's. A replacement said in other words ("Card payments are
# handled by Adyen Drop-in; Adyen is our only PSP" after "Payment provider: Stripe") is matched
# by the question about as well as what it replaces; a later statement on a neighbouring subject
# ("Moved the Doctrine result cache to Redis" beside "Sessions are stored in Redis", asked
# "where are sessions stored?") is matched clearly worse. Training update sets A-G (session
# 34): cases first in search +13 points summed over six sets, controls -6.4; at a gap of 0.18,
# +27 and -21 (bench/RESULTS.md, "Session 34").
ASKED_SUBJECT_COSINE = 0.65
ASKED_GAP = 0.12
# What a project's stated memories share (its name and the memory's type in the embedded
# header, its words) makes its short statements alike whatever their subjects: in a store of ten
# decisions of one Go service, one on each subject, "Feature flags in ferry are read from
# environment variables at start" is at cosine 0.69 to "ferry logs JSON lines through zerolog
# to stdout" stored days before, and "How does ferry do logging?" matches both about as well
# (ASKED_GAP), so search put the flags first. Less the mean of the namespace's stated vectors
# (once it has CENTRED_MIN_STATEMENTS), unrelated statements are near 0 (at most 0.10 there)
# and a replacement stays clearly alike to what it replaces (0.21-0.31 there; a median of 0.61
# in the training update sets, whose projects hold several statements a subject): search's
# same-subject step does not read two statements as one subject below CENTRED_FLOOR. Training
# update sets A-G (session 37), summed over six sets: cases first in search +5 points and in
# injection +3.9, controls in injection +2.5, none lower; the held-out sets unchanged. Read as
# the measure itself (a threshold of 0.5) it gained more on the update sets but lost
# replacements in the sparse store (bench/RESULTS.md, "Session 37").
CENTRED_FLOOR = 0.15
CENTRED_MIN_STATEMENTS = 8
# Statements stored within SITTING_SECONDS of each other (several decisions stored in one go, a
# description given in parts) are parts of one account: neither is read as the later answer
# that replaces the other by its meaning (``engine.supersession``), nor put before it by search
# as on its subject (``search.hybrid._later_first``); a change of mind within a sitting says
# what it drops ("instead of Jest", "Redis is dropped"), which the wording rules read. Training
# update set G (session 33): 7 of the meaning rule's 10 false links joined a fact to another
# stated a minute before it ("We no longer store Celery results in Redis" after "Celery broker
# is Redis"); no true link of any set was that close. Search (session 36): a neighbouring fact
# stored a minute after an earlier statement went before it for 28 of the training sets'
# controls; kept apart, those controls answer with the earlier one. One case was lost: its
# replacement had gone first only behind such a neighbour.
SITTING_SECONDS = 3600
# The longest chain followed to its current end (a guard against a cycle a user linked by hand).
MAX_CHAIN = 50
_CHUNK = 500


class Replacement:
    """One replacement: ``new_id`` replaced ``old_id`` at ``at`` (how: a rule's name or
    ``manual``)."""

    __slots__ = ("at", "how", "new_id", "old_id")

    def __init__(self, old_id: str, new_id: str, at: str, how: str = "") -> None:
        self.old_id = old_id
        self.new_id = new_id
        self.at = at
        self.how = how

    def __repr__(self) -> str:
        return f"Replacement({self.old_id!r} -> {self.new_id!r} at {self.at!r}, {self.how!r})"


def link(
    conn: Connection,
    new: tuple[str, str, str],
    old: tuple[str, str, str],
    at: str,
    how: str,
) -> bool:
    """Record that ``new`` replaced ``old`` (each (id, content, namespace)) at ``at``; True
    when the pair is new (an existing pair keeps its time and rule)."""
    for memory_id, content, namespace in (new, old):
        ensure_memory_node(conn, memory_id, content, namespace)
    from memlode.storage import graph  # the write path only: the hooks read this module
    from memlode.types import Edge, Relationship

    added = False
    for source, target, relationship in (
        (new[0], old[0], Relationship.SUPERSEDES),
        (old[0], new[0], Relationship.INVALIDATED_BY),
    ):
        edge = Edge(source, target, relationship, properties={"how": how}, created_at=at)
        added = graph.add_edge(conn, edge, keep_existing=True) or added
    return added


def unlink(conn: Connection, new_id: str, old_id: str) -> bool:
    """Remove the replacement of ``old_id`` by ``new_id`` (both edges); True if there was one."""
    cur = conn.execute(
        "DELETE FROM graph_edges WHERE (source_id = ? AND target_id = ? AND relationship = ?)"
        " OR (source_id = ? AND target_id = ? AND relationship = ?)",
        (new_id, old_id, SUPERSEDES, old_id, new_id, INVALIDATED_BY),
    )
    return bool(cur.rowcount)


def _pairs(conn: Connection, where: str, ids: Sequence[str]) -> list[Replacement]:
    """Replacements whose ``where`` end ('old' or 'new') is one of ``ids``, each pair once."""
    out: dict[tuple[str, str], Replacement] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        if where == "old":
            sql = (
                "SELECT target_id, source_id, created_at, properties FROM graph_edges"
                f" WHERE relationship = ? AND target_id IN ({marks})"
                " UNION ALL SELECT source_id, target_id, created_at, properties FROM graph_edges"
                f" WHERE relationship = ? AND source_id IN ({marks})"
            )
        else:
            sql = (
                "SELECT target_id, source_id, created_at, properties FROM graph_edges"
                f" WHERE relationship = ? AND source_id IN ({marks})"
                " UNION ALL SELECT source_id, target_id, created_at, properties FROM graph_edges"
                f" WHERE relationship = ? AND target_id IN ({marks})"
            )
        for old_id, new_id, at, props in conn.execute(
            sql, (SUPERSEDES, *chunk, INVALIDATED_BY, *chunk)
        ):
            key = (str(old_id), str(new_id))
            if key not in out:
                out[key] = Replacement(key[0], key[1], str(at or ""), _how(props))
    return list(out.values())


def _how(props: object) -> str:
    from memlode.fastjson import loads

    try:
        value = loads(props) if isinstance(props, str) else props
    except ValueError:
        return ""
    how = value.get("how") if isinstance(value, dict) else None
    return how if isinstance(how, str) else ""


def replaced_by(conn: Connection, ids: Sequence[str]) -> dict[str, Replacement]:
    """Of ``ids``, those a later memory replaced: id -> its latest replacement."""
    out: dict[str, Replacement] = {}
    for rep in _pairs(conn, "old", ids):
        known = out.get(rep.old_id)
        if known is None or (rep.at, rep.new_id) > (known.at, known.new_id):
            out[rep.old_id] = rep
    return out


def replacements_of(conn: Connection, ids: Sequence[str]) -> dict[str, list[Replacement]]:
    """Of ``ids``, those that replaced earlier memories: id -> what each replaced, oldest
    first."""
    out: dict[str, list[Replacement]] = {}
    for rep in _pairs(conn, "new", ids):
        out.setdefault(rep.new_id, []).append(rep)
    for reps in out.values():
        reps.sort(key=lambda r: (r.at, r.old_id))
    return out


def chain_members(conn: Connection, memory_id: str) -> list[Replacement]:
    """Every replacement connected to ``memory_id`` through replacements, either way (its
    predecessors, its successors, and theirs), at most ``MAX_CHAIN`` steps out."""
    seen = {memory_id}
    frontier = [memory_id]
    found: dict[tuple[str, str], Replacement] = {}
    for _step in range(MAX_CHAIN):
        if not frontier:
            break
        nxt: list[str] = []
        for rep in _pairs(conn, "old", frontier) + _pairs(conn, "new", frontier):
            found[(rep.old_id, rep.new_id)] = rep
            for end in (rep.old_id, rep.new_id):
                if end not in seen:
                    seen.add(end)
                    nxt.append(end)
        frontier = nxt
    return sorted(found.values(), key=lambda r: (r.at, r.old_id, r.new_id))


def linked_pairs(conn: Connection, namespace: str) -> list[Replacement]:
    """Every replacement between memories of ``namespace`` (the update evaluation's count)."""
    rows = conn.execute(
        "SELECT e.target_id, e.source_id, e.created_at, e.properties FROM graph_edges AS e"
        " JOIN memories AS m ON m.id = e.source_id"
        " WHERE e.relationship = ? AND m.namespace = ?"
        " UNION SELECT e.source_id, e.target_id, e.created_at, e.properties FROM graph_edges AS e"
        " JOIN memories AS m ON m.id = e.source_id"
        " WHERE e.relationship = ? AND m.namespace = ?",
        (SUPERSEDES, namespace, INVALIDATED_BY, namespace),
    ).fetchall()
    out: dict[tuple[str, str], Replacement] = {}
    for old_id, new_id, at, props in rows:
        out.setdefault(
            (str(old_id), str(new_id)),
            Replacement(str(old_id), str(new_id), str(at or ""), _how(props)),
        )
    return sorted(out.values(), key=lambda r: (r.at, r.old_id))


def earlier_statements(
    conn: Connection,
    namespace: str,
    sources: Sequence[str],
    types: Sequence[str],
    before: str,
    exclude: Sequence[str],
    limit: int,
    captured: tuple[str, tuple[str, ...]] | None = None,
) -> list[tuple[str, str, str]]:
    """(id, content, created_at) of the namespace's rows from ``sources`` of ``types`` (and,
    with ``captured`` (source, tags), the rows of that source with one of those tags, of any
    type) created at or before ``before``, newest first, at most ``limit``, but ``exclude``."""
    src = ",".join("?" * len(sources)) or "''"
    kinds = ",".join("?" * len(types)) or "''"
    skip = ",".join("?" * len(exclude)) or "''"
    chosen = f"(source IN ({src}) AND memory_type IN ({kinds}))"
    params: list[object] = [*sources, *types]
    if captured is not None:
        tagged = dialect_of(conn).json_has_any("tags", len(captured[1]))
        chosen = f"({chosen} OR (source = ? AND {tagged}))"
        params += [captured[0], *captured[1]]
    rows = conn.execute(
        f"SELECT id, content, created_at FROM memories WHERE namespace = ? AND {chosen}"
        f" AND created_at <= ? AND id NOT IN ({skip})"
        " ORDER BY created_at DESC, id DESC LIMIT ?",
        (namespace, *params, before, *exclude, limit),
    ).fetchall()
    return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]


def captured_after(
    conn: Connection,
    namespace: str,
    captured: tuple[str, tuple[str, ...]],
    after: str,
    limit: int,
) -> list[tuple[str, str]]:
    """(id, created_at) of the namespace's rows of ``captured`` (source, and one of its tags)
    created after ``after``, oldest first, at most ``limit``."""
    rows = conn.execute(
        "SELECT id, created_at FROM memories WHERE namespace = ? AND source = ?"
        f" AND {dialect_of(conn).json_has_any('tags', len(captured[1]))} AND created_at > ?"
        " ORDER BY created_at, id LIMIT ?",
        (namespace, captured[0], *captured[1], after, limit),
    ).fetchall()
    return [(str(r[0]), str(r[1])) for r in rows]


def stated_ids(conn: Connection, namespace: str) -> list[str]:
    """The ids of the namespace's stated memories (``STATED_SOURCES``)."""
    marks = ",".join("?" * len(STATED_SOURCES))
    rows = conn.execute(
        f"SELECT id FROM memories WHERE source IN ({marks}) AND namespace = ?",
        (*STATED_SOURCES, namespace),
    ).fetchall()
    return [str(r[0]) for r in rows]


def statements(conn: Connection, ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
    """id -> (content, memory_type, created_at) of those of ``ids`` that exist."""
    out: dict[str, tuple[str, str, str]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        for memory_id, content, memory_type, created_at in conn.execute(
            f"SELECT id, content, memory_type, created_at FROM memories WHERE id IN ({marks})",
            chunk,
        ):
            out[str(memory_id)] = (str(content), str(memory_type), str(created_at))
    return out


def current_of(conn: Connection, ids: Sequence[str]) -> dict[str, str]:
    """Of ``ids``, those a later memory replaced: id -> the end of its chain (the current one,
    each step its latest replacement)."""
    out: dict[str, str] = {}
    step = replaced_by(conn, ids)
    ends = {old: rep.new_id for old, rep in step.items()}
    for _hop in range(MAX_CHAIN):
        if not ends:
            break
        onward = replaced_by(conn, list(set(ends.values())))
        still: dict[str, str] = {}
        for start, end in ends.items():
            if end in onward and onward[end].new_id != start:
                still[start] = onward[end].new_id
            else:
                out[start] = end
        ends = still
    out.update(ends)
    return out
