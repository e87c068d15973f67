"""Recall inside the UserPromptSubmit hook: BM25 from FTS5, a relevance gate, and optionally
the vectors of a resident memlode process.

The engine's ranking (from the resident, ``memlode.hooks._resident``) is the reference; when
it cannot answer in time, this module sends FTS5 the query the engine's BM25 would send (terms
from ``memlode.textutil.query_terms``, expressions and column weights from
``memlode.storage.fts_match``, both import-light) and then applies a gate tuned for injection,
where silence is better than noise:

- the prompt needs at least ``MIN_QUERY_TERMS`` content words ("ok", "continue" recall nothing);
- the prompt is answered only when a memory holds at least ``MIN_MATCHED_TERMS`` of them and
  ``MIN_IDF_COVERAGE`` of their information (each term weighted by its idf over the store), or
  a resident's vector reaches ``MIN_VECTOR_SCORE`` (not when the prompt names something never
  stored, ``MIN_JOINT_SCORE``); then the best memories above a floor go in;
- near-duplicates (the same text as a transcript chunk, a doc chunk and a summary) count once;
- memories of the current session are skipped (they are already in the context), and so are
  stored prompts (a question is not an answer).

If a resident memlode process (the MCP server) listens on ``$MEMLODE_HOME/memlode.sock``, its
vector hits are merged in, provided it answers within ``resident_timeout_ms``; see
``memlode.hooks._resident``.
"""

from __future__ import annotations

import functools

from memlode.fastjson import loads
from memlode.project import readable_name
from memlode.storage import fts_match
from memlode.storage.capture import (
    COMMAND_REST,
    CONVERSATION_SOURCES,
    FAILURE_TAG,
    GLOBAL_NAMESPACE,
    REFLECTION_TAG,
    SETTINGS_TAG,
    SUMMARY_TAG,
)
from memlode.storage.fts_match import OVERFETCH, SCORING_BUDGET
from memlode.textutil import STOPWORDS, command_key, identifier_parts, query_terms, stem, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable, Sequence
    from typing import Any

    from memlode.hooks.run import Frequencies

__all__ = ["Recalled", "recall"]

