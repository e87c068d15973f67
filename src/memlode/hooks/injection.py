"""What the hooks put into the assistant's context, always within a character budget.

- ``session_context``: the SessionStart block: recent session summaries, curated
  decisions/insights/patterns, recent changes, file hotspots, the code map that ``memlode
  index`` left for the project (up to ``MAP_SHARE`` of the budget) and a line of stats; '' for
  a project with nothing stored.
- ``prompt_context``: the UserPromptSubmit block: the few recalled memories that passed the gate.

Every line is redacted again before it is injected (secrets may predate the redactor, or have
been stored through another path). Lines are added in priority order until the budget is spent;
a line that does not fit is clipped once and then the block ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Set

from memlode.fastjson import dumps
from memlode.project import readable_name
from memlode.redact import redact
from memlode.storage import briefing, supersession
from memlode.storage.capture import (
    COMMAND_REST,
    FAILURE_TAG,
    HOOK_SOURCE,
    REFLECTION_TAG,
    SUMMARY_SOURCE,
)
from memlode.textutil import stem

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence
    from typing import Any

    from memlode.hooks._recall import Recalled

__all__ = ["excerpt", "failure_excerpt", "hook_output", "prompt_context", "session_context"]

# How far back file hotspots look, in days: long enough to span a few sessions of a project.
HOTSPOT_DAYS = 30
MAX_SESSIONS = 3
MAX_KEY_MEMORIES = 10
MAX_RECENT_EDITS = 5
MAX_HOTSPOTS = 8
MAX_PATTERNS = 3  # detected patterns shown, at least briefing.STRONG_PATTERN strong
MAX_OPEN = 3  # what earlier sessions left open (their reflections), newest first
_KEY_TYPES = ("decision", "insight", "pattern", "preference", "style", "habit")
MAP_SHARE = 0.4  # at most this share of the SessionStart budget goes to the code map


def hook_output(event_name: str, text: str) -> str:
    """The JSON Claude Code reads from SessionStart/UserPromptSubmit to add context."""
    return dumps(
        {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}},
        ensure_ascii=False,
    )


class _Block:
    """Lines under a character budget."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.lines: list[str] = []
        self.used = 0
        self.full = budget <= 0

    def add(self, line: str, *, clip: bool = True) -> bool:
        if self.full:
            return False
        line = redact(line)
        cost = len(line) + 1
        if self.used + cost > self.budget:
            room = self.budget - self.used - 1
            if clip and room >= 40:
                self.lines.append(line[: room - 1] + "…")
            self.full = True
            return False
        self.lines.append(line)
        self.used += cost
        return True

    def room(self) -> int:
        return 0 if self.full else self.budget - self.used

    def text(self) -> str:
        return "\n".join(self.lines)


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _day(ts: str | None) -> str:
    return (ts or "")[:10]


# The lines of a stored session summary SessionStart shows, in this order: how the session
# ended comes first, so that its latest state is what the next session reads.
_DIGEST_LINES = ("Outcome", "State", "Decided", "Prompts", "Edited", "Failed", "Noted")
DIGEST_CHARS = 900


def _session_digest(summary: str) -> str:
    """The most telling lines of a stored session summary, outcome first, on one line."""
    lines = summary.splitlines()[1:]
    keep = [line for key in _DIGEST_LINES for line in lines if line.startswith(key)]
    return _one_line(" | ".join(keep) if keep else summary, DIGEST_CHARS)


