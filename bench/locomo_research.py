"""LoCoMo ranking research: which turn ranking reaches the issue's recall goals?

A standalone experiment, not the product: it scores every LoCoMo turn for every question with
BM25 computed in numpy (tokens from SQLite FTS5's own porter tokenizer, so terms match the
engine's index), all-MiniLM-L6-v2 vectors from ``memlode.embed`` and combinations of both, and
prints turn-level evidence recall@5/@10/@25 and session-level any-evidence R@5 for each variant,
over all questions with evidence and over categories 1-4. No variant looks at answers or at
individual questions: every constant is the same for the whole benchmark.

    .venv/bin/python bench/locomo_research.py [--data ../shared/data/locomo10.json]
        [--only NAME,...] [--no-dense] [--window-embeddings]

Tokens and embeddings are cached in /tmp/memlode-locomo-research (delete it to recompute).
"""

from __future__ import annotations

import argparse
import math
import pickle
import re
import sqlite3
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from memlode.evaluation.locomo import Conversation, Question, load_locomo, parse_session_date
from memlode.evaluation.metrics import session_recall_at, turn_recall_at

CACHE = Path("/tmp/memlode-locomo-research")
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10.json"

STOPWORDS = """a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for
from further had has have having he her here hers herself him himself his how i if in into is it
its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves s t don didn doesn
isn wasn weren won wouldn shouldn couldn ll re ve d m o y""".split()
# Question words that carry no topic in a LoCoMo-style question ("What kind of ...", "How many
# times ..."): a second, optional stop list.
QUESTION_WORDS = """kind kinds type types many much likely would might one ones thing things
something someone did does do recently ever""".split()


# ---- data and caches --------------------------------------------------------------------------