MIN_QUERY_TERMS = 2
MIN_MATCHED_TERMS = 2
CANDIDATES = 40
# The gate, per prompt: something stored must clearly answer it, i.e. cover at least
# ``MIN_IDF_COVERAGE`` of the prompt's information (each term weighted by its BM25 idf over the
# whole store, so a prompt about something never stored, "add TOTP login", leaves its rarest
# terms unmatched) or, with the resident's vectors, reach cosine ``MIN_VECTOR_SCORE``. Once it
# passes, the best memories go in, each above a low floor. Calibrated on the replay
# evaluation's next-day prompts and its calibration controls, never on its test controls
# (bench/RESULTS.md, "Session replay").
MIN_IDF_COVERAGE = 0.35
MIN_VECTOR_SCORE = 0.45
# memlode.engine.transcript_build.HISTORY_TAG: a compaction summary's state at the time
# ("Pending Tasks").
HISTORY_TAG = "history"
# Weaker evidence of both kinds together: coverage plus cosine (with MIN_MATCHED_TERMS terms).
# A paraphrase ("blew up", "first time round") leaves words unmatched and costs coverage that
# the vector side makes up; the calibration controls reach 0.56 at most, answered prompts
# the other two rules missed 0.65-0.77 (bench/RESULTS.md, "Session replay").
MIN_JOINT_SCORE = 0.6
# Both weaker rules (a vector alone, and coverage plus cosine) stand for a paraphrase: the
# prompt's unmatched words say in other words what a memory says. A word that no memory holds
# and that is not an ordinary English word either (``memlode.vocabulary``: outside the shipped
# model's vocabulary, and not two of its words run together:
# "react-intl", "monorepos"; not "blew", "colour" or "lookup") names something the store never
# saw, which no paraphrase covers: such a prompt needs the coverage rule. Replay
# (bench/RESULTS.md, "Session 20"): the two untuned controls the weaker rules opened carry
# such a name; of the answered prompts, only one did ("lookup", before compounds counted).
# The same goes for an instruction's vector evidence (an instruction to build something the
# store never saw is new work). And when such names carry at least MAX_NAME_SHARE of the
# prompt's information, the prompt is mainly about the new thing ("how do I add pagination to
# the evaluations list?"): whatever covers its other words answers another question. Replay
# (bench/RESULTS.md, "Session 22"): none of the 148 next-day prompts of the four sets has
# such a name; 32 of the 110 controls do, two of which the coverage rule had opened on their
# other words (at a share of a half then; a third since session 25, see below).
# Words no memory holds, names or not, carrying MAX_UNSEEN_SHARE make a weak match (a vector, or
# words plus vector) doubtful: it answers only when a word it matched is a name the store
# holds ("with_span blew up the controller tests the first time round": about with_span, in
# other words). Matched only by the project's ordinary words, the question is about what no
# memory holds ("why does the prompt flicker when I resize Windows Terminal?", matched by
# "prompt" and "terminal" in a prompt engine's store). Replay (bench/RESULTS.md, "Session 23"):
# that control, written in two blind sets by two writers, was the only one the gate opened;
# none of the sets' next-day prompts was lost. A statement the user stored keeps its own rules
# (below): "how long are events retained?" asks about "Events older than 400 days are deleted."
# in other words.
MAX_UNSEEN_SHARE = 0.5
# Names need less than ordinary words: a name the store never saw that carries a third of the
# question's information is what the question is about ("how do I get oh-my-posh to render
# inside the tmux status line?": 0.40, matched on the project's own words). Replay
# (bench/RESULTS.md, "Session 25"): of the answered next-day prompts of nine sets, none has a
# name share above 0.21; the blind s26's first run opened that control.
MAX_NAME_SHARE = 0.3
# A direct question ("which cache backend do we use?", "where do logs go?") about something a
# user stored on purpose (source ``memory``: a decision, a preference, a state) is answered by
# that statement even with one word of it, or a paraphrase: one of its words covering
# MIN_DECISION_COVERAGE of the prompt's information, or MIN_DECISION_JOINT of both coverage and
# cosine. Only such statements open the gate this way, and a one-word question injects only
# them. Update evaluation (bench/update_cases.json) and the session replay's controls
# (bench/RESULTS.md, "Current, not just relevant").
DECISION_SOURCES = frozenset({"memory"})
MIN_DECISION_COVERAGE = 0.5
MIN_DECISION_JOINT = 0.3
QUESTION_WORDS = frozenset(
    """what why how when where which who whom whose is are was were am do does did can could
    should would will shall have has had may might must any anything remind tell recall""".split()
)
# A question that opens with "why" asks for a reason or a cause, which a settings file's lines
# never give (a manifest, a unit file read or written whole: tag SETTINGS_TAG, the lines as they
# stand): such a memory may go in once another has opened the gate, but does not open it.
# Replay (bench/RESULTS.md, "Session 39"): "Why is the Bun server using so much memory under
# load?" (a calibration control) opened on a read package.json's "bun --hot server.ts".
WHY_WORDS = ("why ", "why's ", "why\u2019s ")


def _why(prompt: str) -> bool:
    """The prompt opens with "why" (``WHY_WORDS``)."""
    return prompt.lstrip().lower().startswith(WHY_WORDS)


# "Can you add a CSV export?" is a request in a question's form: a modal and "you", then a verb
# other than one of being told, asks nothing about the past.
REQUEST_MODALS = frozenset({"can", "could", "would", "will"})
TOLD_VERBS = frozenset({"tell", "remind", "recall", "say", "show"})
# An instruction or a remark ("add a --json flag to the version command", "let's call it a
# day") asks nothing about the past: memory may help it, but the user did not ask for any, and
# what it shares with the project's memory is mostly the project's everyday words ("add",
# "flag", "command"). Such a prompt opens the gate only when one memory carries both kinds of
# evidence at once, each at the level that alone opens it for a question (MIN_IDF_COVERAGE
# with MIN_MATCHED_TERMS terms, and MIN_VECTOR_SCORE), so never on the lean path, which has no
# vectors. Replay (bench/RESULTS.md, "Session 19"): 14 of the 20 controls that opened the gate
# were instructions, and no next-day question is one; instructions about what a session did
# ("rerun the CI checks on PR 7716") still reach both levels.