def session_context(
    conn: sqlite3.Connection, namespace: str, current_session: str, budget_chars: int
) -> str:
    if budget_chars <= 0:
        return ""
    rows = briefing.type_counts(conn, namespace)
    code_map = briefing.session_map(conn, namespace) or ""
    if not rows and not code_map:
        return ""
    stats = _stats_line(conn, namespace, rows)
    title = f"## memlode: what I remember about {readable_name(namespace) or 'this folder'}"
    room = budget_chars - len(stats) - 12
    map_room = min(len(code_map) + 40, int(room * MAP_SHARE)) if code_map else 0
    block = _Block(room - map_room)
    block.add(title)
    _recent_sessions(conn, namespace, current_session, block)
    _still_open(conn, namespace, current_session, block)
    _key_memories(conn, namespace, block)
    _patterns(conn, namespace, block)
    _recent_edits(conn, namespace, current_session, block)
    _hotspots(conn, namespace, block)
    if len(block.lines) <= 1:
        block.lines = [title]
    text = block.text()
    if map_room:
        map_block = _Block(map_room + block.room())
        map_block.add("### Code map (most important files and definitions)")
        for line in code_map.splitlines():
            if line.strip() and not map_block.add(line, clip=False):
                break
        if len(map_block.lines) > 1:
            text += "\n" + map_block.text()
    return text + "\n### Stats\n" + stats


def _stats_line(conn: sqlite3.Connection, namespace: str, rows: list[Any]) -> str:
    by_type = {r[0]: int(r[1]) for r in rows}
    count = sum(by_type.values())
    last_at = max((str(r[2]) for r in rows), default="")
    sessions_total = briefing.session_count(conn, namespace)
    types = ", ".join(f"{n} {t}" for t, n in list(by_type.items())[:5])
    return (
        f"{count} memories ({types}), {sessions_total} sessions, last activity {_day(last_at)}."
        if rows
        else f"No memories yet, {sessions_total} sessions."
    ) + " Use the memlode tools to search or store more."


def _recent_sessions(
    conn: sqlite3.Connection, namespace: str, current_session: str, block: _Block
) -> None:
    sessions = briefing.recent_summaries(conn, namespace, current_session, MAX_SESSIONS)
    if sessions:
        block.add("### Recent sessions")
        for started_at, summary in sessions:
            block.add(f"- {_day(started_at)}: {_session_digest(summary)}")


def _still_open(
    conn: sqlite3.Connection, namespace: str, current_session: str, block: _Block
) -> None:
    # what the reflect cycle found left open by earlier sessions and not solved since
    found = briefing.open_reflections(
        conn, namespace, SUMMARY_SOURCE, f"{REFLECTION_TAG}:open", current_session, MAX_OPEN
    )
    if found and block.room() > 80:
        block.add("### Still open")
        for content, created_at in found:
            block.add(f"- {_day(created_at)}: {_one_line(content, 300)}")


def _key_memories(conn: sqlite3.Connection, namespace: str, block: _Block) -> None:
    # Stored on purpose, or the user's own answers and approved plans; not a compaction
    # summary's chunks: that state is history once the session went on (its outcome is above).
    key = briefing.key_memories(
        conn, namespace, _KEY_TYPES, HOOK_SOURCE, MAX_KEY_MEMORIES, SUMMARY_SOURCE
    )
    if key and block.room() > 80:
        # what each one replaced (superseded rows are not among them): history after it
        earlier = supersession.replacements_of(conn, [str(r[3]) for r in key])
        olds = supersession.statements(
            conn, [rep.old_id for reps in earlier.values() for rep in reps[-1:]]
        )
        block.add("### Decisions, insights and patterns")
        for memory_type, content, created_at, memory_id in key:
            reps = earlier.get(str(memory_id), [])[-1:]
            was = [(olds[r.old_id][0], r.at) for r in reps if r.old_id in olds]
            line = f"- [{memory_type}, {_day(created_at)}] {_one_line(content, 300)}"
            block.add(line + _history([w for w in was if w[0]]))


def _patterns(conn: sqlite3.Connection, namespace: str, block: _Block) -> None:
    # what the patterns cycle found across sessions (a few rows of source consolidation)
    # files have their own section (File hotspots): two lists of hot files read as a puzzle
    strong = briefing.strong_patterns(
        conn, namespace, SUMMARY_SOURCE, briefing.STRONG_PATTERN, MAX_PATTERNS, ("hotspot",)
    )
    if strong and block.room() > 80:
        block.add("### Patterns")
        for content, _strength in strong:
            block.add(f"- {_one_line(content, 300)}")


