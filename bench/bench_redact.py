"""Redaction: recall and false positives on the planted-secrets corpus, and throughput.

Recall is the share of planted secret cases whose values are all gone after ``redact``; a false
positive is a look-alike that comes back changed. Both are reported per format. Throughput is
MB/s of ``redact`` on ordinary text (prose, code, logs, diffs from the corpus's look-alikes and
a generated mix) and on adversarial inputs built to make a backtracking pattern quadratic (one
per pattern family, ``--size`` bytes each, 1 MB by default). Every pattern must stay linear:
the adversarial rate should be of the same order as the ordinary one, not fall with size.

    .venv/bin/python bench/bench_redact.py [--size 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from memlode.redact import redact
from redaction_inputs import adversarial  # bench/redaction_inputs.py: the tests run them too

SAFETY_TESTS = Path(__file__).resolve().parents[1] / "tests" / "e2e" / "safety"
CORPUS = SAFETY_TESTS / "secrets_corpus.json"


def ordinary(size: int, corpus: dict[str, list[dict[str, str]]]) -> str:
    """Prose, code, logs and diffs without secrets: the look-alikes and a generated mix."""
    rng = random.Random(7)
    words = (
        "the a of to in is that for it as with was on be by this are or from at which an "
        "token key password secret auth function return import class def self value config "
        "user session request response error file path commit branch test build deploy"
    ).split()
    pieces = [case["text"] for case in corpus["lookalikes"]]
    lines: list[str] = []
    total = 0
    while total < size:
        if rng.random() < 0.2:
            line = rng.choice(pieces)
        else:
            line = " ".join(rng.choice(words) for _ in range(rng.randint(4, 16)))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def rate(text: str, repeat: int) -> tuple[float, float]:
    """(MB/s, seconds) of the median run."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        redact(text)
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    return len(text.encode()) / 1e6 / seconds if seconds else float("inf"), seconds


def corpus_report(corpus: dict[str, list[dict[str, str]]]) -> tuple[int, int]:
    recall: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    false_pos: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    leaked: list[str] = []
    for case in corpus["secrets"]:
        out = redact(case["text"])
        ok = all(value not in out for value in case["values"])
        recall[case["format"]][0] += ok
        recall[case["format"]][1] += 1
        if not ok:
            leaked.append(case["id"])
    changed: list[str] = []
    for case in corpus["lookalikes"]:
        bad = redact(case["text"]) != case["text"]
        false_pos[case["format"]][0] += bad
        false_pos[case["format"]][1] += 1
        if bad:
            changed.append(case["id"])
    by_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for case in corpus["secrets"] + corpus["lookalikes"]:
        if "class" in case:
            by_class[case["class"]][1] += 1
            by_class[case["class"]][0] += case["id"] not in leaked and case["id"] not in changed
    print(f"{'format':<12} {'recall':>12} {'false positives':>18}")
    for fmt in sorted(set(recall) | set(false_pos)):
        r, f = recall.get(fmt, [0, 0]), false_pos.get(fmt, [0, 0])
        rs = f"{r[0]}/{r[1]}" if r[1] else "-"
        fs = f"{f[0]}/{f[1]}" if f[1] else "-"
        print(f"{fmt:<12} {rs:>12} {fs:>18}")
    found = sum(r[0] for r in recall.values())
    total = sum(r[1] for r in recall.values())
    fps = sum(f[0] for f in false_pos.values())
    print(
        f"{'all':<12} {found}/{total} = {found / total:.1%}  "
        f"false positives {fps}/{len(corpus['lookalikes'])}"
    )
    for name, (good, cases) in sorted(by_class.items()):
        print(f"class {name:<20} {good}/{cases} as expected")
    if leaked:
        print("leaked:", ", ".join(leaked))
    if changed:
        print("changed look-alikes:", ", ".join(changed))
    return total - found, fps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes per input")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    print(f"corpus: {len(corpus['secrets'])} secret cases, {len(corpus['lookalikes'])} look-alikes")
    misses, fps = corpus_report(corpus)
    print()
    text = ordinary(args.size, corpus)
    mbs, seconds = rate(text, args.repeat)
    print(f"{'input':<40} {'MB/s':>8} {'seconds':>9}")
    print(f"{'ordinary text (prose, code, logs)':<40} {mbs:>8.2f} {seconds:>9.3f}")
    worst = float("inf")
    for name, text in adversarial(args.size).items():
        mbs, seconds = rate(text, args.repeat)
        worst = min(worst, mbs)
        print(f"{name:<40} {mbs:>8.2f} {seconds:>9.3f}")
    print(f"slowest adversarial input: {worst:.2f} MB/s")
    sys.exit(1 if misses or fps else 0)


if __name__ == "__main__":
    main()
