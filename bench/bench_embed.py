"""Raw throughput of the local embedder (all-MiniLM-L6-v2): embeddings per second for short
(~20 words) and 100-word texts at several batch sizes, onnxruntime against the numpy forward
pass, and the one-off cost of building the ONNX graph from the safetensors weights.

    .venv/bin/python bench/bench_embed.py [--texts 256] [--threads N] [--skip-numpy]

"wall/s" is embeddings per wall-clock second; "cpu/s" per second of this process's CPU
time, which stays meaningful when other work shares the machine (the load average is printed
first for that reason).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memlode.embed import LocalEmbedder

SEED = 7
SHORT_WORDS = 20
LONG_WORDS = 100
BATCH_SIZES = (1, 8, 32, 64)
TOKEN_BUDGETS = (256, 1_024, 4_096, 16_384)  # padded tokens per forward pass
NUMPY_BATCH_SIZES = (32,)
WARMUP_TEXTS = 4
_WORDS = """
the a of to and in is it that for on with as was at by be this from have or are not but
memory session decision pattern insight context project file function class module test
database query index vector graph edge node token cache hook server client request error
config setting path import export build release deploy commit branch merge review change
user assistant prompt answer search recall rank score weight signal model embed batch
fast slow large small new old first last next previous always never often sometimes
because when while after before since until although however therefore instead also
write read open close parse load save store update delete create remove add keep drop
auth login password key secret permission role access policy rule limit quota budget
sqlite postgres python rust typescript javascript go java json toml yaml markdown text
"""
VOCABULARY = tuple(_WORDS.split())


def make_texts(count: int, words: int, rng: random.Random) -> list[str]:
    return [" ".join(rng.choice(VOCABULARY) for _ in range(words)) + "." for _ in range(count)]


def timed(action: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def measure(
    embedder: LocalEmbedder, label: str, texts: list[str], batch_sizes: tuple[int, ...]
) -> None:
    embedder.embed(texts[:WARMUP_TEXTS])
    for batch_size in batch_sizes:
        embedder.batch_size = batch_size
        wall, cpu = timed(lambda: embedder.embed(texts))
        print(
            f"{embedder.backend:>5}  {label:<9} batch {batch_size:>3}  "
            f"{len(texts) / wall:8.1f} wall/s  {len(texts) / max(cpu, 1e-9):8.1f} cpu/s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=256, help="texts per measurement")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads")
    parser.add_argument("--skip-numpy", action="store_true", help="only onnxruntime")
    args = parser.parse_args()

    print(f"cores {len(os.sched_getaffinity(0))}, load average {os.getloadavg()[0]:.2f}")
    rng = random.Random(SEED)
    short = make_texts(args.texts, SHORT_WORDS, rng)
    long = make_texts(max(args.texts // 2, WARMUP_TEXTS), LONG_WORDS, rng)

    with tempfile.TemporaryDirectory() as cache:
        cold = LocalEmbedder(cache_dir=Path(cache), threads=args.threads)
        build, _ = timed(cold.load)
        warm = LocalEmbedder(cache_dir=Path(cache), threads=args.threads)
        load, _ = timed(warm.load)
    print(f"first load, building the ONNX graph: {build:.2f} s; later loads: {load:.2f} s")
    tokens = warm.token_counts([short[0], long[0]])
    print(f"tokens per text: short {tokens[0]}, 100-word {tokens[1]}")

    print(f"passes hold at most {warm.max_batch_tokens} padded tokens (the default)")
    measure(warm, "short", short, BATCH_SIZES)
    measure(warm, "100-word", long, BATCH_SIZES)
    for budget in TOKEN_BUDGETS:
        warm.max_batch_tokens = budget
        print(f"at most {budget} padded tokens per pass:")
        measure(warm, "100-word", long, (64,))
    if not args.skip_numpy:
        numpy_embedder = LocalEmbedder(backend="numpy")
        load, _ = timed(numpy_embedder.load)
        print(f"numpy backend load: {load:.2f} s")
        measure(numpy_embedder, "short", short, NUMPY_BATCH_SIZES)
        measure(numpy_embedder, "100-word", long[: len(long) // 2], NUMPY_BATCH_SIZES)


if __name__ == "__main__":
    main()