def _recent_edits(
    conn: sqlite3.Connection, namespace: str, current_session: str, block: _Block
) -> None:
    edits = briefing.recent_edits(conn, namespace, HOOK_SOURCE, current_session, MAX_RECENT_EDITS)
    if edits and block.room() > 80:
        block.add("### Recent changes")
        for content, created_at in edits:
            block.add(f"- {_day(created_at)}: {_one_line(content.split(chr(10), 1)[0], 200)}")


def _hotspots(conn: sqlite3.Connection, namespace: str, block: _Block) -> None:
    hot = briefing.file_hotspots(conn, namespace, HOTSPOT_DAYS, MAX_HOTSPOTS)
    if hot and block.room() > 60:
        block.add("### File hotspots")
        block.add(
            "- "
            + "; ".join(
                f"{name} ({edits_n} edits, {reads_n} reads)" for name, edits_n, reads_n in hot
            )
        )


def prompt_context(found: Sequence[Recalled], budget_chars: int) -> str:
    """The recalled memories, best first; of a long memory, the passage about the prompt.

    Each memory gets an equal share of the budget, and what a short memory leaves of its share
    goes to the longer ones (a one-line observation should not cut the passage of a session
    summary that holds the answer down to the same length)."""
    if not found or budget_chars <= 0:
        return ""
    title = "## memlode: possibly relevant memories"
    block = _Block(budget_chars)
    block.add(title)
    lengths = _shares(
        [len(" ".join(item.content.split())) for item in found],
        budget_chars - len(title) - 1,
    )
    for item, limit in zip(found, lengths, strict=True):
        if FAILURE_TAG in item.tags:
            then = ""
            if item.resolution:
                shown = item.resolution[:RESOLUTION_CHARS]
                then = f" Then: $ {shown}" + ("…" if len(shown) < len(item.resolution) else "")
            text = failure_excerpt(item.content, item.terms, max(0, limit - len(then))) + then
        else:
            text = excerpt(item.content, item.terms, limit)
        line = f"- [{item.memory_type}, {_day(item.created_at)}] {text}" + _history(item.history)
        if not block.add(line):
            break
    # a memory's line past the room is clipped into what is left of it (``_Block.add``) and
    # shown, even the first: a passage runs on to the end of a word (WORD_TAIL) past its share
    return block.text() if len(block.lines) > 1 else ""


# What a replaced memory shows of itself after its successor: enough to recognise it.
HISTORY_CHARS = 120


def _history(history: Sequence[tuple[str, str]]) -> str:
    """`` (was: <old> until <date>; ...)`` for what a memory replaced, latest first; ''."""
    if not history:
        return ""
    parts = [f"{_one_line(old, HISTORY_CHARS)} until {_day(at)}" for old, at in history]
    return " (was: " + "; was: ".join(parts) + ")"


# A memory's first line is shown before its passage when it is at most this long and at most
# this share of the item's room: it says what the memory is (a plan approved, a failed command,
# the file an edit changed), which the passage alone often does not.
HEAD_MAX_CHARS = 90
HEAD_MAX_SHARE = 0.3
HEAD_MIN_CHARS = 40  # a failure's command, shortened, keeps at least this much
# The command that ran next without failing (``Recalled.resolution``), shown after a failure.
RESOLUTION_CHARS = 100


