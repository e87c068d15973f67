"""Late interaction with all-MiniLM-L6-v2's own token states: does it re-rank LoCoMo better?

The shipped dense signal compares one pooled vector per turn with one per question. Here the
same model's last-layer token states (the tensor the pooling averages) are kept, and each of
SHIPPED's (``bench/locomo_research.py``) top ``--pool`` turns per question is re-scored
ColBERT-style: the mean over the question's tokens of the best cosine with any token of the
turn, or of a same-session neighbour's tokens times ``neighbour`` (a turn is understood with
its neighbours, as everywhere else in recall). The score, min-max normalised over the pool, is
added with weight ``w`` to SHIPPED's max-normalised score. No new weights and no training: the
ONNX graph memlode builds gets a second output.

The last rows store the states as memlode ships them (``memlode.search.late``): content word
pieces only (stop words and punctuation left out, on both sides, by the local embedder's own
rule) and the turns' states reduced to sign bits, the question's kept as floats.

    .venv/bin/python bench/locomo_late_interaction.py [--pool 60]

Token states are cached in /tmp/memlode-locomo-research/tokens-late.pkl (float16, ~110 MB).
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo_research as lr

CACHE = lr.CACHE / "tokens-late.pkl"


def token_states(texts: list[str]) -> list[np.ndarray]:
    """Each text's L2-normalised last-layer token vectors ([CLS] and [SEP] dropped)."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    from memlode.embed._local import LocalEmbedder, _encode

    embedder = LocalEmbedder(cache_dir=lr.CACHE / "models")
    embedder.load()
    graph_path = embedder._graph_path()
    assert graph_path is not None
    model = onnx.load(str(graph_path))
    # The pooling is ReduceSum(Mul(states, mask)): its Mul's first input is the token states.
    muls = {n.output[0]: n for n in model.graph.node if n.op_type == "Mul"}
    states = next(
        muls[n.input[0]].input[0]
        for n in model.graph.node
        if n.op_type == "ReduceSum" and n.input[0] in muls
    )
    model.graph.output.append(
        helper.make_tensor_value_info(states, TensorProto.FLOAT, ["batch", "seq", None])
    )
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ids = _encode(embedder._load_tokenizer(), texts)
    out: list[np.ndarray] = [np.zeros((0, 0))] * len(texts)
    order = np.argsort([len(x) for x in ids])
    for start in range(0, len(order), 32):
        rows = order[start : start + 32]
        width = min(256, max(len(ids[i]) for i in rows))
        tokens = np.zeros((len(rows), width), np.int64)
        mask = np.zeros_like(tokens)
        for r, i in enumerate(rows):
            piece = ids[i][:width]
            tokens[r, : len(piece)] = piece
            mask[r, : len(piece)] = 1
        result = session.run([states], {"input_ids": tokens, "attention_mask": mask})[0]
        for r, i in enumerate(rows):
            n = int(mask[r].sum())
            vectors = result[r, 1 : n - 1] if n > 2 else result[r, :n]
            vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
            out[i] = vectors.astype(np.float16)
    return out


def load_states(conversations: list[Any], questions: list[Any]) -> dict[str, list[np.ndarray]]:
    if CACHE.exists():
        cached: dict[str, list[np.ndarray]] = pickle.loads(CACHE.read_bytes())
        return cached
    started = time.time()
    turns = token_states([t.content for c in conversations for t in c.turns])
    asked = token_states([q.query for q in questions])
    print(f"token states of {len(turns) + len(asked)} texts in {time.time() - started:.0f} s")
    states = {"turns": turns, "questions": asked}
    CACHE.write_bytes(pickle.dumps(states))
    return states


def as_shipped(
    conversations: list[Any], questions: list[Any], states: dict[str, list[np.ndarray]]
) -> dict[str, list[np.ndarray]]:
    """The cached states as the product keeps them: content pieces only, turns as sign bits."""
    from memlode.embed._local import LocalEmbedder, _encode
    from memlode.search.late import pack_states, unpack_states

    embedder = LocalEmbedder(cache_dir=lr.CACHE / "models")
    tokenizer = embedder._load_tokenizer()

    def pruned(texts: list[str], rows: list[np.ndarray]) -> list[np.ndarray]:
        out = []
        for ids, vectors in zip(_encode(tokenizer, texts), rows, strict=True):
            keep = embedder.content_mask(ids[1 : len(vectors) + 1])  # cache: no [CLS], [SEP]
            out.append(vectors[keep] if keep.any() else vectors)
        return out

    turns = pruned([t.content for c in conversations for t in c.turns], states["turns"])
    asked = pruned([q.query for q in questions], states["questions"])
    return {
        "turns": [unpack_states(pack_states(v.astype(np.float32)), v.shape[1]) for v in turns],
        "questions": [v.astype(np.float32) for v in asked],
    }


