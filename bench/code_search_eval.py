"""Code-search evaluation: questions with expected symbols, on real projects, through the path
a user's assistant takes (``memlode.engine.code``: index with symbol embeddings, then
``search_symbols`` -- behind ``memlode symbols`` and the MCP tool -- and ``impact``).

    python bench/code_search_eval.py [--questions FILE ...] [--half tune|heldout|all]
        [--project NAME=DIR ...] [--limit 10] [--no-baseline] [--verbose] [--json]

Question files: bench/code_search_heldout.json (166 questions over five projects the project
never tuned on, written blind, split into a tune and a held-out half) and, with
``--questions bench/code_search_questions.json``, the older 51 over requests and flask.
Question types: behaviour and symbol (a hit is an expected qualified name among the first
``--limit`` symbols) and impact: in the held-out set the question describes a function (its
"target") and a hit is one of its expected callers among the first ``--limit`` dependants that
``impact`` lists; the older set's impact questions (no "target") are searches like the others.

The baseline, computed in the same run on the same questions with the same embedder: one text
per symbol (kind, the qualified name with identifiers split, signature, doc, the first lines of
its body), plain cosine; for impact questions, the callers of its best symbol.

Projects come from bench/realcode.py entries ("eval-..."), fetched when missing, or from PyPI
sdists ("name==version"); ``--project NAME=DIR`` points one at a folder instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
CACHE = Path(tempfile.gettempdir()) / "memlode-bench-sdists"
BASELINE_BODY_LINES = 10


def _sdist(spec: str) -> Path:
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


def _source(spec: str) -> Path:
    from bench.realcode import entries, fetch

    return fetch(spec) if spec in entries() else _sdist(spec)


def _baseline_texts(engine: Any, namespace: str) -> tuple[list[str], list[str]]:
    """(node ids, texts) of the plain dense baseline: every symbol of the namespace."""
    from memlode.code.symbol_text import split_words
    from memlode.storage.code_symbol_vectors import symbol_sources

    ids: list[str] = []
    texts: list[str] = []
    cache: dict[str, list[str]] = {}
    for s in symbol_sources(engine.conn, namespace):
        path = os.path.join(s.root, s.path)
        if path not in cache:
            cache[path] = Path(path).read_text("utf-8", errors="replace").splitlines()
        body = "\n".join(cache[path][s.line_start : s.line_start + BASELINE_BODY_LINES])
        name = split_words(s.qualified_name.replace("::", " ").replace(".", " "))
        ids.append(s.node_id)
        texts.append(f"{s.kind} {name}\n{s.signature}\n{s.doc}\n{body}")
    return ids, texts


class Baseline:
    """Plain cosine over the baseline texts of one namespace."""

    def __init__(self, engine: Any, namespace: str) -> None:
        import numpy as np

        self.ids, texts = _baseline_texts(engine, namespace)
        embedder = engine.embeddings.embedder
        started = time.perf_counter()
        chunks = [embedder.embed(texts[i : i + 64]) for i in range(0, len(texts), 64)]
        self.seconds = time.perf_counter() - started
        self.matrix = np.vstack(chunks) if chunks else np.zeros((0, embedder.dim), "float32")
        self.embedder = embedder

    def search(self, query: str, limit: int) -> list[str]:
        import numpy as np

        sims = self.matrix @ self.embedder.embed([query])[0]
        order = np.argsort(-sims)[:limit]
        return [self.ids[i] for i in order]


def _qualified(node_id: str) -> str:
    return node_id.split(":", 2)[-1]


def _rank(names: list[str], expected: set[str]) -> int | None:
    return next((i + 1 for i, n in enumerate(names) if n in expected), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, action="append", default=[])
    parser.add_argument("--half", choices=["tune", "heldout", "all"], default="all")
    parser.add_argument("--project", action="append", default=[], help="NAME=DIR")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from memlode.code.navigate import impact_of_nodes
    from memlode.config import Settings
    from memlode.engine import Engine, code

    files = args.questions or [HERE / "code_search_heldout.json"]
    projects: dict[str, str] = {}
    questions: list[dict[str, Any]] = []
    for file in files:
        spec = json.loads(file.read_text())
        projects.update(spec["projects"])
        questions.extend(
            q for q in spec["questions"] if args.half == "all" or q.get("half") == args.half
        )
    roots = {name: Path(d) for name, _, d in (p.partition("=") for p in args.project)}
    wanted = {q["project"] for q in questions}
    for name, source in projects.items():
        if name in wanted and name not in roots:
            roots[name] = _source(source)

    figures: dict[str, Any] = {"projects": {}}
    ranks: list[tuple[dict[str, Any], int | None, int | None]] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MEMLODE_HOME"] = tmp
        engine = Engine(Settings.load())
        for name in sorted(roots):
            started = time.perf_counter()
            stats = code.index(engine, roots[name], namespace=name, embed=False)
            index_s = time.perf_counter() - started
            from memlode.engine.code import embed_symbols

            vectors = embed_symbols(engine, name)
            baseline = None if args.no_baseline else Baseline(engine, name)
            figures["projects"][name] = {
                "files": stats["files"],
                "symbols": stats["symbols"],
                "index_seconds": round(index_s, 2),
                "embedded": vectors.embedded,
                "embed_seconds": round(vectors.seconds, 2),
                "symbols_per_second": vectors.to_dict()["symbols_per_second"],
                "baseline_texts": len(baseline.ids) if baseline else None,
                "baseline_embed_seconds": round(baseline.seconds, 2) if baseline else None,
            }
            started = time.perf_counter()
            for item in (q for q in questions if q["project"] == name):
                expected = set(item["expected"])
                if "target" in item:  # an impact question: its answers are the callers
                    result = code.impact(engine, item["q"], namespace=name)
                    names = [_qualified(h["node_id"]) for h in result["hits"]][: args.limit]
                    top = result["symbol"]["qualified_name"]
                else:
                    hits = code.search_symbols(engine, item["q"], namespace=name, limit=args.limit)
                    names = [h["qualified_name"] for h in hits]
                    top = names[0] if names else ""
                rank = _rank(names, expected)
                base_rank = None
                if baseline is not None:
                    found = baseline.search(item["q"], args.limit)
                    if "target" in item:  # an impact question: its answers are the callers
                        walk = impact_of_nodes(engine.db, found[:1])
                        found = [h.node_id for h in walk.hits][: args.limit]
                    base_rank = _rank([_qualified(n) for n in found], expected)
                ranks.append((item, rank, base_rank))
                if args.verbose:
                    print(f"{rank or '-':>3} {base_rank or '-':>3}  [{item.get('id', name)}]"
                          f" {item['q']}  -> {top}")  # fmt: skip
            figures["projects"][name]["query_seconds"] = round(time.perf_counter() - started, 2)
        engine.close()

    def summary(rows: list[tuple[dict[str, Any], int | None, int | None]]) -> dict[str, Any]:
        n = len(rows) or 1
        out: dict[str, Any] = {"questions": len(rows)}
        for label, pick in (("", 1), ("baseline_", 2)):
            got = [r[pick] for r in rows]
            if pick == 2 and args.no_baseline:
                continue
            out[f"{label}hit@1"] = round(sum(1 for r in got if r == 1) / n, 3)
            out[f"{label}hit@10"] = round(sum(1 for r in got if r is not None) / n, 3)
            out[f"{label}mrr"] = round(sum(1 / r for r in got if r) / n, 3)
        return out

    groups: dict[str, list[tuple[dict[str, Any], int | None, int | None]]] = defaultdict(list)
    for row in ranks:
        item = row[0]
        half = item.get("half", "-")
        groups[f"half={half}"].append(row)
        groups[f"half={half} type={item['type']}"].append(row)
        groups[f"type={item['type']}"].append(row)
        groups[f"project={item['project']}"].append(row)
    figures["results"] = {
        "overall": summary(ranks),
        **{k: summary(v) for k, v in sorted(groups.items())},
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for name, p in figures["projects"].items():
        print(f"{name}: {p['files']} files, {p['symbols']} symbols; index {p['index_seconds']} s,"
              f" embed {p['embedded']} in {p['embed_seconds']} s ({p['symbols_per_second']}/s),"
              f" baseline {p['baseline_texts']} in {p['baseline_embed_seconds']} s;"
              f" queries {p['query_seconds']} s")  # fmt: skip
    print(f"{'':32} {'n':>3} {'hit@1':>6} {'hit@10':>6} {'MRR':>6}   baseline hit@10  MRR")
    for key, v in figures["results"].items():
        base = (f"   {v['baseline_hit@10']:>14.3f} {v['baseline_mrr']:>5.3f}"
                if "baseline_hit@10" in v else "")  # fmt: skip
        print(f"{key:32} {v['questions']:>3} {v['hit@1']:>6.3f} {v['hit@10']:>6.3f}"
              f" {v['mrr']:>6.3f}{base}")  # fmt: skip


if __name__ == "__main__":
    main()