def failure_excerpt(content: str, terms: Mapping[str, float] | Set[str], limit: int) -> str:
    """A failure observation (``Failed: <what>``, the error, then ``[command]`` and the rest of
    the command) as what failed, shortened, and the part of the error it gave about the prompt
    (its start when no word of the prompt is in it): the part that says why. A passage chosen
    from the whole text finds the prompt's words in the command instead."""
    text = " ".join(content.split())
    if len(text) <= limit:
        return text
    first, _newline, rest = content.strip().partition("\n")
    error = rest.split(COMMAND_REST, 1)[0]
    head = " ".join(first.split())
    # the prompt's words that name the command say nothing about the error: the passage is
    # chosen by the others, or starts where the error does
    in_head = {stem for _at, stem, _end in _hits(head, dict.fromkeys(terms, 1.0))}
    if isinstance(terms, Mapping):
        terms = {t: w for t, w in terms.items() if t not in in_head}
    else:
        terms = set(terms) - in_head
    head_room = max(HEAD_MIN_CHARS, int(limit * HEAD_MAX_SHARE))
    if len(head) > head_room:
        head = head[: head_room - 1] + "…"
    return f"{head} {excerpt(error, terms, max(0, limit - len(head) - 1))}".strip()


def _head(content: str, limit: int) -> str:
    """The memory's first line, if it is short and a separate line; else ''."""
    first, newline, _rest = content.strip().partition("\n")
    first = " ".join(first.split())
    if not newline or not first or len(first) > min(HEAD_MAX_CHARS, limit * HEAD_MAX_SHARE):
        return ""
    return first


# The widest spread of matched words an excerpt's window takes, as a share of its length; the
# passage starts up to a sixth of its length before the first of them.
WINDOW_SPAN = 0.8
LEAD_SHARE = 0.15
# A passage cut in the middle of a word or a path ("print prima…", "gradient_test.…") loses
# what it names: it runs on to the word's end when that is at most this many characters on.
WORD_TAIL = 24

# A long memory whose matched words lie in two places shows both (``_two_passages``): the best
# passage keeps its matched words and at least this many characters after them (and at least
# half the room), and a second passage needs at least MIN_SECOND_PASSAGE. Replay
# (bench/RESULTS.md, "Session 24"): the answer sat next to the words the best passage left out
# (`--log-failed`, 800 characters after the CI check and the PR a turn names) in four of the
# six sets' nine excerpt misses; all four answered, none lost.
PASSAGE_TAIL = 100
MIN_SECOND_PASSAGE = 120

# Characters of each item's line outside its text: "- [insight, 2026-11-24] " and the newline.
_LINE_OVERHEAD = 30
MIN_ITEM_CHARS = 160


def _shares(sizes: list[int], budget: int) -> list[int]:
    """Characters of text for each item: an equal share each, the unused part of a short
    item's share handed on to the longer ones (water-filling); never below MIN_ITEM_CHARS."""
    room = max(0, budget - _LINE_OVERHEAD * len(sizes))
    shares = [0] * len(sizes)
    waiting = sorted(range(len(sizes)), key=lambda i: sizes[i])
    while waiting:
        equal = room // len(waiting)
        i = waiting[0]
        if sizes[i] <= equal:  # fits whole: it takes only what it needs
            shares[i] = sizes[i]
            room -= sizes[i]
            waiting.pop(0)
            continue
        for j in waiting:  # the rest split what is left
            shares[j] = equal
        break
    return [
        max(min(MIN_ITEM_CHARS, size), share) for size, share in zip(sizes, shares, strict=True)
    ]


def excerpt(content: str, terms: Mapping[str, float] | Set[str], limit: int) -> str:
    """``content`` on one line, or if longer than ``limit``, its head line (what the memory is:
    "Plan approved by the user:", "Failed: $ git push", "Edited x.ex: ...", when that line is
    short) and the passage holding the most information about the prompt: the window with
    the largest sum of the weights (idf) of the distinct ``terms`` it holds (stemmed, as
    ``memlode.hooks._recall`` matches them; a plain set weighs each term 1), then the most
    matches; with an ellipsis where it was cut."""
    text = " ".join(content.split())
    if len(text) <= limit:
        return text
    head = _head(content, limit)
    if head:
        return head + " " + excerpt(text[len(head) :], terms, limit - len(head) - 1)
    weight = dict(terms) if isinstance(terms, Mapping) else dict.fromkeys(terms, 1.0)
    hits = _hits(text, weight)
    if not hits:
        return text[: limit - 1] + "…"
    begin, end = _window(text, hits, weight, limit)
    return _two_passages(text, hits, weight, limit, (begin, end)) or _passage(text, [(begin, end)])


