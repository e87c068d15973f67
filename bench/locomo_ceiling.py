"""How far can LoCoMo turn recall go with local, LLM-free signals? Ideas on top of SHIPPED.

A companion of ``bench/locomo_research.py`` (same data, tokens, vectors and metrics) for ideas
that memlode does not ship, each measured on top of the shipped ranking and on both halves of
the data (conversations 1-5 and 6-10), and a learned fusion of every signal, fitted on one
half and scored on the other, as an estimate of what re-weighting these signals can reach:

- word-vector query expansion: each question term also asks, with a small weight, for the
  conversation's terms whose all-MiniLM-L6-v2 word vectors are nearest (dogs -> pups, puppy);
- a length prior: longer turns hold more facts;
- a time bonus: a "when" question prefers turns that say when (yesterday, last week, May).

    .venv/bin/python bench/locomo_ceiling.py [--data ../shared/data/locomo10.json] [--no-learned]

Word vectors are cached in /tmp/memlode-locomo-research/words.npz.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo_research as lr

_WORD = re.compile(r"[A-Za-z][A-Za-z']*[A-Za-z]|[A-Za-z]")
_TIME = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|ago|recently|lately|weekend|since|soon|"
    r"(?:last|next|this) (?:week|month|year|night|weekend|summer|winter|spring|fall)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|january|february|march|april|june|july|"
    r"august|september|october|november|december|\d{4}|few (?:days|weeks|months|years))\b",
    re.IGNORECASE,
)
_WHEN = re.compile(r"\bwhen\b|^\s*how long\b|\bwhat (?:year|month|date|day|time)\b", re.I)


def word_vectors(conversations: list[lr.Conversation], questions: list[lr.Question]) -> dict:
    """Stem -> unit vector: the mean of the MiniLM vectors of the words that stem to it."""
    path = lr.CACHE / "words.npz"
    if path.exists():
        z = np.load(path)
        words, vectors = list(z["words"]), z["vectors"]
    else:
        from memlode.embed._local import LocalEmbedder

        texts = [t.content for c in conversations for t in c.turns] + [q.query for q in questions]
        words = sorted({w.lower() for text in texts for w in _WORD.findall(text)})
        vectors = LocalEmbedder(cache_dir=lr.CACHE / "models").embed(words)
        np.savez(path, words=np.array(words), vectors=vectors)
    stems = [t[0] if t else "" for t in lr.fts_tokens(words)]
    groups: dict[str, list[np.ndarray]] = {}
    for stem, vector in zip(stems, vectors, strict=True):
        if stem:
            groups.setdefault(stem, []).append(vector)
    out = {}
    for stem, vs in groups.items():
        mean = np.mean(vs, axis=0)
        out[stem] = mean / np.linalg.norm(mean)
    return out


def attach(data: list[lr.ConvData], vectors: dict, questions_by_conv: list[list[str]]) -> None:
    """Per conversation: term vectors, turn lengths, time words, when-questions."""
    for cd, queries in zip(data, questions_by_conv, strict=True):
        v = len(cd.vocab)
        matrix = np.zeros((v, 384), dtype=np.float32)
        known = np.zeros(v, dtype=bool)
        for term, j in cd.vocab.items():
            if term in vectors:
                matrix[j], known[j] = vectors[term], True
        in_turns = cd.tf.sum(axis=0) > 0
        sim = matrix @ matrix.T
        keep = np.outer(known & ~cd.qmask_stop, known & ~cd.qmask_stop & in_turns)
        sim = np.where(keep, sim, 0.0)
        np.fill_diagonal(sim, 0.0)
        cd.term_sim = sim  # type: ignore[attr-defined]
        cd.length = np.log1p(cd.tf.sum(axis=1))  # type: ignore[attr-defined]
        cd.tells_time = np.array(  # type: ignore[attr-defined]
            [bool(_TIME.search(t.text)) for t in cd.conv.turns], dtype=np.float32
        )
        cd.asks_when = np.array(  # type: ignore[attr-defined]
            [bool(_WHEN.search(q)) for q in queries], dtype=np.float32
        )


def expansion(cd: lr.ConvData, q: np.ndarray, threshold: float, top: int) -> np.ndarray:
    """Q x V: for each question term, its ``top`` nearest conversation terms above
    ``threshold``, weighted by similarity (terms the question already has excluded)."""
    sim = np.where(cd.term_sim >= threshold, cd.term_sim, 0.0)  # type: ignore[attr-defined]
    kth = -np.sort(-sim, axis=1)[:, top - 1 : top]
    sim = np.where(sim >= kth, sim, 0.0)
    add = (q > 0).astype(np.float32) @ sim
    return np.where(q > 0, 0.0, add).astype(np.float32)


_base_query_vectors = lr.query_vectors
_base_score = lr.score


def query_vectors(cd: lr.ConvData, cfg: lr.Config) -> np.ndarray:
    q = _base_query_vectors(cd, cfg)
    alpha = cfg.extras.get("expand", 0.0)
    if alpha:
        q = q + alpha * expansion(cd, q, cfg.extras.get("threshold", 0.65), 3)
    return q


def score(cd: lr.ConvData, cfg: lr.Config) -> np.ndarray:
    s = _base_score(cd, cfg)
    length, when = cfg.extras.get("length", 0.0), cfg.extras.get("when", 0.0)
    if length or when:
        s = lr.normalise(s, "max")
    if length:
        s = s + length * (cd.length / cd.length.max())[None, :]  # type: ignore[attr-defined]
    if when:
        s = s + when * np.outer(cd.asks_when, cd.tells_time)  # type: ignore[attr-defined]
    return s


lr.query_vectors = query_vectors  # the research module calls these by name
lr.score = score


def line(name: str, data: list[lr.ConvData], cfg: lr.Config) -> str:
    m = lr.evaluate(data, cfg)
    h1, h2 = lr.evaluate(data[:5], cfg), lr.evaluate(data[5:], cfg)
    cats = " ".join(f"{m.get(f'cat{c}_r10', math.nan):5.3f}" for c in range(1, 6))
    halves = " ".join(f"{h['all_r5']:.3f}/{h['all_r10']:.3f}/{h['all_r25']:.3f}" for h in (h1, h2))
    return (
        f"{name:<36} | {m['all_r5']:.3f} {m['all_r10']:.3f} {m['all_r25']:.3f}"
        f" {m['all_s5']:.3f} | {cats} | {halves}"
    )


# ---- learned fusion -----------------------------------------------------------------------


def features(cd: lr.ConvData, cfg: lr.Config) -> dict[str, np.ndarray]:
    n = lr.normalise
    q = lr.query_vectors(cd, cfg)
    plain = replace(cfg, extras={})
    out = {
        "bm25 window 2": n(lr.lexical(cd, cfg, q), "max"),
        "bm25 window 1": n(lr.lexical(cd, replace(cfg, window=1), q), "max"),
        "bm25 turn": n(lr.lexical(cd, replace(cfg, window=0), q), "max"),
        "bm25 expanded": n(
            lr.lexical(cd, cfg, query_vectors(cd, replace(cfg, extras={"expand": 0.3}))), "max"
        ),
        "dense smoothed": n(lr.dense_scores(cd, cfg), "max"),
        "dense turn": n(lr.dense_scores(cd, replace(cfg, smooth=0.0)), "max"),
        "fused": n(
            _base_score(cd, replace(plain, session=0.0, speaker=0.0, question_penalty=0.0)), "max"
        ),
    }
    with_session = n(_base_score(cd, replace(plain, speaker=0.0, question_penalty=0.0)), "max")
    shape = out["fused"].shape
    out["session"] = with_session - out["fused"]
    out["speaker"] = cd.speaker_hit if cd.speaker_hit is not None else np.zeros(shape)
    out["asks"] = np.broadcast_to(cd.only_asks[None, :], shape).astype(np.float32)
    out["length"] = np.broadcast_to((cd.length / cd.length.max())[None, :], shape)  # type: ignore[attr-defined]
    out["when x time"] = np.outer(cd.asks_when, cd.tells_time)  # type: ignore[attr-defined]
    return out


def learned(data: list[lr.ConvData], cfg: lr.Config, pool: int = 200) -> None:
    """Listwise softmax over each question's top ``pool`` turns; fit on one half, score on
    the other (and the other way round)."""
    groups = []
    for ci, cd in enumerate(data):
        f = features(cd, cfg)
        names = list(f)
        first = _base_score(cd, cfg)
        pos = {t.dia_id: i for i, t in enumerate(cd.conv.turns)}
        for qi, question in enumerate(cd.questions):
            cand = np.argsort(-first[qi], kind="stable")[:pool]
            wanted = {pos[e] for e in question.evidence if e in pos}
            x = np.stack([f[k][qi, cand] for k in names], axis=1)
            y = np.array([1.0 if j in wanted else 0.0 for j in cand])
            groups.append((ci, qi, cand, x, y))

    def fit(rows: list[int]) -> np.ndarray:
        w = np.zeros(groups[0][3].shape[1])
        for _ in range(1000):
            grad = np.zeros_like(w)
            for r in rows:
                x, y = groups[r][3], groups[r][4]
                if y.sum() == 0:
                    continue
                s = x @ w
                p = np.exp(s - s.max())
                grad += x.T @ (p / p.sum() - y / y.sum())
            w -= grad / len(rows) + 1e-3 * w
        return w

    def metrics(rows: list[int], w: np.ndarray) -> np.ndarray:
        out = []
        for r in rows:
            ci, qi, cand, x, _ = groups[r]
            cd = data[ci]
            order = cand[np.argsort(-(x @ w), kind="stable")][:25]
            out.append(lr.ranked_metrics(cd, cd.questions[qi], order))
        return np.mean(out, axis=0)

    first_half = [r for r, g in enumerate(groups) if g[0] < 5]
    second_half = [r for r, g in enumerate(groups) if g[0] >= 5]
    w1, w2 = fit(first_half), fit(second_half)
    on2, on1 = metrics(second_half, w1), metrics(first_half, w2)
    print("\nlearned fusion of every signal above (R@5 R@10 R@25 S@5), held out:")
    print(f"  fitted on 1-5, scored on 6-10: {' '.join(f'{v:.3f}' for v in on2)}")
    print(f"  fitted on 6-10, scored on 1-5: {' '.join(f'{v:.3f}' for v in on1)}")
    print(f"  both held-out halves together: {' '.join(f'{v:.3f}' for v in (on1 + on2) / 2)}")
    print(
        "  weights (fit on 1-5):",
        ", ".join(f"{k} {v:+.2f}" for k, v in zip(names, w1, strict=True)),
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=lr.DEFAULT_DATA)
    parser.add_argument("--no-learned", action="store_true")
    args = parser.parse_args(argv)
    t0 = time.time()
    conversations, questions, toks = lr.load(args.data, dense=True)
    data = lr.prepare(conversations, questions, toks)
    attach(
        data,
        word_vectors(conversations, questions),
        [[q.query for q in cd.questions] for cd in data],
    )
    s = lr.SHIPPED
    print(f"{'variant':<36} | R@5   R@10  R@25  S@5   | c1-c5 R@10{' ' * 20}| halves 1-5, 6-10")
    print(line("SHIPPED", data, s))
    for alpha in (0.3, 0.5):
        for threshold in (0.65, 0.75):
            cfg = replace(s, extras={"expand": alpha, "threshold": threshold})
            print(line(f"+ word-vector expansion {alpha} >{threshold}", data, cfg))
    for weight in (0.05, 0.1):
        print(line(f"+ length prior {weight}", data, replace(s, extras={"length": weight})))
    for weight in (0.05, 0.1):
        print(
            line(f"+ when-question time bonus {weight}", data, replace(s, extras={"when": weight}))
        )
    both = replace(s, extras={"expand": 0.3, "threshold": 0.65, "length": 0.1, "when": 0.05})
    print(line("+ all three", data, both))
    if not args.no_learned:
        learned(data, s)
    print(f"\n({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