def fts_tokens(texts: list[str]) -> list[list[str]]:
    """Each text's terms in order, as FTS5 'porter unicode61 remove_diacritics 2' makes them."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')"
    )
    conn.executemany("INSERT INTO t (rowid, x) VALUES (?, ?)", enumerate(texts, start=1))
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    out: list[list[tuple[int, str]]] = [[] for _ in texts]
    for term, doc, offset in conn.execute("SELECT term, doc, offset FROM v"):
        out[doc - 1].append((offset, term))
    return [[term for _, term in sorted(toks)] for toks in out]


def load(
    data: Path, dense: bool, window_embeddings: bool = False
) -> tuple[list[Conversation], list[Question], dict[str, Any]]:
    conversations, questions = load_locomo(data)
    questions = [q for q in questions if q.evidence]
    CACHE.mkdir(exist_ok=True)
    turn_texts = [t.content for c in conversations for t in c.turns]
    dates = sorted({t.date for c in conversations for t in c.turns})
    qtexts = [q.query for q in questions]
    tok_path = CACHE / "tokens.pkl"
    if tok_path.exists():
        toks = pickle.loads(tok_path.read_bytes())
    else:
        extra = [" ".join(STOPWORDS), " ".join(QUESTION_WORDS), *dates]
        all_tokens = fts_tokens(turn_texts + qtexts + extra)
        toks = {
            "turns": all_tokens[: len(turn_texts)],
            "questions": all_tokens[len(turn_texts) : len(turn_texts) + len(qtexts)],
            "stop": set(all_tokens[len(turn_texts) + len(qtexts)]),
            "qwords": set(all_tokens[len(turn_texts) + len(qtexts) + 1]),
            "dates": dict(zip(dates, all_tokens[len(turn_texts) + len(qtexts) + 2 :], strict=True)),
        }
        tok_path.write_bytes(pickle.dumps(toks))
    if dense:
        emb_path = CACHE / "emb.npz"
        if emb_path.exists():
            z = np.load(emb_path)
            toks["emb_turns"], toks["emb_questions"] = z["turns"], z["questions"]
        else:
            from memlode.embed._local import LocalEmbedder

            embedder = LocalEmbedder(cache_dir=CACHE / "models")
            t0 = time.time()
            et = embedder.embed(turn_texts)
            eq = embedder.embed(qtexts)
            print(
                f"embedded {len(turn_texts) + len(qtexts)} texts in {time.time() - t0:.0f}s",
                file=sys.stderr,
            )
            np.savez(emb_path, turns=et, questions=eq)
            toks["emb_turns"], toks["emb_questions"] = et, eq
        win_path = CACHE / "emb_win1.npz"
        if win_path.exists():
            toks["emb_win1"] = np.load(win_path)["turns"]
        elif window_embeddings:
            from memlode.embed._local import LocalEmbedder

            embedder = LocalEmbedder(cache_dir=CACHE / "models")
            texts = []
            for c in conversations:
                for i, t in enumerate(c.turns):
                    near = [
                        c.turns[j].content
                        for j in (i - 1, i, i + 1)
                        if 0 <= j < len(c.turns) and c.turns[j].session == t.session
                    ]
                    texts.append("\n".join(near))
            t0 = time.time()
            toks["emb_win1"] = embedder.embed(texts)
            print(f"embedded {len(texts)} windows in {time.time() - t0:.0f}s", file=sys.stderr)
            np.savez(win_path, turns=toks["emb_win1"])
    return conversations, questions, toks


# ---- configuration ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    name: str
    # lexical
    bm25: float = 1.0  # weight of the lexical score in the fusion
    k1: float = 1.2
    b: float = 0.75
    stopwords: bool = True
    question_words: bool = False
    window: int = 0  # turns each side folded into a turn's lexical document
    window_weight: float = 1.0  # weight of neighbour term counts in the window document
    prev_scale: float = 1.0  # extra factor on neighbours before the turn
    next_scale: float = 1.0  # extra factor on neighbours after the turn
    proper_nouns: float = 1.0  # query weight of capitalised words (not the first word)
    answer_fold: float = 0.0  # fold a question turn ("...?") into the turn that answers it
    fts5_columns: tuple[float, ...] = ()  # FTS5-style: turn, +-1 and +-2 neighbours as columns
    idf_from_turns: bool = False  # window documents scored with single-turn idf
    own_turn: float = 0.0  # extra weight of the turn's own BM25 (single-turn doc) added
    date_terms: bool = False  # index the session date's words with each turn
    date_month_year: bool = False  # ... only its month and year ("May 2023")
    query_tf: bool = False  # repeated query terms count again (FTS5 OR semantics)
    # dense
    dense: float = 0.0  # weight of the vector score in the fusion
    smooth: float = 0.0  # neighbour weight in the smoothed turn vector
    smooth_window: int = 1
    dense_norm: str = "max"  # max | minmax
    dense_source: str = "turn"  # turn | win1 (vectors of the prev+cur+next text)
    # fusion
    fusion: str = "linear"  # linear | rrf
    rrf_k: float = 60.0
    lex_norm: str = "max"  # max | minmax | none
    # session prior
    session: float = 0.0  # weight of the session score added to each of its turns
    session_top: int = 1  # session score = mean of its best n fused turn scores
    session_mode: str = "turns"  # turns | doc (BM25 of the whole session as one document)
    # neighbour propagation of fused scores
    propagate: float = 0.0  # add this x max(neighbour fused score)
    speaker: float = (
        0.0  # bonus (on max-normalised scores) for turns by a speaker the question names
    )
    diversity: float = 0.0  # greedy penalty per turn already picked from the same session
    # pseudo-relevance feedback (RM3-like) on the lexical side
    prf_docs: int = 0
    prf_terms: int = 10
    prf_weight: float = 0.5
    # dense pseudo-relevance feedback (Rocchio): the query vector plus this x the mean vector
    # of the first pass's best ``dense_prf_docs`` turns, then fused again
    dense_prf: float = 0.0
    dense_prf_docs: int = 5
    lemmas: bool = False  # irregular verb forms -> the base form (went, gone -> go), both sides
    # query side only (what memlode ships, search/word_forms.py): each irregular verb form in
    # the question also asks for its other forms, with this weight
    verb_forms: float = 0.0
    # subtracted (on max-normalised scores) from a turn whose text ends in "?" (search/hybrid.py)
    question_penalty: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)


# ---- scoring ----------------------------------------------------------------------------------


def idf_of(df: np.ndarray, n: int) -> np.ndarray:
    # FTS5's idf, floored like FTS5 does so very common terms still count a little.
    idf = np.log((n - df + 0.5) / (df + 0.5))
    return np.maximum(idf, 1e-6)


def bm25_weights(tf: np.ndarray, k1: float, b: float, idf: np.ndarray | None = None) -> np.ndarray:
    n = tf.shape[0]
    dl = tf.sum(axis=1)
    avgdl = max(dl.mean(), 1e-9)
    if idf is None:
        idf = idf_of((tf > 0).sum(axis=0), n)
    denom = tf + k1 * (1 - b + b * dl / avgdl)[:, None]
    return (idf[None, :] * tf * (k1 + 1) / np.where(denom > 0, denom, 1)).astype(np.float32)


def window_matrix(
    sessions: np.ndarray, window: int, weight: float, prev: float = 1.0, nxt: float = 1.0
) -> np.ndarray:
    """N x N matrix: row i sums turn i and its same-session neighbours within ``window``."""
    n = len(sessions)
    m = np.eye(n, dtype=np.float32)
    for d in range(1, window + 1):
        w = weight**d if weight != 1.0 else 1.0
        for i in range(n):
            for j, scale in ((i - d, prev), (i + d, nxt)):
                if 0 <= j < n and sessions[j] == sessions[i]:
                    m[i, j] = w * scale
    return m


def normalise(s: np.ndarray, how: str) -> np.ndarray:
    if how == "none":
        return s
    if how == "zscore":
        z = (s - s.mean(axis=1, keepdims=True)) / np.maximum(s.std(axis=1, keepdims=True), 1e-9)
        return z / 4.0  # about the same spread as max-normalised scores
    if how == "minmax":
        lo = s.min(axis=1, keepdims=True)
        hi = s.max(axis=1, keepdims=True)
        return (s - lo) / np.where(hi - lo > 0, hi - lo, 1)
    hi = s.max(axis=1, keepdims=True)
    return s / np.where(hi > 0, hi, 1)


def rrf(s: np.ndarray, k: float) -> np.ndarray:
    ranks = np.argsort(np.argsort(-s, axis=1), axis=1)
    return 1.0 / (k + ranks + 1)


@dataclass
class ConvData:
    conv: Conversation
    sessions: np.ndarray
    tf: np.ndarray  # N x V term counts
    tf_date: np.ndarray  # N x V date-term counts
    tf_month_year: np.ndarray  # N x V month and year terms
    asks: np.ndarray  # N: the turn contains a question mark
    qtf: np.ndarray  # Q x V query term counts (all terms)
    qmask_stop: np.ndarray  # V: term is a stopword
    qmask_qword: np.ndarray  # V
    questions: list[Question]
    emb: np.ndarray | None
    qemb: np.ndarray | None
    emb_win1: np.ndarray | None = None
    qproper: np.ndarray | None = None  # Q x V: term came from a capitalised word
    speaker_hit: np.ndarray | None = None  # Q x N: the turn's speaker is named in the question
    vocab: dict[str, int] = field(default_factory=dict)  # term -> column
    only_asks: np.ndarray | None = None  # N: the turn's text ends in a question mark


IRREGULAR = """go went gone|make made|take took taken|get got gotten|see saw seen|come came
|know knew known|think thought|tell told|say said|give gave given|find found|feel felt
|leave left|bring brought|begin began begun|keep kept|hold held|write wrote written|stand stood
|hear heard|mean meant|meet met|run ran|pay paid|sit sat|speak spoke spoken|lead led
|grow grew grown|lose lost|fall fell fallen|send sent|build built|understand understood
|draw drew drawn|break broke broken|spend spent|rise rose risen|drive drove driven|buy bought
|wear wore worn|choose chose chosen|throw threw thrown|catch caught|win won|teach taught
|eat ate eaten|drink drank drunk|sing sang sung|swim swam swum|fly flew flown|ride rode ridden
|sell sold|fight fought|forget forgot forgotten|sleep slept|feed fed|hide hid hidden
|shoot shot|steal stole stolen|bite bit bitten|blow blew blown|dig dug|freeze froze frozen
|hang hung|shake shook shaken|tear tore torn|wake woke woken|lend lent|flee fled"""


def lemma_map() -> dict[str, str]:
    groups = [g.split() for g in IRREGULAR.replace("\n", " ").split("|")]
    flat = [w for g in groups for w in g]
    stems = dict(zip(flat, (t[0] for t in fts_tokens(flat)), strict=True))
    return {stems[w]: stems[g[0]] for g in groups for w in g[1:] if stems[w] != stems[g[0]]}


def prepare(
    conversations: list[Conversation],
    questions: list[Question],
    toks: dict[str, Any],
    lemmas: bool = False,
) -> list[ConvData]:
    out: list[ConvData] = []
    offset = 0
    qindex = {id(q): i for i, q in enumerate(questions)}
    for conv in conversations:
        n = len(conv.turns)
        turn_toks = toks["turns"][offset : offset + n]
        mine = [q for q in questions if q.sample_id == conv.sample_id]
        q_toks = [toks["questions"][qindex[id(q)]] for q in mine]
        if lemmas:
            lm = lemma_map()
            turn_toks = [[lm.get(t, t) for t in seq] for seq in turn_toks]
            q_toks = [[lm.get(t, t) for t in seq] for seq in q_toks]
        date_toks = [toks["dates"][t.date] for t in conv.turns]
        parsed = {d: parse_session_date(d) for d in {t.date for t in conv.turns}}
        my_texts = sorted({p.strftime("%B %Y") for p in parsed.values() if p})
        my_toks = dict(zip(my_texts, fts_tokens(my_texts), strict=True))
        my_of_turn = [
            my_toks[p.strftime("%B %Y")] if (p := parsed[t.date]) else [] for t in conv.turns
        ]
        caps = [
            " ".join(w for w in re.findall(r"[A-Za-z][\w'-]*", q.query)[1:] if w[0].isupper())
            for q in mine
        ]
        cap_toks = fts_tokens(caps)
        vocab: dict[str, int] = {}
        for seq in (*turn_toks, *q_toks, *date_toks, *cap_toks, *my_of_turn):
            for term in seq:
                vocab.setdefault(term, len(vocab))
        v = len(vocab)

        def counts(seqs: list[list[str]], vocab: dict[str, int] = vocab, v: int = v) -> np.ndarray:
            m = np.zeros((len(seqs), v), dtype=np.float32)
            for i, seq in enumerate(seqs):
                for term in seq:
                    m[i, vocab[term]] += 1
            return m

        stop = np.zeros(v, dtype=bool)
        qword = np.zeros(v, dtype=bool)
        for term, j in vocab.items():
            stop[j] = term in toks["stop"]
            qword[j] = term in toks["qwords"]
        emb = qemb = None
        if "emb_turns" in toks:
            emb = toks["emb_turns"][offset : offset + n]
            qemb = toks["emb_questions"][[qindex[id(q)] for q in mine]]
        out.append(
            ConvData(
                conv=conv,
                sessions=np.array([t.session for t in conv.turns]),
                tf=counts(turn_toks),
                tf_date=counts(date_toks),
                tf_month_year=counts(my_of_turn),
                asks=np.array(["?" in t.text for t in conv.turns]),
                qtf=counts(q_toks),
                qproper=counts(cap_toks),
                qmask_stop=stop,
                qmask_qword=qword,
                questions=mine,
                emb=emb,
                qemb=qemb,
                emb_win1=toks["emb_win1"][offset : offset + n] if "emb_win1" in toks else None,
                vocab=vocab,
                only_asks=np.array([t.text.strip().endswith("?") for t in conv.turns]),
                speaker_hit=np.array(
                    [
                        [
                            t.speaker.lower() in q.query.lower().replace("'s", " ")
                            for t in conv.turns
                        ]
                        for q in mine
                    ],
                    dtype=np.float32,
                ),
            )
        )
        offset += n
    return out


def query_vectors(cd: ConvData, cfg: Config) -> np.ndarray:
    q = cd.qtf.copy()
    if not cfg.query_tf:
        q = (q > 0).astype(np.float32)
    drop = np.zeros(q.shape[1], dtype=bool)
    if cfg.stopwords:
        drop |= cd.qmask_stop
    if cfg.question_words:
        drop |= cd.qmask_qword
    kept = q * ~drop[None, :]
    if cfg.proper_nouns != 1.0 and cd.qproper is not None:
        kept = kept * np.where(cd.qproper > 0, cfg.proper_nouns, 1.0)
    # A question made only of stop words keeps them (as the engine's sanitiser does).
    empty = kept.sum(axis=1) == 0
    kept[empty] = q[empty]
    if cfg.verb_forms:
        kept = kept + cfg.verb_forms * verb_form_matrix(cd, kept)
    return kept


def verb_form_matrix(cd: ConvData, q: np.ndarray) -> np.ndarray:
    """Q x V: the other forms' columns of each irregular verb the query holds (not asked yet)."""
    groups = verb_groups()
    add = np.zeros_like(q)
    terms = {j: t for t, j in cd.vocab.items()}
    for i, j in zip(*np.nonzero(q), strict=True):
        for other in groups.get(terms[int(j)], ()):
            k = cd.vocab.get(other)
            if k is not None and q[i, k] == 0:
                add[i, k] = 1.0
    return add