def _passage(text: str, parts: list[tuple[int, int]]) -> str:
    """The ``(begin, end)`` parts of ``text`` in order, with an ellipsis wherever text is cut."""
    out, last = "", 0
    for begin, end in parts:
        out += ("…" if begin > last else "") + text[begin:end]
        last = end
    return out + ("…" if last < len(text) else "")


def _two_passages(
    text: str,
    hits: list[tuple[int, str, int]],
    weight: dict[str, float],
    limit: int,
    best: tuple[int, int],
) -> str:
    """Two passages when the prompt's words are in two places: the best passage in the room of
    the ``best`` one's matched words and PASSAGE_TAIL characters after them (an answer follows
    what the question names), then the best passage of the matched words it leaves out; ''
    when ``best`` holds them all or leaves no room for a second one."""
    inside = [h for h in hits if best[0] <= h[0] and h[2] <= best[1]]
    shown = {term for _at, term, _end in inside}
    if all(term in shown for _at, term, _end in hits):
        return ""
    room = max(limit // 2, inside[-1][2] - inside[0][0] + PASSAGE_TAIL)
    if room > limit - MIN_SECOND_PASSAGE:
        return ""
    first = _window(text, hits, weight, room)
    shown = {term for at, term, end in hits if first[0] <= at and end <= first[1]}
    rest = [h for h in hits if h[1] not in shown and (h[2] <= first[0] or h[0] >= first[1])]
    if not rest:
        return ""
    second = _window(text, rest, weight, limit - (first[1] - first[0]) - 3)
    parts = sorted([first, second])
    if parts[0][1] > parts[1][0]:
        return ""
    return _passage(text, parts)


# The shapes of the values a question may ask for by their kind (``#version``, ``#commit``,
# ``#port``, ``#size``: the keys ``memlode.hooks._recall.ASKED_SHAPES`` puts among a memory's
# terms).
_EDGE = "`'\"()[]{}<>,;!?*"
# A size in bytes: "9.5 MB", "2.3MB", "512 KiB", "1,024 bytes".
_SIZE_UNITS = frozenset("b byte bytes kb mb gb tb kib mib gib tib".split())


def _number(token: str) -> bool:
    return token[:1].isdigit() and all(c.isdigit() or c in ".," for c in token)


def _size(token: str) -> bool:
    """Whether ``token`` is a number and its unit of bytes in one run ("9.5MB")."""
    digits = len(token) - len(token.lstrip("0123456789.,"))
    return (
        0 < digits < len(token)
        and _number(token[:digits])
        and (token[digits:].lower() in _SIZE_UNITS)
    )


def _shaped(token: str, shape: str) -> bool:
    """Whether ``token`` (one whitespace-separated run) is a value of ``shape``."""
    token = token.strip(_EDGE).rstrip(".:/")
    if shape == "#version":
        value = token.rsplit("@", 1)[-1].lstrip("vV")
        parts = value.split(".")
        return len(parts) >= 2 and parts[0].isdigit() and parts[1][:1].isdigit()
    if shape == "#size":
        return _size(token.strip(_EDGE + ".:"))
    if shape == "#commit":
        hexes = token.lower()
        return (
            7 <= len(hexes) <= 40
            and all(c in "0123456789abcdef" for c in hexes)
            and any(c.isdigit() for c in hexes)
            and any(c.isalpha() for c in hexes)
        )
    scheme, _sep, rest = token.partition("://")
    host, colon, port = (rest if _sep else scheme).partition("/")[0].rpartition(":")
    if not colon or not port.isdigit() or not 2 <= len(port) <= 5:
        return False  # a host and a port: "localhost:3000", "http://127.0.0.1:8080/", ":5173"
    quad = host.split(".")
    return host in ("", "localhost") or bool(_sep) or (len(quad) == 4 and all(quad))


def _shaped_hits(text: str, shapes: list[str]) -> list[tuple[int, str, int]]:
    """(offset, shape key, end) of each whitespace-separated token of ``text`` of one of the
    ``shapes`` (``#version``, ``#commit``, ``#port``, ``#size``; a size's number and unit may
    be two tokens, "9.5 MB")."""
    hits: list[tuple[int, str, int]] = []
    at, before, last = 0, 0, ""
    for token in text.split(" "):
        if token:
            for shape in shapes:
                if _shaped(token, shape):
                    hits.append((at, shape, at + len(token)))
                    break
                bare = token.strip(_EDGE + ".:").lower()
                if shape == "#size" and bare in _SIZE_UNITS and _number(last.strip(_EDGE)):
                    hits.append((before, shape, at + len(token)))
                    break
            before, last = at, token
        at += len(token) + 1
    return hits


def _hits(text: str, weight: dict[str, float]) -> list[tuple[int, str, int]]:
    """(offset, stemmed term, end) of each word of ``text`` that is one of the terms, and of
    each value of a shape the prompt asks for (``memlode.hooks._recall.ASKED_SHAPES``)."""
    shapes = [key for key in weight if key.startswith("#")]
    if shapes:
        words = {k: w for k, w in weight.items() if not k.startswith("#")}
        return sorted(_hits(text, words) + _shaped_hits(text, shapes))
    hits: list[tuple[int, str, int]] = []
    start = -1
    for i, ch in enumerate(text + " "):
        if ch.isalnum() or ch == "_":
            if start < 0:
                start = i
        elif start >= 0:
            word = text[start:i].lower()
            for part in (word, *word.split("_")):
                term = stem(part)
                if term in weight:
                    hits.append((start, term, i))
                    break
            start = -1
    return hits


def _window(
    text: str, hits: list[tuple[int, str, int]], weight: dict[str, float], limit: int
) -> tuple[int, int]:
    """(begin, end) of the passage of at most ``limit`` - 2 characters around the window of
    ``hits`` worth the most (the weights of the distinct terms in it), then with the most
    hits; the hits it takes span at most WINDOW_SPAN of it."""
    best_at, best_end, best_key = 0, 0, (-1.0, -1)
    left = 0
    count: dict[str, int] = {}  # hits of each term in hits[left : right + 1]
    for right in range(len(hits)):
        count[hits[right][1]] = count.get(hits[right][1], 0) + 1
        while hits[right][0] - hits[left][0] > limit * WINDOW_SPAN:
            count[hits[left][1]] -= 1
            left += 1
        worth = sum(weight[t] for t, n in count.items() if n > 0)
        key = (worth, right - left)
        if key > best_key:
            best_key, best_at, best_end = key, hits[left][0], hits[right][2]
    # Start a little before the first match, at a word boundary, but late enough to hold the
    # whole of the last one; where the text ends first, the room left goes before the match.
    begin = max(0, best_at - int((limit - (best_end - best_at)) * LEAD_SHARE))
    begin = max(begin, best_end - (limit - 2))
    begin = max(0, min(begin, len(text) - (limit - 2)))
    if begin and text[begin - 1] != " ":  # not in the middle of a word: on to the next one
        space = text.find(" ", begin, best_at)
        begin = space + 1 if space >= 0 else begin
    end = min(len(text), begin + limit - 2)
    if end < len(text) and text[end] != " ":  # not in the middle of a word: on to its end
        space = text.find(" ", end, end + WORD_TAIL)
        end = space if space >= 0 else end
    return begin, end