MIN_ITEM_COVERAGE = 0.10  # 0.15 dropped short edits that answered (replay: +1 prompt on 3 stores)
MIN_ITEM_VECTOR = 0.15
# Final order: how much of the prompt's information a memory covers, then BM25, importance.
W_COVERAGE, W_BM25, W_IMPORTANCE = 0.6, 0.25, 0.15
# Two memories sharing this share of their word triples (of the shorter one's) hold the same
# text (a transcript chunk and the doc chunk of the same compaction summary, a command's
# output seen twice): only the better one is kept. Word triples rather than vocabulary:
# sibling chunks of one summary section share most of their words and say different things
# (on the replay, vocabulary overlap 0.6 dropped the "Errors and Fixes" bullet that answered).
DUPLICATE_OVERLAP = 0.6
# A command's observation is alike another only when what comes before the rest of a long
# command (``COMMAND_REST``: its outcome and output) is alike too: two runs of one heredoc that
# printed different things (a probe that timed out, then one that could not start) are not one
# text, and two releases alike but for their notes stay apart as before. Untuned replay
# (bench/RESULTS.md, "Session 34").
# Of two such memories the better ranked is kept, unless the other holds CONTAINED of its word
# triples and more besides, and more of the prompt's information: then that one stands in its
# place (a turn's chunk that goes on past the shorter chunk of it that ranked first; the answer
# is in what follows). Untuned replay (bench/RESULTS.md, "Session 33"): +1 prompt, none lost;
# at DUPLICATE_OVERLAP instead of CONTAINED, a transcript chunk that shortens a command took
# the command's place and lost its flag.
CONTAINED = 0.9
# Nor is a memory left out as a near-duplicate when it is the longer and SAYS_MORE of its word
# triples are not in the one kept: a user's pasted service status beside the assistant's
# shorter run of the same command (the paste holds the exit status), two `git log` listings of
# one branch before and after a rebase. A transcript chunk beside another chunk is left out as
# before: a turn's chunks overlap by construction. Replay (bench/RESULTS.md,
# "Session 35"), offline on two runs' kept stores: +3 prompts, -1 each (a tenth item took the
# room of the one that answered), controls unchanged; 0.3 and 0.4 the same, 0.5 and 0.65 +2 -1;
# without the transcript exception a second chunk of one long turn took that room; without
# "the longer", a short listing beside the turn that ran it took it on one run. Beside a
# hook's memory a chunk is kept as any memory is (session 40; until then every transcript row
# was left out): a turn's chunk ends with the next prompt, which the hook stored too, and holds
# before it what the assistant did ("AppImage built successfully (9.5 MB)"). Offline on run G's
# stores: +1, none lost.
SAYS_MORE = 0.4


def _content_terms(text: str) -> set[str]:
    """The words of a candidate memory, lower-cased, with the parts of snake_case and
    camelCase identifiers (the same terms ``query_terms`` gives, without its stopword pass)."""
    out: set[str] = set()
    for token in words(text):
        lowered = token.lower()
        out.add(lowered)
        if "_" in token or not (token.islower() or token.isupper() or token.isdigit()):
            out.update(identifier_parts(token))
    return out


class Recalled:
    __slots__ = (
        "content",
        "created_at",
        "history",
        "id",
        "memory_type",
        "resolution",
        "score",
        "signals",
        "source",
        "tags",
        "terms",
    )

    def __init__(
        self,
        memory_id: str,
        content: str,
        memory_type: str,
        created_at: str,
        score: float,
        terms: dict[str, float] | None = None,
        *,
        source: str = "",
        tags: tuple[str, ...] = (),
        signals: dict[str, float] | None = None,
    ) -> None:
        self.id = memory_id
        self.content = content
        self.memory_type = memory_type
        self.created_at = created_at
        self.score = score
        # The stemmed prompt terms this memory holds, each with its idf weight (for its excerpt).
        self.terms = terms if terms is not None else {}
        # From the resident (memlode.hooks._resident.recalled): where the row comes from, its
        # tags, and the engine's explain figures (each signal's share, plus the raw cosine).
        self.source = source
        self.tags = tags
        self.signals = signals if signals is not None else {}
        # Of a failed command: the first line of the same command run after it in the session
        # without failing (how it was resolved), found by ``resolve_failures``.
        self.resolution = ""
        # What this memory replaced (``memlode.storage.supersession``), latest first: (its
        # content, when it was replaced), shown as history after it (``current_first``).
        self.history: list[tuple[str, str]] = []


# Words of how people ask, not of what they ask about ("what did we do last time?", "anything
# odd yesterday?"): left out of the gate's terms, where as unmatched rare words they would sink
# the coverage of a prompt that is about something stored.
CONVERSATIONAL = frozenset(
    """last time times yesterday today tomorrow earlier later again still ever anything
    something everything nothing thing things remember recall previously please thanks
    thank okay ok actually really also let lets tell way kind sort bit lot happen happened
    did done get got go went make made finally first yes yeah yep sure sounds good great fine
    cool nice ahead proceed""".split()
)