_VERB_GROUPS: dict[str, set[str]] = {}


def verb_groups() -> dict[str, set[str]]:
    """FTS5 stem -> the stems of its irregular verb's forms (go -> {go, went, gone})."""
    if not _VERB_GROUPS:
        groups = [g.split() for g in IRREGULAR.replace("\n", " ").split("|")]
        flat = [w for g in groups for w in g]
        stem = dict(zip(flat, (t[0] for t in fts_tokens(flat)), strict=True))
        for g in groups:
            stems = {stem[w] for w in g}
            for one in stems:
                _VERB_GROUPS.setdefault(one, set()).update(stems - {one})
    return _VERB_GROUPS


def lexical(cd: ConvData, cfg: Config, q: np.ndarray) -> np.ndarray:
    tf = cd.tf + (cd.tf_date if cfg.date_terms else 0)
    if cfg.date_month_year:
        tf = tf + cd.tf_month_year
    if cfg.window:
        w = window_matrix(
            cd.sessions, cfg.window, cfg.window_weight, cfg.prev_scale, cfg.next_scale
        )
        unit_tf = w @ tf
    else:
        unit_tf = tf
    if cfg.answer_fold:
        prev = np.zeros_like(tf)
        same = cd.sessions[1:] == cd.sessions[:-1]
        take = same & cd.asks[:-1]
        prev[1:][take] = tf[:-1][take]
        unit_tf = unit_tf + cfg.answer_fold * prev
    if cfg.fts5_columns:
        return fts5_bm25(cd, cfg, tf, q)
    turn_idf = idf_of((tf > 0).sum(axis=0), tf.shape[0]) if cfg.idf_from_turns else None
    s = q @ bm25_weights(unit_tf, cfg.k1, cfg.b, turn_idf).T
    if cfg.own_turn:
        s = s + cfg.own_turn * (q @ bm25_weights(tf, cfg.k1, cfg.b).T)
    if cfg.prf_docs:
        top = np.argsort(-s, axis=1)[:, : cfg.prf_docs]
        weights = bm25_weights(unit_tf, cfg.k1, cfg.b)
        exp = np.zeros_like(q)
        for i in range(q.shape[0]):
            rel = weights[top[i]]  # docs x V
            rel = rel / np.maximum(rel.sum(axis=1, keepdims=True), 1e-9)
            agg = rel.mean(axis=0)
            agg[cd.qmask_stop] = 0
            agg[q[i] > 0] = 0
            keep = np.argsort(-agg)[: cfg.prf_terms]
            if agg[keep].max(initial=0) > 0:
                exp[i, keep] = agg[keep] / agg[keep].max()
        s = s + cfg.prf_weight * (exp @ weights.T)
    return s


