"""Symbol search: ranked lookup of definitions by name, qualified name, doc and signature.

Candidates come from the symbols' own FTS5 index (porter stemming; identifier parts indexed
so that ``user name`` finds ``getUserName``); the query is reduced to plain word terms first,
so user text never reaches MATCH syntax. Candidates are then re-ranked: an exact name beats a
prefix, which beats words found in the name, then in the qualified name, the doc and the
signature; PageRank breaks near-ties in favour of central code.
"""

from __future__ import annotations

import math
import re

from memlode.code.lang.spec import is_test_path, word_set
from memlode.code.model import CodeHit, SymbolHit
from memlode.storage.code_symbol_search import symbol_candidates
from memlode.storage.db import Database
from memlode.textutil import identifier_parts

__all__ = ["CodeHit", "SymbolHit", "query_terms", "search_symbols"]

# FTS5 bm25 column weights: name, name_parts, qualified_name, doc, signature.
BM25_WEIGHTS = (10.0, 6.0, 3.0, 1.0, 2.0)
# Candidates pulled from FTS5 before re-ranking.
CANDIDATES = 300
# Re-ranking weights (score units); tuned on bench/code_search_eval.py.
W_EXACT = 8.0  # the query is the symbol's name
W_PREFIX = 3.0  # the symbol's name starts with the query
W_NAME_TERMS = 4.0  # share of query terms among the name's parts
W_QUALIFIED_TERMS = 1.5  # share of query terms in the qualified name
W_DOC_TERMS = 2.0  # share of query terms in doc or signature
W_BM25 = 2.0  # bm25 relative to the best candidate
W_PAGERANK = 1.0  # log-scaled PageRank relative to the best candidate
# What a developer rarely means unless they say so: test code (by kind or by file), private
# helpers, and constants (a question about behaviour is answered by code that behaves).
TEST_FACTOR = 0.5
PRIVATE_FACTOR = 0.85
CONSTANT_FACTOR = 0.8

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
# English words that carry no meaning in a code question (kept short: "get", "set", "file",
# "path" and the like are real identifier parts and stay).
STOPWORDS = word_set(
    """a an and are as at be by can do does for from how i in into is it its of on or that
    the their then there these this to what when where which who why will with without
    code function functions method methods class classes implemented implementation
    defined definition happens handle handled handles we you our should would"""
)


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


def search_symbols(
    db: Database,
    query: str,
    *,
    namespace: str | None = None,
    kind: str | None = None,
    limit: int = 20,
) -> list[SymbolHit]:
    """Ranked symbols for a query (a name, a dotted path or a question in words)."""
    terms = query_terms(query)
    ident = query.strip()
    if not terms:
        return []
    match = " OR ".join(f'"{t}"' for t in terms)
    if re.fullmatch(r"[A-Za-z_][\w.:]*", ident):
        match += f' OR "{ident.rsplit(".", 1)[-1].rsplit(":", 1)[-1].lower()}"*'
    rows = symbol_candidates(
        db.conn, match, namespace=namespace, kind=kind, weights=BM25_WEIGHTS, limit=CANDIDATES
    )
    if not rows:
        return []
    best_bm25 = max(-r[10] for r in rows) or 1.0
    best_pr = max(r[11] for r in rows)
    lowered = ident.lower()
    tail = re.split(r"[.:]+", lowered)[-1]
    scored: list[tuple[float, SymbolHit]] = []
    for r in rows:
        name = r[1]
        name_l = name.lower()
        score = W_BM25 * (-r[10] / best_bm25)
        if name_l in (lowered, tail) or r[2].lower() == lowered:
            score += W_EXACT
        elif len(tail) >= 3 and name_l.startswith(tail):
            score += W_PREFIX
        name_words = _words(name) | {_stem(p) for p in r[12].split()}
        score += W_NAME_TERMS * _share(terms, name_words)
        score += W_QUALIFIED_TERMS * _share(terms, _words(r[2]))
        score += W_DOC_TERMS * _share(terms, _words(r[8]) | _words(r[7]))
        if best_pr > 0 and r[11] > 0:
            score += W_PAGERANK * max(0.0, 1 + math.log10(r[11] / best_pr) / 4)
        if r[3] == "test" or is_test_path(r[4]):
            score *= TEST_FACTOR
        if r[3] == "constant":
            score *= CONSTANT_FACTOR
        if r[9] == "private":
            score *= PRIVATE_FACTOR
        hit = SymbolHit(
            node_id=r[0],
            name=name,
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
        )
        scored.append((score, hit))
    scored.sort(key=lambda item: (-item[0], item[1].qualified_name))
    return [hit for _, hit in scored[:limit]]
