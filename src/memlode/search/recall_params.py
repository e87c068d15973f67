"""The ranking parameters of recall: the defaults with where each value comes from, and
``RecallParams``, what one search runs with (``memlode.search.hybrid``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memlode.search.fts import SCORING_BUDGET
from memlode.search.late import DEFAULT_LATE_POOL, DEFAULT_LATE_WEIGHT
from memlode.search.signals import DEFAULT_HALF_LIFE_DAYS, EVERGREEN_NAMES

if TYPE_CHECKING:
    from memlode.config import Settings

__all__ = [
    "ADJUSTMENTS",
    "BOOKKEEPING_EDGES",
    "DECAY_FLOOR",
    "DECAY_SOURCES",
    "DEFAULT_CANDIDATES",
    "DEFAULT_FAILURE_BOOST",
    "DEFAULT_MIN_SCORE",
    "DEFAULT_MMR_LAMBDA",
    "DEFAULT_QUESTION_PENALTY",
    "DEFAULT_SESSION_PRIOR",
    "DEFAULT_SMOOTHING",
    "DEFAULT_SUMMARIZED_PENALTY",
    "GRAPH_MIX",
    "GRAPH_NEIGHBOURS",
    "MIN_VECTOR_SIMILARITY",
    "SESSION_TOP",
    "SIGNALS",
    "SOURCE_WEIGHTS",
    "SUPERSEDED_MARGIN",
    "RecallParams",
]

# DESIGN.md defaults: MMR lambda 0.7, minimum score 0.1.
DEFAULT_MMR_LAMBDA = 0.7
DEFAULT_MIN_SCORE = 0.1
# How many candidates each index contributes before scoring.
DEFAULT_CANDIDATES = 100
# A memory that shares no word with the query must be at least this close in meaning to be a
# candidate: below it, all-MiniLM-L6-v2 cosines are unrelated text (typically 0.0-0.15).
MIN_VECTOR_SIMILARITY = 0.2
# Conversation turns (see storage/turn_context.py): a turn's vector is smoothed with its
# neighbours' (v + 0.5 * (prev + next)), and every turn gets a bonus from how well its whole session
# matches (mean of the session's best two scores, max-normalised, times 0.4). Both measured
# on LoCoMo (bench/RESULTS.md): smoothing +0.02 turn recall@5, the session prior +0.01 @10.
DEFAULT_SMOOTHING = 0.5
DEFAULT_SESSION_PRIOR = 0.4
SESSION_TOP = 2
# A memory that is one utterance ending in a question ("What's their name?") names the topic
# but rarely holds the fact asked about; the answer is the turn after it. It loses this share
# of the best score. LoCoMo (bench/locomo_research.py and the eval, bench/RESULTS.md): 0.1 is
# the best of 0.02-0.3 on both halves of the data; turn recall@5 +0.016.
DEFAULT_QUESTION_PENALTY = 0.1
# A question about what went wrong ("why did the commit get bounced?") is answered by what
# failed: the hooks' observations of failed tool calls (tagged ``failure``), which share few of
# its words with it. Each gets this share of the best score. Session replay (bench/RESULTS.md,
# session 10), offline on one kept store: 0.05-0.1 +1 prompt, 0.15-0.3 +2, controls unchanged.
DEFAULT_FAILURE_BOOST = 0.2
# An observation a consolidation summary stands for (engine/consolidation: the same file read
# ten times, a command re-run) loses this share of the best score: its summary says it once.
DEFAULT_SUMMARIZED_PENALTY = 0.1
# A memory a later one replaced (a SUPERSEDES / INVALIDATED_BY link: engine/supersession.py)
# loses this share of the best score, and ranks below its replacement when both are found: it
# is history, still findable by its own words. Update evaluation (bench/RESULTS.md, "Current,
# not just relevant").
DEFAULT_SUPERSEDED_PENALTY = 0.3
SUPERSEDED_MARGIN = 0.02  # below its replacement by this share of the best score
# Edges that record bookkeeping, not knowledge: left out of the degree a memory's graph
# signal falls back to (a summary's SUMMARIZES edges would make it the best connected) and of
# the relationships a vector is embedded with. EXEMPLIFIES: a detected pattern's evidence
# (engine/consolidation/patterns), which must not change the evidence's rank or vector.
BOOKKEEPING_EDGES = ("SUMMARIZES", "EXEMPLIFIES")
# Graph neighbours of the strongest candidates added to the candidates at most, heaviest edges
# first (a theme hub or a decision linked to hundreds of rows would otherwise bring them all
# into scoring). Bookkeeping edges add none (a summary's members rank lower anyway). A 10k
# store before and after cluster: search p50 8.2 -> 11.8 ms without this, 10.3 with it.
GRAPH_NEIGHBOURS = 100
# Sources whose score decays with age (memory files: issue 7); others only get the recency
# signal. The floor keeps a stale note findable instead of erasing it.
DECAY_SOURCES = frozenset({"doc"})
DECAY_FLOOR = 0.2
# A transcript row (a turn's chunk, a session's digest, a compaction summary:
# engine/transcript_build.py) restates inside a longer text what the hooks observed one by one
# (each command with its outcome, each edit, each report). Its weighted score is multiplied by
# this, so that of two memories holding the same evidence the one that is only about it comes
# first (and shows more of itself within the injection's budget). Session replay, offline on the
# stores ten sets' live replays kept (bench/RESULTS.md, session 26): 0.9 and 0.92 answer 5 more
# of 240 untuned prompts and 1 more of 52 tuned, no control changed; 0.95: 1 more. LoCoMo's
# conversations are not transcript rows.
SOURCE_WEIGHTS = {"transcript": 0.9}
# Graph strength mix from DESIGN.md: PageRank 40% + betweenness 30% + degree 20% + cluster 10%.
GRAPH_MIX = (0.4, 0.3, 0.2, 0.1)
# The list-level adjustments after the session prior, in the order they apply (and are reported).
ADJUSTMENTS = ("question", "failure", "summarized", "replacing", "superseded", "late")
# The signals in the order they are summed (and reported).
SIGNALS = ("bm25", "vector", "graph", "temporal", "tags", "importance", "confidence", "recency")


@dataclass(slots=True)
class RecallParams:
    weights: dict[str, float]
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    evergreen: frozenset[str] = EVERGREEN_NAMES
    mmr_lambda: float = DEFAULT_MMR_LAMBDA
    min_score: float = DEFAULT_MIN_SCORE
    candidates: int = DEFAULT_CANDIDATES
    smoothing: float = DEFAULT_SMOOTHING
    session_prior: float = DEFAULT_SESSION_PRIOR
    question_penalty: float = DEFAULT_QUESTION_PENALTY
    failure_boost: float = DEFAULT_FAILURE_BOOST
    summarized_penalty: float = DEFAULT_SUMMARIZED_PENALTY
    superseded_penalty: float = DEFAULT_SUPERSEDED_PENALTY
    late_interaction: float = DEFAULT_LATE_WEIGHT
    late_pool: int = DEFAULT_LATE_POOL
    decay_sources: frozenset[str] = DECAY_SOURCES
    source_weights: dict[str, float] = field(default_factory=lambda: dict(SOURCE_WEIGHTS))
    scoring_budget: int = SCORING_BUDGET  # BM25 rows scored per query (search/fts.py)

    @classmethod
    def configured(cls, weights: dict[str, float], settings: Settings) -> RecallParams:
        """The defaults with ``[recall]``'s knobs (``Settings.recall_*``; None keeps a default,
        and ``evergreen`` adds file names to ``EVERGREEN_NAMES``)."""
        params = cls(weights=weights)
        if settings.recall_half_life_days is not None:
            params.half_life_days = settings.recall_half_life_days
        if settings.recall_mmr_lambda is not None:
            params.mmr_lambda = settings.recall_mmr_lambda
        if settings.recall_min_score is not None:
            params.min_score = settings.recall_min_score
        if settings.recall_evergreen:
            params.evergreen = params.evergreen | frozenset(settings.recall_evergreen)
        return params

    def pool(self, k: int) -> int:
        """BM25 candidates for ``k`` hits."""
        return max(self.candidates, k * 2)

    def vector_candidates(self, k: int) -> int:
        """Nearest vectors looked at for ``k`` hits (those that share no word with the query
        must still reach ``MIN_VECTOR_SIMILARITY``): as many as BM25 contributes. Twice as many
        cost ~12 ms a query at 100k memories (their rows and BM25 scores) for no measured gain:
        LoCoMo 0.727 / 0.822 / 0.890 with 200 vs 0.727 / 0.822 / 0.889 with 100, and 98.6% of
        the 100k bench's top 10 kept (bench/RESULTS.md)."""
        return self.pool(k)

    def describe(self) -> dict[str, Any]:
        return {
            "weights": dict(self.weights),
            "half_life_days": self.half_life_days,
            "evergreen": sorted(self.evergreen),
            "mmr_lambda": self.mmr_lambda,
            "min_score": self.min_score,
            "candidates": self.candidates,
            "smoothing": self.smoothing,
            "session_prior": self.session_prior,
            "question_penalty": self.question_penalty,
            "failure_boost": self.failure_boost,
            "summarized_penalty": self.summarized_penalty,
            "superseded_penalty": self.superseded_penalty,
            "late_interaction": self.late_interaction,
            "late_pool": self.late_pool,
            "decay_sources": sorted(self.decay_sources),
            "source_weights": dict(self.source_weights),
            "scoring_budget": self.scoring_budget,
        }