def fts5_bm25(cd: ConvData, cfg: Config, tf: np.ndarray, q: np.ndarray) -> np.ndarray:
    """What FTS5's bm25() computes for a table whose columns are the turn and its neighbours
    at each distance, with ``cfg.fts5_columns`` as column weights: one idf per term over rows,
    length normalisation per column."""
    n = tf.shape[0]
    columns = [tf]
    for d in range(1, len(cfg.fts5_columns)):
        m = window_matrix(cd.sessions, d, 1.0)
        if d > 1:
            m = m - window_matrix(cd.sessions, d - 1, 1.0)
        np.fill_diagonal(m, 0)
        columns.append(m @ tf)
    df = (sum(columns) > 0).sum(axis=0)
    idf = idf_of(df, n)
    total = np.zeros((q.shape[0], n), dtype=np.float32)
    for weight, col in zip(cfg.fts5_columns, columns, strict=True):
        dl = col.sum(axis=1)
        avgdl = max(dl.mean(), 1e-9)
        denom = col + cfg.k1 * (1 - cfg.b + cfg.b * dl / avgdl)[:, None]
        w = idf[None, :] * col * (cfg.k1 + 1) / np.where(denom > 0, denom, 1)
        total += weight * (q @ w.T)
    return total


def dense_scores(cd: ConvData, cfg: Config, qemb: np.ndarray | None = None) -> np.ndarray:
    assert cd.emb is not None and cd.qemb is not None
    e = cd.emb if cfg.dense_source == "turn" else cd.emb_win1
    assert e is not None, "run with --window-embeddings once to cache the window vectors"
    if cfg.smooth:
        w = window_matrix(cd.sessions, cfg.smooth_window, 1.0)
        w = w * cfg.smooth
        np.fill_diagonal(w, 1.0)
        e = w @ e
        e = e / np.linalg.norm(e, axis=1, keepdims=True)
    if qemb is not None:
        return qemb @ e.T
    if cfg.dense_prf:
        first = score(cd, replace(cfg, dense_prf=0.0, session=0.0, speaker=0.0))
        top = np.argsort(-first, axis=1)[:, : cfg.dense_prf_docs]
        q2 = cd.qemb + cfg.dense_prf * e[top].mean(axis=1)
        q2 = q2 / np.linalg.norm(q2, axis=1, keepdims=True)
        return q2 @ e.T
    return cd.qemb @ e.T