def late_scores(cd: lr.ConvData, base: np.ndarray, pool: int, neighbour: float) -> np.ndarray:
    """Q x N: the late-interaction score of each question's top ``pool`` turns (0 elsewhere)."""
    turns = cd.turn_states  # type: ignore[attr-defined]
    out = np.zeros_like(base)
    for qi in range(base.shape[0]):
        query = cd.question_states[qi].astype(np.float32)  # type: ignore[attr-defined]
        for j in np.argsort(-base[qi])[:pool]:
            best = (query @ turns[j].astype(np.float32).T).max(axis=1)
            for k in (j - 1, j + 1):
                if neighbour and 0 <= k < len(turns) and cd.sessions[k] == cd.sessions[j]:
                    near = (query @ turns[k].astype(np.float32).T).max(axis=1)
                    best = np.maximum(best, neighbour * near)
            out[qi, j] = best.mean()
    return out


def evaluate(data: list[lr.ConvData], pool: int, neighbour: float, weight: float) -> np.ndarray:
    rows = []
    for cd in data:
        base = lr.score(cd, lr.SHIPPED)
        late = late_scores(cd, base, pool, neighbour)
        low = np.where(late > 0, late, np.inf).min(axis=1, keepdims=True)
        high = late.max(axis=1, keepdims=True)
        late = np.where(late > 0, (late - low) / np.maximum(high - low, 1e-9), 0.0)
        fused = lr.normalise(base, "max") + weight * late
        order = np.argsort(-fused, axis=1, kind="stable")[:, :25]
        for qi, question in enumerate(cd.questions):
            rows.append(lr.ranked_metrics(cd, question, order[qi]))
    return np.mean(rows, axis=0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=lr.DEFAULT_DATA)
    parser.add_argument("--pool", type=int, default=60)
    args = parser.parse_args(argv)
    conversations, questions, toks = lr.load(args.data, dense=True)
    data = lr.prepare(conversations, questions, toks)
    asked = [q for cd in data for q in cd.questions]
    raw = load_states(conversations, asked)
    print(f"re-ranking SHIPPED's top {args.pool}: all questions | conversations 1-5 | 6-10")
    print("variant                    R@5   R@10  R@25  S@5  |  R@5/R@10/R@25 per half")
    for kind, states in (("float16", raw), ("shipped", as_shipped(conversations, asked, raw))):
        attach(data, states)
        settings = ((0.0, 0.0), (0.0, 0.2), (0.0, 0.3), (0.8, 0.2), (0.8, 0.3))
        for neighbour, weight in settings if kind == "float16" else settings[1:2]:
            whole = evaluate(data, args.pool, neighbour, weight)
            halves = [evaluate(part, args.pool, neighbour, weight) for part in (data[:5], data[5:])]
            name = "SHIPPED" if weight == 0 else f"+ late w {weight}, neighbours {neighbour}"
            if kind == "shipped":
                name = f"+ late as stored, w {weight}"
            print(
                f"{name:<26} {' '.join(f'{v:.3f}' for v in whole)} | "
                + " ".join("/".join(f"{v:.3f}" for v in h[:3]) for h in halves),
                flush=True,
            )


def attach(data: list[lr.ConvData], states: dict[str, list[np.ndarray]]) -> None:
    turn_at = question_at = 0
    for cd in data:
        cd.turn_states = states["turns"][turn_at : turn_at + len(cd.conv.turns)]  # type: ignore[attr-defined]
        cd.question_states = states["questions"][question_at : question_at + len(cd.questions)]  # type: ignore[attr-defined]
        turn_at += len(cd.conv.turns)
        question_at += len(cd.questions)


if __name__ == "__main__":
    main()