# A number said in words ("a few minutes past eight") is the number a memory holds in digits
# ("OnCalendar=*-*-* 08:00:00", "8:00 AM"): as a word no memory holds, it weighed like a name
# the store never saw. Untuned replay (bench/RESULTS.md, "Session 34"): +1 prompt, every
# control silent.
# Not "one", which is mostly a pronoun ("which one failed?").
NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero - two three four five six seven eight nine ten eleven twelve".split()
    )
    if w != "-"
}


def _gate_terms(prompt: str) -> list[str]:
    """The prompt's information for the gate: its content words and identifier parts, but a
    number cut out of a word ("18" of "i18n", "8" of "k8s") when the prompt does not say it on
    its own: as a term it matches every date and version ("2026-02-18") and opened the gate on
    a question about something never stored (replay, untuned set: bench/RESULTS.md). A number
    in words, two to twelve, is its digits (``NUMBER_WORDS``), and a digit said on its own
    ("at 8 in the morning") is a term as that is, though a single letter is not."""
    said = {w.lower() for w in words(prompt)}
    return [
        NUMBER_WORDS.get(t, t)
        for t in query_terms(prompt)
        if t not in STOPWORDS
        and t not in CONVERSATIONAL
        and (len(t) > 1 or (t.isdigit() and t in said))
        and (t in said or not t.isdigit())
    ]


def recall(
    conn: sqlite3.Connection,
    prompt: str,
    namespace: str,
    session_id: str,
    *,
    limit: int,
    vector_hits: dict[str, float] | None = None,
) -> list[Recalled]:
    """The lean path: the few memories worth injecting for ``prompt``, best first (may be
    empty), from FTS5's BM25 (and a resident's bare vector hits, if given), through ``choose``."""
    terms = _gate_terms(prompt)
    if not terms or limit <= 0:  # one term goes on: a direct question about a stored statement
        return []
    rows = _candidates(conn, terms, namespace, session_id)
    vectors = dict(vector_hits or {})
    if vectors:
        known = {r[0] for r in rows}
        missing = [i for i in vectors if i not in known][:CANDIDATES]
        if missing:
            rows += fts_match.rows_by_id(conn, missing, (namespace, GLOBAL_NAMESPACE), session_id)
    best_bm25 = max((-float(r[7]) for r in rows), default=0.0) or 1.0
    candidates = []
    for memory_id, content, memory_type, importance, created_at, tags_json, source, raw in rows:
        tags = _tags(tags_json)
        if not injectable(tags):
            continue
        rank = W_BM25 * (-float(raw) / best_bm25) + W_IMPORTANCE * float(importance)
        cand = Recalled(
            memory_id, content, memory_type, created_at, rank, source=source or "", tags=tags
        )
        candidates.append((cand, vectors.get(memory_id, 0.0)))
    return choose(
        conn, prompt, candidates, limit, rerank=True, session_id=session_id, project=namespace
    )


# Never injected: a stored prompt (a question is not an answer) and a consolidation summary
# (an aggregate of observations, "ran 6 times, 4 failed": it took the slot of the specific
# memory that answers in the session replay, 45 -> 43 of 52; bench/RESULTS.md), nor a
# detected pattern (tag ``pattern``: a count over sessions; SessionStart shows the strong ones),
# nor a session's reflection (engine/consolidation/reflect): its evidence is injectable itself,
# and the SessionStart briefing shows what a session left open.
NOT_INJECTED = frozenset({"prompt", SUMMARY_TAG, "pattern", REFLECTION_TAG})


def injectable(tags: Sequence[str]) -> bool:
    return NOT_INJECTED.isdisjoint(tags)