def score(cd: ConvData, cfg: Config) -> np.ndarray:
    q = query_vectors(cd, cfg)
    parts: list[np.ndarray] = []
    weights: list[float] = []
    if cfg.bm25:
        parts.append(lexical(cd, cfg, q))
        weights.append(cfg.bm25)
    if cfg.dense:
        parts.append(dense_scores(cd, cfg))
        weights.append(cfg.dense)
    if cfg.fusion == "rrf":
        fused = sum(w * rrf(p, cfg.rrf_k) for w, p in zip(weights, parts, strict=True))
    else:
        norms = ([cfg.lex_norm] if cfg.bm25 else []) + ([cfg.dense_norm] if cfg.dense else [])
        fused = sum(w * normalise(p, how) for w, p, how in zip(weights, parts, norms, strict=True))
    fused = np.asarray(fused, dtype=np.float32)
    if cfg.propagate:
        w = window_matrix(cd.sessions, 1, 1.0)
        np.fill_diagonal(w, 0)
        neigh = np.stack([(fused * w[i][None, :]).max(axis=1) for i in range(w.shape[0])], axis=1)
        fused = fused + cfg.propagate * neigh
    if cfg.session:
        sess_ids = np.unique(cd.sessions)
        if cfg.session_mode in ("doc", "both"):
            stf = np.stack([cd.tf[cd.sessions == s].sum(axis=0) for s in sess_ids])
            ss = q @ bm25_weights(stf, cfg.k1, cfg.b).T  # Q x S
            if cfg.dense and cd.emb is not None and cd.qemb is not None:
                se = np.stack([cd.emb[cd.sessions == s].mean(axis=0) for s in sess_ids])
                se = se / np.linalg.norm(se, axis=1, keepdims=True)
                ss = cfg.bm25 * normalise(ss, "max") + cfg.dense * normalise(cd.qemb @ se.T, "max")
        if cfg.session_mode in ("turns", "both"):
            st = np.zeros((fused.shape[0], len(sess_ids)), dtype=np.float32)
            for j, s in enumerate(sess_ids):
                block = np.sort(fused[:, cd.sessions == s], axis=1)[:, ::-1][:, : cfg.session_top]
                st[:, j] = block.mean(axis=1)
            ss = st if cfg.session_mode == "turns" else normalise(ss, "max") + normalise(st, "max")
        ss = normalise(ss, "max")
        col = {s: j for j, s in enumerate(sess_ids)}
        idx = np.array([col[s] for s in cd.sessions])
        fused = normalise(fused, "max") + cfg.session * ss[:, idx]
    if cfg.speaker and cd.speaker_hit is not None:
        fused = normalise(fused, "max") + cfg.speaker * cd.speaker_hit
    if cfg.question_penalty and cd.only_asks is not None:
        fused = normalise(fused, "max") - cfg.question_penalty * cd.only_asks[None, :]
    return fused


def diversify(s: np.ndarray, sessions: np.ndarray, penalty: float, depth: int) -> np.ndarray:
    """Greedy top-``depth`` indices; each pick lowers its session's other turns by ``penalty``."""
    out = np.zeros((s.shape[0], depth), dtype=np.int64)
    s = normalise(s, "max")
    same = sessions[:, None] == sessions[None, :]
    for i in range(s.shape[0]):
        row = s[i].copy()
        for r in range(depth):
            j = int(np.argmax(row))
            out[i, r] = j
            row[same[j]] -= penalty
            row[j] = -np.inf
    return out


# ---- evaluation -------------------------------------------------------------------------------


def ranked_metrics(cd: ConvData, question: Question, order: Any) -> list[float]:
    """Turn recall @5/@10/@25 and session recall @5 of one question's ranked turn indexes."""
    ids = [t.dia_id for t in cd.conv.turns]
    sess = {t.dia_id: f"D{t.session}" for t in cd.conv.turns}

    def key(t: str) -> str:
        return sess.get(t, t.partition(":")[0])

    ranked = [ids[j] for j in order]
    ev = question.evidence
    return [
        turn_recall_at(ranked, ev, 5),
        turn_recall_at(ranked, ev, 10),
        turn_recall_at(ranked, ev, 25),
        session_recall_at(ranked, ev, 5, key),
    ]


