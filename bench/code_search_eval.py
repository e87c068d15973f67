"""Code-search evaluation: natural-language questions with expected symbols, on real projects.

    python bench/code_search_eval.py [--questions bench/code_search_questions.json]
        [--project NAME=DIR ...] [--limit 10] [--verbose] [--json]

Each project is indexed into a fresh store (its namespace is the project name); every question
goes through ``memlode.code.search.search_symbols`` -- the call behind ``memlode symbols`` and
the MCP ``search_symbols`` tool. A hit is any expected qualified name; printed: hit@1, hit@10
and MRR (over the top ``--limit``), overall, per project and per question type.

Without ``--project``, the sdists named in the question file are fetched with
``pip download --no-deps --no-binary :all:`` into a cache folder under the temp dir.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(tempfile.gettempdir()) / "memlode-bench-sdists"


def _fetch(spec: str) -> Path:
    """Download and unpack an sdist (``name==version``) once; return its folder."""
    CACHE.mkdir(parents=True, exist_ok=True)
    name, _, version = spec.partition("==")
    unpacked = CACHE / f"{name}-{version}"
    if unpacked.is_dir():
        return unpacked
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q",
         "-d", str(CACHE), spec],
        check=True,
    )  # fmt: skip
    archive = next(CACHE.glob(f"{name}-{version}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    return unpacked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=HERE / "code_search_questions.json")
    parser.add_argument("--project", action="append", default=[], help="NAME=DIR")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from memlode.code.indexer import index_project
    from memlode.code.search import search_symbols
    from memlode.storage.db import Database

    spec = json.loads(args.questions.read_text())
    roots = {name: Path(d) for name, _, d in (p.partition("=") for p in args.project)}
    for name, sdist in spec["projects"].items():
        if name not in roots:
            roots[name] = _fetch(sdist)

    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "eval.db")
        for name, root in sorted(roots.items()):
            index_project(db, root, name)
        ranks: list[tuple[dict[str, object], int | None]] = []
        started = time.perf_counter()
        for item in spec["questions"]:
            hits = search_symbols(db, str(item["q"]), namespace=str(item["project"]),
                                  limit=args.limit)  # fmt: skip
            names = [h.qualified_name for h in hits]
            expected = set(item["expected"])
            rank = next((i + 1 for i, n in enumerate(names) if n in expected), None)
            ranks.append((item, rank))
            if args.verbose:
                shown = ", ".join(names[:3])
                print(f"{rank or '-':>3}  [{item['project']}] {item['q']}  -> {shown}")
        seconds = time.perf_counter() - started
        db.close()

    def summary(rows: list[tuple[dict[str, object], int | None]]) -> dict[str, float]:
        n = len(rows) or 1
        return {
            "questions": len(rows),
            "hit@1": sum(1 for _, r in rows if r == 1) / n,
            "hit@10": sum(1 for _, r in rows if r is not None and r <= 10) / n,
            "mrr": sum(1 / r for _, r in rows if r) / n,
        }

    groups: dict[str, list[tuple[dict[str, object], int | None]]] = defaultdict(list)
    for item, rank in ranks:
        groups[f"project={item['project']}"].append((item, rank))
        groups[f"type={item['type']}"].append((item, rank))
    report = {
        "overall": summary(ranks),
        **{k: summary(v) for k, v in sorted(groups.items())},
        "seconds_per_query": seconds / max(1, len(ranks)),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{'':22} {'n':>3} {'hit@1':>6} {'hit@10':>6} {'MRR':>6}")
    for key, value in report.items():
        if isinstance(value, dict):
            print(
                f"{key:22} {value['questions']:>3.0f} {value['hit@1']:>6.2f}"
                f" {value['hit@10']:>6.2f} {value['mrr']:>6.2f}"
            )
    print(f"{report['seconds_per_query'] * 1000:.1f} ms per query")


if __name__ == "__main__":
    main()