def choose(
    conn: sqlite3.Connection,
    prompt: str,
    candidates: list[tuple[Recalled, float]],
    limit: int,
    *,
    rerank: bool,
    session_id: str = "",
    frequencies: Frequencies | None = None,
    project: str = "",
) -> list[Recalled]:
    """The gate and the selection, the same for the lean path and the resident's ranking.
    The terms' document frequencies come from the store's FTS5 index, or from ``frequencies``
    (the resident's text index: a PostgreSQL store has no FTS5 index).

    ``candidates`` are (memory, cosine) pairs, ``memory.score`` their rank so far. The prompt is
    answered only when one candidate covers ``MIN_IDF_COVERAGE`` of the prompt's information
    (with ``MIN_MATCHED_TERMS`` terms) or reaches ``MIN_VECTOR_SCORE``; then the candidates above
    the item floor go in, near-duplicates once, best first: by coverage and rank with ``rerank``
    (the lean BM25), else in the given order (the engine's ranking)."""
    terms = _gate_terms(prompt)
    question = asks(prompt)
    direct = question and any(c.source in DECISION_SOURCES for c, _v in candidates)
    if limit <= 0 or not candidates or (len(terms) < MIN_QUERY_TERMS and not (direct and terms)):
        return []
    unseen: dict[str, str] = {}
    weights = _idf_weights(conn, terms, session_id, frequencies, unseen)
    # a one-word question: only a stored statement answers
    few = len(terms) - _drop_own_name(weights, unseen, project) < MIN_QUERY_TERMS
    if few and not (direct and weights):
        return []
    total = sum(weights.values()) or 1.0
    unseen_names = _unseen_names(prompt, weights, unseen, total)
    if unseen_names is None:
        return []
    names, mostly_unseen = unseen_names
    scored: list[tuple[Recalled, _Words]] = []
    answered = False
    for cand, vector in candidates:
        if HISTORY_TAG in cand.tags:  # what was still to do back then: done since, mostly
            continue
        have = {stem(t) for t in _content_terms(cand.content)}
        matched = {t for t in weights if t in have}
        coverage = sum(weights[t] for t in matched) / total
        stated = direct and cand.source in DECISION_SOURCES
        if few and not stated:
            continue
        enough_terms = len(matched) >= min(MIN_MATCHED_TERMS, len(weights))
        covered = enough_terms and coverage >= MIN_IDF_COVERAGE
        opens = SETTINGS_TAG not in cand.tags or not _why(prompt)  # see WHY_WORDS
        if opens and not few and not question:  # an instruction: both kinds of evidence at once
            if not answered and covered and vector >= MIN_VECTOR_SCORE:
                if names is None:
                    names = _names_a_new_thing(unseen.values(), prompt)
                answered = not names
        elif opens and not few and not answered:
            weak = vector >= MIN_VECTOR_SCORE or (
                enough_terms and coverage + vector >= MIN_JOINT_SCORE
            )
            if weak and not covered and mostly_unseen and not stated:  # see MAX_UNSEEN_SHARE
                weak = _matches_a_name(terms, matched, prompt)
            if not covered and weak and names is None:
                names = _names_a_new_thing(unseen.values(), prompt)
            answered = covered or (weak and not names)
        if stated and matched:
            answered = answered or coverage >= MIN_DECISION_COVERAGE
            answered = answered or min(coverage, vector) >= MIN_DECISION_JOINT
        if coverage < MIN_ITEM_COVERAGE and vector < MIN_ITEM_VECTOR:
            continue
        cand.terms = _terms_held(matched, weights)
        if rerank:
            cand.score = W_COVERAGE * max(coverage, vector) + cand.score
        scored.append((cand, _Words(cand.content)))
    if not answered:
        return []
    if rerank:
        scored.sort(key=lambda pair: -pair[0].score)
    chosen = current_first(conn, _distinct(scored, limit))
    resolve_failures(conn, chosen)
    return chosen


# A question that asks for a version, a commit or a port ("which markdownlint-cli2 version …",
# "which commit was next sitting on …", "which port was the frontend running on …") is answered
# by a value of that shape ("v0.23.1", "9f012815", "localhost:3000"), which none of its words
# match: the shape (its key here, read by ``memlode.hooks.injection``'s passages) counts as the
# asking word. Replay (bench/RESULTS.md, "Session 33"): three of the untuned sets' eight excerpt
# misses.
ASKED_SHAPES = {
    "version": "#version",
    "commit": "#commit",
    "sha": "#commit",
    "port": "#port",
    "big": "#size",  # "how big …", "what size …", "how large …": "9.5 MB"
    "siz": "#size",
    "larg": "#size",
}


def _terms_held(matched: set[str], weights: dict[str, float]) -> dict[str, float]:
    """The prompt's terms a memory holds (``matched``) with their weights, and the shape of a
    value the prompt asks for by its kind (``ASKED_SHAPES``), with the asking word's."""
    held = {t: weights[t] for t in matched}
    held.update((key, weights[t]) for t, key in ASKED_SHAPES.items() if t in weights)
    return held


class _Words:
    """A candidate's word triples, of its whole text and of the part before a command's rest
    (``COMMAND_REST``; the whole text when it has none)."""

    __slots__ = ("head", "whole")

    def __init__(self, content: str) -> None:
        self.whole = _triples(content)
        head, rest, _ = content.partition(COMMAND_REST)
        self.head = _triples(head) if rest else self.whole

    def alike(self, other: _Words) -> bool:
        """Near-duplicates: both texts alike, and their heads too (``DUPLICATE_OVERLAP``)."""
        return (
            _overlap(self.whole, other.whole) >= DUPLICATE_OVERLAP
            and _overlap(self.head, other.head) >= DUPLICATE_OVERLAP
        )