def evaluate(data: list[ConvData], cfg: Config, depth: int = 25) -> dict[str, float]:
    rows: list[tuple[int, list[float]]] = []
    for cd in data:
        s = score(cd, cfg)
        if cfg.diversity:
            order = diversify(s, cd.sessions, cfg.diversity, depth)
        else:
            order = np.argsort(-s, axis=1, kind="stable")[:, :depth]
        for qi, question in enumerate(cd.questions):
            rows.append((question.category, ranked_metrics(cd, question, order[qi])))
    allm = np.array([r for _, r in rows]).mean(axis=0)
    c14 = np.array([r for c, r in rows if c != 5]).mean(axis=0)
    out = {f"all_{n}": float(v) for n, v in zip(("r5", "r10", "r25", "s5"), allm, strict=True)}
    out.update({f"c14_{n}": float(v) for n, v in zip(("r5", "r10", "r25", "s5"), c14, strict=True)})
    for cat in range(1, 6):
        sel = [r for c, r in rows if c == cat]
        if sel:
            out[f"cat{cat}_r10"] = float(np.mean([r[1] for r in sel]))
    return out


def variants(dense: bool) -> list[Config]:
    base = Config("bm25 turn, all words", stopwords=False, query_tf=True)
    v = [
        base,
        Config("bm25 turn, stopwords dropped"),
        Config("bm25 turn, stop+question words dropped", question_words=True),
        Config("bm25 window 1", window=1),
        Config("bm25 window 1, nb 0.5", window=1, window_weight=0.5),
        Config("bm25 window 2, nb 0.5", window=2, window_weight=0.5),
        Config("bm25 window 1 + own turn 0.5", window=1, own_turn=0.5),
        Config("bm25 window 1, qwords", window=1, question_words=True),
        Config("bm25 window 1, k1 0.9 b 0.4", window=1, k1=0.9, b=0.4),
        Config("bm25 window 1, k1 1.5 b 0.9", window=1, k1=1.5, b=0.9),
        Config("bm25 window 1 + dates", window=1, date_terms=True),
        Config("bm25 window 1 + prf 5x10", window=1, prf_docs=5, prf_terms=10, prf_weight=0.3),
        Config("bm25 window 1 + session 0.3", window=1, session=0.3, session_top=2),
        Config("bm25 window 1 + session-doc 0.3", window=1, session=0.3, session_mode="doc"),
    ]
    if dense:
        d = Config("dense", bm25=0.0, dense=1.0)
        v += [
            d,
            replace(d, name="dense smoothed 0.5", smooth=0.5),
            replace(d, name="dense smoothed 1.0", smooth=1.0),
        ]
        f = Config("fuse w1 + dense s0.5, 0.5/0.5", window=1, dense=1.0, smooth=0.5)
        v += [
            f,
            replace(f, name="fuse 0.6/0.4", bm25=0.6, dense=0.4),
            replace(f, name="fuse 0.4/0.6", bm25=0.4, dense=0.6),
            replace(f, name="fuse minmax", lex_norm="minmax", dense_norm="minmax"),
            replace(f, name="fuse rrf", fusion="rrf"),
            replace(f, name="fuse + qwords", question_words=True),
            replace(f, name="fuse + own turn 0.5", own_turn=0.5),
            replace(f, name="fuse + session 0.2 top2", session=0.2, session_top=2),
            replace(f, name="fuse + session 0.4 top2", session=0.4, session_top=2),
            replace(f, name="fuse + session 0.4 top1", session=0.4, session_top=1),
            replace(f, name="fuse + session 0.4 top3", session=0.4, session_top=3),
            replace(f, name="fuse + session-doc 0.3", session=0.3, session_mode="doc"),
            replace(f, name="fuse + propagate 0.3", propagate=0.3),
            replace(f, name="fuse + prf", prf_docs=5, prf_terms=10, prf_weight=0.3),
            replace(f, name="fuse + dates", date_terms=True),
        ]
    if dense:
        w2 = Config(
            "W2: bm25 w2 nb.5 + dense s.5",
            window=2, window_weight=0.5, dense=1.0, smooth=0.5,
        )  # fmt: skip
        v += [
            w2,
            replace(w2, name="W2 + own .5", own_turn=0.5),
            replace(w2, name="W2 + dates", date_terms=True),
            replace(w2, name="W2 + own .5 + dates", own_turn=0.5, date_terms=True),
            replace(w2, name="W2 + own .5 + dates + sdoc .3", own_turn=0.5, date_terms=True,
                    session=0.3, session_mode="doc"),
            replace(w2, name="W2 + own .5 + dates + sess .4", own_turn=0.5, date_terms=True,
                    session=0.4, session_top=2),
            replace(w2, name="W3 nb.5 + dense s.5", window=3),
            replace(w2, name="W2 nb.7 + dense s.5", window_weight=0.7),
            replace(w2, name="W2 + own 1.0 + dates + sess .4", own_turn=1.0, date_terms=True,
                    session=0.4, session_top=2),
            replace(w2, name="B: W2 + own .5 + dates + sess .4 + spk .05", own_turn=0.5,
                    date_terms=True, session=0.4, session_top=2, speaker=0.05),
            replace(w2, name="B + div .05", own_turn=0.5, date_terms=True, session=0.4,
                    session_top=2, diversity=0.05),
            replace(w2, name="B + div .15", own_turn=0.5, date_terms=True, session=0.4,
                    session_top=2, diversity=0.15),
            replace(w2, name="B fuse .6/.4", own_turn=0.5, date_terms=True, session=0.4,
                    session_top=2, bm25=0.6, dense=0.4),
            replace(w2, name="B fuse .4/.6", own_turn=0.5, date_terms=True, session=0.4,
                    session_top=2, bm25=0.4, dense=0.6),
            replace(w2, name="B sess .7", own_turn=0.5, date_terms=True, session=0.7,
                    session_top=2),
            replace(w2, name="B + prf", own_turn=0.5, date_terms=True, session=0.4,
                    session_top=2, prf_docs=5, prf_weight=0.3),
            replace(w2, name="B spk .1", own_turn=0.5, date_terms=True, session=0.4,
                    session_top=2, speaker=0.1),
            replace(w2, name="B spk .2", own_turn=0.5, date_terms=True, session=0.4,
                    session_top=2, speaker=0.2),
            replace(w2, name="B spk .1 prev 1.4 next .6", own_turn=0.5, date_terms=True,
                    session=0.4, session_top=2, speaker=0.1, prev_scale=1.4, next_scale=0.6),
            replace(w2, name="B spk .1 prev .6 next 1.4", own_turn=0.5, date_terms=True,
                    session=0.4, session_top=2, speaker=0.1, prev_scale=0.6, next_scale=1.4),
            replace(w2, name="B spk .1 proper x2", own_turn=0.5, date_terms=True,
                    session=0.4, session_top=2, speaker=0.1, proper_nouns=2.0),
            replace(w2, name="B spk .1 proper x.5", own_turn=0.5, date_terms=True,
                    session=0.4, session_top=2, speaker=0.1, proper_nouns=0.5),
            replace(w2, name="C: B spk .1 prev 1.4 next .6 sess both", own_turn=0.5,
                    date_terms=True, session=0.4, session_top=2, speaker=0.1, prev_scale=1.4,
                    next_scale=0.6, session_mode="both"),
            replace(w2, name="C sess both .6", own_turn=0.5,
                    date_terms=True, session=0.6, session_top=2, speaker=0.1, prev_scale=1.4,
                    next_scale=0.6, session_mode="both"),
            replace(w2, name="C smooth w2 .3", own_turn=0.5, smooth_window=2, smooth=0.3,
                    date_terms=True, session=0.4, session_top=2, speaker=0.1, prev_scale=1.4,
                    next_scale=0.6, session_mode="both"),
            replace(w2, name="C smooth .3", own_turn=0.5, smooth=0.3,
                    date_terms=True, session=0.4, session_top=2, speaker=0.1, prev_scale=1.4,
                    next_scale=0.6, session_mode="both"),
            replace(w2, name="C + answer fold .5", own_turn=0.5,
                    date_terms=True, session=0.4, session_top=2, speaker=0.1, prev_scale=1.4,
                    next_scale=0.6, session_mode="both", answer_fold=0.5),
            replace(w2, name="C + answer fold 1", own_turn=0.5,
                    date_terms=True, session=0.4, session_top=2, speaker=0.1, prev_scale=1.4,
                    next_scale=0.6, session_mode="both", answer_fold=1.0),
            replace(w2, name="C sym + answer fold 1", own_turn=0.5,
                    date_terms=True, session=0.4, session_top=2, speaker=0.1,
                    session_mode="both", answer_fold=1.0),
            replace(w2, name="D: C sym fold 1 month-year", own_turn=0.5,
                    date_month_year=True, session=0.4, session_top=2, speaker=0.1,
                    session_mode="both", answer_fold=1.0),
            replace(w2, name="D own .25", own_turn=0.25,
                    date_month_year=True, session=0.4, session_top=2, speaker=0.1,
                    session_mode="both", answer_fold=1.0),
            replace(w2, name="D propagate .2", own_turn=0.5, propagate=0.2,
                    date_month_year=True, session=0.4, session_top=2, speaker=0.1,
                    session_mode="both", answer_fold=1.0),
            replace(w2, name="D sess top3 .5", own_turn=0.5,
                    date_month_year=True, session=0.5, session_top=3, speaker=0.1,
                    session_mode="both", answer_fold=1.0),
            replace(w2, name="W2 + dense win1", dense_source="win1", smooth=0.0),
            replace(w2, name="W2 + dense win1 s.3", dense_source="win1", smooth=0.3),
        ]  # fmt: skip
    return v


