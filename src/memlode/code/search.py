"""Symbol search: ranked lookup of definitions by name, by dotted path or by what they do.

Signals, fused linearly:

- name and words: candidates from the symbols' own FTS5 index (porter stemming; identifier parts
  indexed so that ``user name`` finds ``getUserName``); the query is reduced to plain word terms
  first, so user text never reaches MATCH syntax. An exact name beats a prefix, which beats
  words found in the name, then in the qualified name, the doc and the signature.
- body: BM25 over each symbol's enriched text (the words of its body, callers and callees
  too), once the symbol has been embedded, so that a question's words found only in the code
  count.
- vector: with a :class:`SemanticQuery`, the cosine between the question and each symbol's
  embedded text (``memlode.code.symbol_text``: name, signature, doc, callers and callees, body),
  so that a question about behaviour finds the code that does it; the nearest symbols join the
  candidates.
- graph: PageRank (central code first among near-ties) and the heat of recently edited files.

Test code, private helpers and constants are scaled down last, and so is everything but a type
when the question names a kind of type ("the class that ..."). With ``explain`` each hit
carries what every signal added.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memlode.code.lang.spec import is_test_path, word_set
from memlode.code.model import CodeHit, SymbolHit
from memlode.storage.code_symbol_search import symbol_candidates
from memlode.storage.code_symbol_vectors import (
    symbol_rows,
    text_matches,
    vector_matrix_rows,
    vectors_stamp,
)
from memlode.storage.db import Database
from memlode.textutil import identifier_parts

__all__ = [
    "CodeHit",
    "SemanticQuery",
    "SymbolHit",
    "describe",
    "query_terms",
    "search_symbols",
]

# FTS5 bm25 column weights: name, name_parts, qualified_name, doc, signature.
BM25_WEIGHTS = (10.0, 6.0, 3.0, 1.0, 2.0)
# Candidates pulled from FTS5 before re-ranking.
CANDIDATES = 300
# Ranking weights (score units): the word weights were tuned on the older requests/flask
# questions; W_WORDS, W_VECTOR, VECTOR_FLOOR and W_BODY on the tune half of
# bench/code_search_heldout.json (bench/code_search_eval.py --half tune), with the older
# questions held at 47 of 47 found; W_EXACT and W_PREFIX were raised so that a name typed in
# full comes first (neither set moved with them).
W_EXACT = 24.0  # the query is the symbol's name (above any sum of the other signals)
W_PREFIX = 6.0  # the symbol's name starts with the query
W_NAME_TERMS = 4.0  # share of query terms among the name's parts
W_QUALIFIED_TERMS = 1.5  # share of query terms in the qualified name
W_DOC_TERMS = 2.0  # share of query terms in doc or signature
W_BM25 = 2.0  # bm25 relative to the best candidate
W_PAGERANK = 1.0  # log-scaled PageRank relative to the best candidate
W_WORDS = 0.5  # scales the five word signals above against the body and vector signals
W_VECTOR = 16.0  # cosine similarity, rescaled from VECTOR_FLOOR..1 to 0..1
W_HEAT = 2.0  # the symbol's file was edited recently (heat capped at 1): a tie-breaker
W_BODY = 4.0  # BM25 over the symbol's embedded text (body words included), relative to the best
# Symbols whose text (body included) matches the query's words that join the candidates.
BODY_CANDIDATES = 100
# Cosines below this say nothing (unrelated texts of all-MiniLM-L6-v2 sit around 0.1-0.2).
VECTOR_FLOOR = 0.2
# Nearest symbols by vector that join the lexical candidates.
VECTOR_CANDIDATES = 100
# What a developer rarely means unless they say so: test code (by kind or by file), private
# helpers, and constants (a question about behaviour is answered by code that behaves).
TEST_FACTOR = 0.5
PRIVATE_FACTOR = 0.85
CONSTANT_FACTOR = 0.8
# A question that names a kind of type ("the class that ...", "the enum of ...") asks for the
# type, not for one of its members or a function that uses it: other kinds are scaled down.
TYPE_WORDS = word_set("class classes enum enums struct structs trait traits interface dataclass")
TYPE_KINDS = frozenset({"class", "interface", "type"})
TYPE_INTENT_FACTOR = 0.8

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
# English words that carry no meaning in a code question (kept short: "get", "set", "file",
# "path" and the like are real identifier parts and stay).
STOPWORDS = word_set(
    """a an and are as at be by can do does for from how i in into is it its of on or that
    the their then there these this to what when where which who why will with without
    code function functions method methods class classes implemented implementation
    defined definition happens handle handled handles we you our should would"""
)


# The opening of a question that says what kind of answer is wanted ("who calls the function
# that ...", "where is the code that ..."), not what the code does: dropped before ranking.
_ASKING = re.compile(
    r"^\s*(?:(?:who|what)\s+(?:calls|uses|depends\s+on|would\s+break\s+if\s+i\s+chang\w*"
    r"|breaks\s+if\s+i\s+chang\w*|is\s+affected\s+if\s+i\s+chang\w*)"
    r"|where\s+(?:is|are|does|do)|how\s+(?:is|are|does|do)|find|show\s+me|which)\s+"
    r"(?:(?:the|a|an|it|we)\s+)?"
    r"(?:(?:function|method|class|helper|code|check|symbol|type|struct|trait|interface"
    r"|constant|routine|logic)\s+)?(?:that|which|where|to)?\s*",
    re.IGNORECASE,
)


def describe(query: str) -> str:
    """The part of a question that describes the code: ``who calls the function that parses
    durations`` -> ``parses durations``."""
    rest = _ASKING.sub("", query, count=1).strip()
    return rest or query.strip()


def _stem(word: str) -> str:
    """A crude stem for term matching outside FTS (FTS itself uses porter)."""
    for suffix in ("ing", "ers", "ies", "es", "ed", "er", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def query_terms(query: str) -> list[str]:
    """Lower-case word terms of a query: identifiers split into parts, stopwords dropped."""
    terms: dict[str, None] = {}
    for word in _WORD.findall(query):
        parts = identifier_parts(word) or [word.lower()]
        for part in [word.lower(), *parts] if len(parts) > 1 else parts:
            part = part.strip("_")
            if part and part not in STOPWORDS:
                terms.setdefault(part, None)
    return list(terms)


def _words(text: str) -> set[str]:
    out: set[str] = set()
    for word in _WORD.findall(text):
        out.add(_stem(word.lower()))
        out.update(_stem(p) for p in identifier_parts(word))
    return out


def _share(terms: list[str], words: set[str]) -> float:
    if not terms:
        return 0.0
    return sum(1 for t in terms if _stem(t) in words) / len(terms)


@dataclass(frozen=True, slots=True)
class SemanticQuery:
    """The question embedded (a unit vector) by ``model``, the model of the stored vectors."""

    vector: Any  # numpy float32 array
    model: str


@dataclass(slots=True)
class _Candidates:
    """The rows to rank, with what full-text and vector search said of them."""

    rows: list[Any]
    bodies: dict[str, float]  # node id -> BM25 rank of its enriched text (lower is better)
    cosines: dict[str, float]  # node id -> cosine with the question

    def add(self, db: Database, node_ids: list[str], kind: str | None) -> None:
        have = {r[0] for r in self.rows}
        fresh = symbol_rows(db.conn, [n for n in node_ids if n not in have])
        self.rows.extend(r for r in fresh if kind is None or r[3] == kind)


def search_symbols(
    db: Database,
    query: str,
    *,
    namespace: str | None = None,
    kind: str | None = None,
    limit: int = 20,
    semantic: SemanticQuery | None = None,
    heat: Mapping[str, float] | None = None,
    explain: bool = False,
) -> list[SymbolHit]:
    """Ranked symbols for a query (a name, a dotted path or a question in words).

    ``heat`` maps a file path (as stored, relative to its root) to how recently and often it
    was edited (memlode.engine.code.repo_map.edit_heat)."""
    terms = query_terms(describe(query))
    found = _candidates(db, query.strip(), terms, namespace, kind, semantic)
    if not found.rows:
        return []
    rank = _Ranking(query.strip(), terms, found, semantic is not None, heat or {})
    wants_type = not TYPE_WORDS.isdisjoint(w.lower() for w in _WORD.findall(query))
    scored: list[tuple[float, SymbolHit]] = []
    for r in found.rows:
        signals = rank.signals(r)
        factor = _factor(r, wants_type)
        score = sum(signals.values()) * factor
        if explain:
            signals = {k: round(v, 4) for k, v in signals.items()}
            signals["factor"] = round(factor, 4)
        scored.append((score, _hit(r, score, signals if explain else None)))
    scored.sort(key=lambda item: (-item[0], item[1].qualified_name))
    return [hit for _, hit in scored[:limit]]


def _candidates(
    db: Database,
    ident: str,
    terms: list[str],
    namespace: str | None,
    kind: str | None,
    semantic: SemanticQuery | None,
) -> _Candidates:
    """Symbols whose names, docs or signatures match, then those whose enriched text does,
    then the nearest by vector."""
    found = _Candidates([], {}, {})
    if terms:
        match = _or_terms(terms)
        if re.fullmatch(r"[A-Za-z_][\w.:]*", ident):
            match += f' OR "{ident.rsplit(".", 1)[-1].rsplit(":", 1)[-1].lower()}"*'
        found.rows = symbol_candidates(
            db.conn, match, namespace=namespace, kind=kind, weights=BM25_WEIGHTS, limit=CANDIDATES
        )
        model = semantic.model if semantic else None
        for node, rank in text_matches(db.conn, _or_terms(terms), model, namespace,
                                       BODY_CANDIDATES):  # fmt: skip
            found.bodies[node] = min(found.bodies.get(node, 0.0), rank)
        found.add(db, list(found.bodies), kind)
    if semantic is not None:
        found.cosines = cosines = _cosines(db, semantic, namespace)
        near = [n for n, c in cosines.items() if c > VECTOR_FLOOR]
        nearest = sorted(near, key=cosines.__getitem__, reverse=True)[:VECTOR_CANDIDATES]
        found.add(db, nearest, kind)
    return found


class _Ranking:
    """Each signal of a candidate row, relative to the best of the candidates where it says."""

    def __init__(
        self,
        ident: str,
        terms: list[str],
        found: _Candidates,
        semantic: bool,
        heat: Mapping[str, float],
    ) -> None:
        self.terms = terms
        self.found = found
        self.semantic = semantic
        self.heat = heat
        self.lowered = ident.lower()
        self.tail = re.split(r"[.:]+", self.lowered)[-1]
        self.best_bm25 = max(-r[10] for r in found.rows) or 1.0
        self.best_body = max((-v for v in found.bodies.values()), default=0.0) or 1.0
        self.best_pr = max(r[11] for r in found.rows)

    def signals(self, r: Any) -> dict[str, float]:
        name, terms = r[1], self.terms
        name_l = name.lower()
        named = 0.0
        if name_l in (self.lowered, self.tail) or r[2].lower() == self.lowered:
            named = W_EXACT
        elif len(self.tail) >= 3 and name_l.startswith(self.tail):
            named = W_PREFIX
        words = W_BM25 * (-r[10] / self.best_bm25) if r[10] else 0.0
        if terms:
            name_words = _words(name) | {_stem(p) for p in r[12].split()}
            words += W_NAME_TERMS * _share(terms, name_words)
            words += W_QUALIFIED_TERMS * _share(terms, _words(r[2]))
            words += W_DOC_TERMS * _share(terms, _words(r[8]) | _words(r[7]))
        out = {"name": named, "words": W_WORDS * words}
        if self.found.bodies:
            rank = self.found.bodies.get(r[0])
            out["body"] = W_BODY * (-rank / self.best_body) if rank else 0.0
        if self.semantic:
            cosine = self.found.cosines.get(r[0], 0.0)
            out["vector"] = W_VECTOR * max(0.0, cosine - VECTOR_FLOOR) / (1 - VECTOR_FLOOR)
        if self.best_pr > 0 and r[11] > 0:
            out["pagerank"] = W_PAGERANK * max(0.0, 1 + math.log10(r[11] / self.best_pr) / 4)
        if self.heat:
            out["recent_edit"] = W_HEAT * min(1.0, self.heat.get(r[4], 0.0))
        return out


def _factor(r: Any, wants_type: bool) -> float:
    """What a developer rarely means unless they say so, scaled down."""
    factor = TYPE_INTENT_FACTOR if wants_type and r[3] not in TYPE_KINDS else 1.0
    if r[3] == "test" or is_test_path(r[4]):
        factor *= TEST_FACTOR
    if r[3] == "constant":
        factor *= CONSTANT_FACTOR
    if r[9] == "private":
        factor *= PRIVATE_FACTOR
    return factor


def _hit(r: Any, score: float, signals: dict[str, float] | None) -> SymbolHit:
    return SymbolHit(
        node_id=r[0],
        name=r[1],
        qualified_name=r[2],
        kind=r[3],
        path=r[4],
        line=r[5],
        end_line=r[6],
        signature=r[7],
        doc=r[8].split("\n\n", 1)[0][:300],
        visibility=r[9],
        score=round(score, 6),
        pagerank=r[11],
        signals=signals,
    )


def _or_terms(terms: list[str]) -> str:
    return " OR ".join(f'"{t}"' for t in terms)


# The symbol vectors of the last few (database, namespace, model) searched, kept while the
# store's vector stamp stays the same: a long-lived process (MCP server, resident) reads them
# once, not on every query (the stdlib's 20k vectors are 30 MB).
_MATRICES: OrderedDict[tuple[str, str | None, str], tuple[str, list[str], Any]] = OrderedDict()
_MATRICES_KEPT = 4


def _matrix(db: Database, model: str, namespace: str | None) -> tuple[list[str], Any]:
    import numpy as np

    key = (str(db.path), namespace, model)
    stamp = vectors_stamp(db.conn)
    cached = _MATRICES.get(key)
    if cached is not None and cached[0] == stamp:
        _MATRICES.move_to_end(key)
        return cached[1], cached[2]
    stored = vector_matrix_rows(db.conn, model, namespace)
    ids = [node for node, _ in stored]
    dim = len(stored[0][1]) // 4 if stored else 0
    matrix = np.frombuffer(b"".join(v for _, v in stored), dtype="<f4").reshape(len(ids), dim)
    _MATRICES[key] = (stamp, ids, matrix)
    while len(_MATRICES) > _MATRICES_KEPT:
        _MATRICES.popitem(last=False)
    return ids, matrix


def _cosines(db: Database, semantic: SemanticQuery, namespace: str | None) -> dict[str, float]:
    """node id -> cosine with the question, for every embedded symbol of the namespace."""
    import numpy as np

    ids, matrix = _matrix(db, semantic.model, namespace)
    query = np.asarray(semantic.vector, dtype=np.float32)
    if not ids or matrix.shape[1] != query.shape[0]:
        return {}
    sims = matrix @ query
    return dict(zip(ids, sims.tolist(), strict=True))