def _distinct(scored: list[tuple[Recalled, _Words]], limit: int) -> list[Recalled]:
    """The first ``limit`` of ``scored`` (memories with their word triples), leaving out a
    near-duplicate of one already taken and a second read of the same file."""
    kept: list[tuple[Recalled, _Words]] = []
    files_read: set[str] = set()
    for hit, have in scored:
        same = next((i for i, (_h, other) in enumerate(kept) if have.alike(other)), -1)
        if same >= 0:
            if _holds_more(hit, have.whole, kept[same]) and not _file_read(hit):
                kept[same] = (hit, have)
                continue
            chunks = {hit.source, kept[same][0].source} <= CONVERSATION_SOURCES
            if chunks or not _says_more(have, kept[same][1]):
                continue
        read = _file_read(hit)
        if read:  # the same file read again says nothing new
            if read in files_read:
                continue
            files_read.add(read)
        kept.append((hit, have))
        if len(kept) == limit:
            break
    return [hit for hit, _have in kept]


def _says_more(have: _Words, held: _Words) -> bool:
    """Whether a near-duplicate (``have``) is the longer text and much of it is not in the one
    kept (``held``)."""
    new = len(have.whole - held.whole)
    return len(have.whole) > len(held.whole) and new >= SAYS_MORE * len(have.whole)


def _holds_more(hit: Recalled, have: set[Any], kept: tuple[Recalled, _Words]) -> bool:
    """``hit`` (its word triples ``have``) holds ``kept``'s text and more, and more of the
    prompt's information (``CONTAINED``)."""
    other, words_of = kept
    held = words_of.whole
    inside = len(held & have) >= CONTAINED * len(held) and len(have) > len(held)
    return inside and sum(hit.terms.values()) > sum(other.terms.values())


# What a current memory shows of those it replaced: the latest few, as history.
MAX_HISTORY = 2


def current_first(conn: sqlite3.Connection, chosen: list[Recalled]) -> list[Recalled]:
    """``chosen`` with each memory a later one replaced (``memlode.storage.supersession``)
    swapped for the current end of its chain, in its place (or dropped where the current one
    is chosen too), and each current memory given what it replaced as history."""
    from memlode.storage import supersession

    if not chosen:
        return chosen
    current = supersession.current_of(conn, [h.id for h in chosen])
    out: list[Recalled] = []
    if current:
        rows = supersession.statements(conn, list(set(current.values())))
        have = {h.id for h in chosen if h.id not in current}
        for hit in chosen:
            end = current.get(hit.id)
            if end is None:
                out.append(hit)
            elif end not in have and end in rows:
                content, memory_type, created_at = rows[end]
                swapped = Recalled(end, content, memory_type, created_at, hit.score, hit.terms)
                out.append(swapped)
                have.add(end)
    else:
        out = list(chosen)
    earlier = supersession.replacements_of(conn, [h.id for h in out])
    if earlier:
        olds = supersession.statements(
            conn, [r.old_id for reps in earlier.values() for r in reps[-MAX_HISTORY:]]
        )
        for hit in out:
            for rep in reversed(earlier.get(hit.id, [])[-MAX_HISTORY:]):
                if rep.old_id in olds:
                    hit.history.append((olds[rep.old_id][0], rep.at))
    return out


def asks(prompt: str) -> bool:
    """The prompt is a question: a sentence of it ends in "?" (``_asked``), or it opens with a
    question word ("what's", "didn't": the word before the apostrophe, but "don't" tells) or
    asks to be told ("remind me", "tell me"); but not a request in a question's form ("can you
    add …?")."""
    text = prompt.strip()
    opening = [w.strip(",.!:;\"'") for w in text.lower().split(None, 3)[:3]]
    if len(opening) == 3 and opening[0] in REQUEST_MODALS and opening[1] == "you":
        return opening[2] in TOLD_VERBS  # "can you add …?" asks for work, "can you tell …?" not
    first = opening[0].replace("\u2019", "'") if opening else ""
    if first != "don't":
        first = first.removesuffix("n't").split("'", 1)[0]
    return bool(text) and (first in QUESTION_WORDS or _asked(text))


def _asked(text: str) -> bool:
    """A question mark ends a sentence somewhere in ``text``, not only at its end: "In the
    tests, what colour does it end on? I think your first guess was wrong." asks, and the
    remark after it does not make it an instruction. A "?" inside a word or a URL ("?page=2")
    asks nothing. (No regex: the prompt hook's common path does not import ``re``.)"""
    at = text.find("?")
    while at >= 0:
        if at + 1 == len(text) or text[at + 1].isspace():
            return True
        at = text.find("?", at + 1)
    return False