BEST = Config(
    "BEST",
    window=2,
    window_weight=0.5,
    date_terms=True,
    dense=1.0,
    smooth=0.5,
    session=0.4,
    session_top=2,
    speaker=0.1,
)


# What memlode ships since session 5: BEST plus the question penalty and the verb forms.
SHIPPED = replace(BEST, name="SHIPPED", question_penalty=0.1, verb_forms=1.0)


def shipped_ablations() -> list[Config]:
    s = SHIPPED
    return [
        s,
        replace(s, name="SHIPPED - question penalty", question_penalty=0.0),
        replace(s, name="SHIPPED - verb forms", verb_forms=0.0),
        replace(s, name="SHIPPED, question penalty .05", question_penalty=0.05),
        replace(s, name="SHIPPED, question penalty .15", question_penalty=0.15),
        replace(s, name="SHIPPED, question penalty .2", question_penalty=0.2),
        replace(s, name="SHIPPED, verb forms .5", verb_forms=0.5),
        replace(s, name="SHIPPED, verb forms -> lemmas both sides", verb_forms=0.0, lemmas=True),
    ]


def ablations() -> list[Config]:
    b = BEST
    return [
        b,
        replace(b, name="BEST - window (single turns)", window=0),
        replace(b, name="BEST - window 2 (window 1)", window=1),
        replace(b, name="BEST + answer fold 1", answer_fold=1.0),
        replace(b, name="BEST - date terms", date_terms=False),
        replace(b, name="BEST + own turn .5", own_turn=0.5),
        replace(b, name="BEST - dense", dense=0.0),
        replace(b, name="BEST - dense smoothing", smooth=0.0),
        replace(b, name="BEST - session prior", session=0.0),
        replace(b, name="BEST + session doc", session_mode="both"),
        replace(b, name="BEST, dense on window text", dense_source="win1", smooth=0.0),
        replace(b, name="BEST, dense on window text s.3", dense_source="win1", smooth=0.3),
        replace(
            b,
            name="BEST, window text, fusion .4/.6",
            dense_source="win1",
            smooth=0.0,
            bm25=0.4,
            dense=0.6,
        ),
        replace(b, name="BEST, minmax norms", lex_norm="minmax", dense_norm="minmax"),
        replace(b, name="BEST, zscore norms", lex_norm="zscore", dense_norm="zscore"),
        replace(b, name="BEST, dense minmax", dense_norm="minmax"),
        replace(b, name="BEST, FTS5 columns 1/.5/.25", fts5_columns=(1.0, 0.5, 0.25)),
        replace(b, name="BEST, FTS5 columns 1/.5", fts5_columns=(1.0, 0.5)),
        replace(b, name="BEST, FTS5 columns 1/.7/.35", fts5_columns=(1.0, 0.7, 0.35)),
        replace(b, name="BEST, turn idf", idf_from_turns=True),
        replace(b, name="BEST, turn idf, b .3", idf_from_turns=True, b=0.3),
        replace(b, name="BEST, k1 2.0", k1=2.0),
        replace(b, name="BEST, session .3", session=0.3),
        replace(b, name="BEST, session .6", session=0.6),
        replace(b, name="BEST, speaker .05", speaker=0.05),
        replace(b, name="BEST, speaker .15", speaker=0.15),
        replace(b, name="BEST, fusion .6/.4", bm25=0.6, dense=0.4),
        replace(b, name="BEST, fusion .4/.6", bm25=0.4, dense=0.6),
        replace(b, name="BEST - speaker", speaker=0.0),
        replace(b, name="BEST - stopword removal", stopwords=False),
        replace(b, name="BEST + irregular verb lemmas", lemmas=True),
        replace(b, name="BEST + dense PRF .5x3", dense_prf=0.5, dense_prf_docs=3),
        replace(b, name="BEST + dense PRF .5x5", dense_prf=0.5, dense_prf_docs=5),
        replace(b, name="BEST + dense PRF 1x5", dense_prf=1.0, dense_prf_docs=5),
        replace(b, name="BEST + dense PRF .3x10", dense_prf=0.3, dense_prf_docs=10),
        replace(b, name="BEST + dense PRF 1x10", dense_prf=1.0, dense_prf_docs=10),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--only", default="", help="comma-separated substrings of variant names")
    parser.add_argument("--no-dense", action="store_true")
    parser.add_argument(
        "--window-embeddings",
        action="store_true",
        help="also embed each turn's prev+cur+next text (slow once, then cached)",
    )
    args = parser.parse_args(argv)
    conversations, questions, toks = load(
        args.data, dense=not args.no_dense, window_embeddings=args.window_embeddings
    )
    data = prepare(conversations, questions, toks)
    lemma_data = prepare(conversations, questions, toks, lemmas=True)
    n_all = len(questions)
    n14 = sum(1 for q in questions if q.category != 5)
    print(f"{n_all} questions with evidence ({n14} in categories 1-4)")
    head = (
        f"{'variant':<44} | {'all R@5':>7} {'R@10':>6} {'R@25':>6} {'S@5':>6} |"
        f" {'1-4 R@5':>7} {'R@10':>6} {'R@25':>6} {'S@5':>6} | "
        + " ".join(f"{'c' + str(c):>5}" for c in range(1, 6))
    )
    print(head)
    print("-" * len(head))
    wanted = [w.strip() for w in args.only.split(",") if w.strip()]
    for cfg in [*variants(not args.no_dense), *ablations(), *shipped_ablations()]:
        if wanted and not any(w in cfg.name for w in wanted):
            continue
        if cfg.dense and cfg.dense_source == "win1" and "emb_win1" not in toks:
            print(f"{cfg.name:<44} | skipped: run once with --window-embeddings")
            continue
        t0 = time.time()
        m = evaluate(lemma_data if cfg.lemmas else data, cfg)
        cats = " ".join(f"{m.get(f'cat{c}_r10', math.nan):5.3f}" for c in range(1, 6))
        print(
            f"{cfg.name:<44} | {m['all_r5']:7.3f} {m['all_r10']:6.3f} {m['all_r25']:6.3f}"
            f" {m['all_s5']:6.3f} | {m['c14_r5']:7.3f} {m['c14_r10']:6.3f} {m['c14_r25']:6.3f}"
            f" {m['c14_s5']:6.3f} | {cats}  ({time.time() - t0:.1f}s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