def resolve_failures(conn: sqlite3.Connection, chosen: Sequence[Recalled]) -> None:
    """Give each failed command among ``chosen`` the next run of the same command in its
    session that did not fail (``git add x`` refused, then ``git add -f x``): what was done
    about it, which a question about a failure also asks."""
    from memlode.storage import briefing

    for hit in chosen:
        if FAILURE_TAG not in hit.tags or "command" not in hit.tags:
            continue
        command = briefing.memory_command(conn, hit.id)
        key = command_key(command or "")
        if not key:
            continue
        pattern = "%" + key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        found = briefing.next_command(conn, hit.id, pattern, FAILURE_TAG)
        if found is not None:
            hit.resolution = " ".join(found[1].split())


def _file_read(hit: Recalled) -> str:
    """The file a Read observation is about ("file:<path>" tag), or ''."""
    if "read" not in hit.tags:
        return ""
    return next((t for t in hit.tags if t.startswith("file:")), "")


def _triples(text: str) -> set[Any]:
    """The text's runs of three consecutive words, lower-cased (the whole text when shorter)."""
    tokens = [w.lower() for w in words(text)]
    return set(zip(tokens, tokens[1:], tokens[2:], strict=False)) or {tuple(tokens)}


def _overlap(a: set[Any], b: set[Any]) -> float:
    """The share of the smaller term set found in the other."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def _unseen_names(
    prompt: str, weights: dict[str, float], unseen: dict[str, str], total: float
) -> tuple[bool | None, bool] | None:
    """What the prompt's words no memory holds (``unseen``) say of it: None when names among
    them carry ``MAX_NAME_SHARE`` of its information (about something never stored), else
    whether one is a name (None: not looked up yet, as they carry less) and whether they carry
    ``MAX_UNSEEN_SHARE``."""
    names: bool | None = None
    unseen_weight = sum(weights[t] for t in unseen)
    if unseen_weight >= MAX_NAME_SHARE * total:
        new = _new_names(unseen, prompt)  # the stems of the unseen words that are names
        if sum(weights[t] for t in new) >= MAX_NAME_SHARE * total:
            return None
        names = bool(new)
    return names, unseen_weight >= MAX_UNSEEN_SHARE * total


def _drop_own_name(weights: dict[str, float], unseen: dict[str, str], project: str) -> int:
    """Leave out of the prompt's ``weights`` (and ``unseen``) the words of the ``project``'s
    name (its namespace's readable part) that no memory holds. Every memory of
    the project is about it, named or not ("Where is the Meridian marketing site deployed?" is
    answered by "Hosting moved to Vercel"): its name is not information the answer lacks, nor
    a name never stored (``_capitalised``). A word of the name that memories do hold ("docs" of
    ``docs-site``) counts as any other: it says which of them the question is about. Returns
    how many words were left out."""
    if not project or not unseen:
        return 0
    own = {stem(t) for t in query_terms(readable_name(project))} & unseen.keys()
    for key in own:
        del weights[key], unseen[key]
    return len(own)


def _names_a_new_thing(unseen: Iterable[str], prompt: str = "") -> bool:
    """Whether one of these prompt terms, which no memory holds, is a name (``_new_names``: not
    an ordinary word, or written as a name in ``prompt``)."""
    return bool(_new_names({term: term for term in unseen}, prompt))


def _matches_a_name(terms: list[str], matched: set[str], prompt: str = "") -> bool:
    """Whether one of the ``matched`` stems is, as the prompt writes it (``terms``, ``prompt``),
    a name rather than an ordinary word (see ``MAX_UNSEEN_SHARE``)."""
    said = {stem(t): t for t in reversed(terms)}
    return bool(_new_names({t: said[t] for t in matched}, prompt))


def _new_names(unseen: dict[str, str], prompt: str = "") -> set[str]:
    """The stems in ``unseen`` (stem: word, of a prompt's words that no memory holds) whose
    word is not an ordinary one (see ``MIN_JOINT_SCORE``; none of those when the model's
    vocabulary is not installed) or that ``prompt`` writes as a name (``_capitalised``)."""
    if not unseen:
        return set()
    from memlode import vocabulary

    capital = _capitalised(prompt)
    known = vocabulary.words()
    return {
        key
        for key, word in unseen.items()
        if word in capital or (known and not vocabulary.ordinary(word, known))
    }


# A word the prompt writes with a capital inside a sentence ("… to a Discord channel?", "… the
# Celery workers") is a name, though the model's vocabulary knows it as an ordinary word:
# a question about a named thing no memory holds is about something never stored. Replay
# (bench/RESULTS.md, "Session 37"): two more controls silent ("How do we post evaluation results
# to a Discord channel?" had opened on the words of a test run's output), no next-day prompt of
# twelve sets lost; training update sets: 5 silent questions fewer injected, 2 of 272
# replacements lost (one named its own project, "Meridian", which no statement says: answered
# again since the project's name is left out, ``_drop_own_name``).
#
# What a sentence (and so a capital that says nothing) may start after:
_SENTENCE_START = frozenset(".!?:\n\"'`(*-")


@functools.lru_cache(maxsize=4)  # asked up to three times for one prompt
def _capitalised(prompt: str) -> frozenset[str]:
    """The words ``prompt`` writes with a capital and then small letters inside a sentence,
    lower-cased: not its first word, nor one after the end of a sentence, a colon, a quote or a
    bracket. (A loop, not ``re``: the hooks do not load it.)"""
    out: set[str] = set()
    starts = True
    i, n = 0, len(prompt)
    while i < n:
        if prompt[i].isalnum() or prompt[i] == "_":
            j = i + 1
            while j < n and (prompt[j].isalnum() or prompt[j] == "_"):
                j += 1
            word = prompt[i:j]
            if not starts and len(word) > 1 and word.isalpha() and word.istitle():
                out.add(word.lower())
            starts, i = False, j
            continue
        if prompt[i] in _SENTENCE_START:
            starts = True
        i += 1
    return frozenset(out)


def _idf_weights(
    conn: sqlite3.Connection,
    terms: list[str],
    session_id: str = "",
    frequencies: Frequencies | None = None,
    unseen: dict[str, str] | None = None,
) -> dict[str, float]:
    """Each stemmed prompt term's BM25 idf over the whole store (a term no memory holds gets
    the highest weight: a prompt about something never stored is not covered). ``unseen``, if
    given, receives each such term, by its stem.

    The current session's own stored prompts do not count: a word known only from an earlier
    question of the same session is still unknown to what is stored, and the gate must not
    pass a prompt because it was asked twice.
    """
    import math

    counted = frequencies(terms[:64]) if frequencies is not None else None
    size = (counted[0] if counted is not None else fts_match.memory_count(conn)) or 1
    asked: list[set[str]] = []
    if session_id:
        asked = [
            {stem(t) for t in _content_terms(text)}
            for text in fts_match.session_texts_tagged(conn, session_id, ("prompt", "instruction"))
        ]
    weights: dict[str, float] = {}
    for term in terms[:64]:
        key = stem(term)
        if key in weights:
            continue
        if counted is not None:
            count = counted[1].get(term, 0)
        else:
            count = fts_match.document_frequency(conn, term)
        count = max(0, count - sum(1 for prompt in asked if key in prompt))
        if not count and unseen is not None:
            unseen[key] = term
        weights[key] = math.log((size - count + 0.5) / (count + 0.5) + 1.0)
    return weights


def _candidates(
    conn: sqlite3.Connection, terms: list[str], namespace: str, session_id: str
) -> list[Any]:
    """The BM25 top ``CANDIDATES`` rows of the namespace outside this session: (id, content,
    type, importance, created_at, tags, source, bm25), best first; a row keeps its best score over
    the expressions, which is the whole query's score (see ``_expressions``)."""
    best: dict[str, Any] = {}
    for expression in _expressions(conn, terms[:64]):
        for row in fts_match.bm25_rows(
            conn, expression, (namespace, GLOBAL_NAMESPACE), session_id, CANDIDATES
        ):
            if row[0] not in best or row[7] < best[row[0]][7]:  # a row keeps its best score
                best[row[0]] = row
    return sorted(best.values(), key=lambda r: (r[7], r[0]))[:CANDIDATES]


def _expressions(conn: sqlite3.Connection, terms: list[str]) -> list[str]:
    """The MATCH expressions whose best rows, merged, are the whole OR query's best rows
    (``memlode.storage.fts_match.choose_expressions``, as the engine's BM25 builds them)."""
    return fts_match.choose_expressions(conn, terms, CANDIDATES * OVERFETCH, SCORING_BUDGET)


def _tags(tags_json: str) -> tuple[str, ...]:
    try:
        tags = loads(tags_json)
    except ValueError:
        return ()
    return tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else ()
