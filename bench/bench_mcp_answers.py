"""What a model reads of each read tool's answer: characters per call, structured and text.

Claude Code hands its model ``JSON.stringify(structuredContent)`` whenever a tool result has a
structured part, and drops the text beside it (bench/RESULTS.md, "Session 35"); other clients
show the text. So both are measured, per tool, through the SDK's real stdio client against
``memlode --db DB mcp`` over a real store: a session replay's kept store
(``memlode eval replay SPEC --keep DIR`` leaves ``DIR/offline.db``) and the questions of a
replay spec. For each question: ``recall_memory`` and ``recall_with_expansion`` (k hits,
depth 1), ``recall_with_impact``, ``get_decision_chain`` on the question, and
``graph_traverse`` (depth 2) from the first hit. Reads only: the store is copied first, since
a read counts an access.

    python bench/bench_mcp_answers.py /tmp/rp/keep_s23M/offline.db bench/replay_untuned_s23.json
    python bench/bench_mcp_answers.py DB SPEC --questions 10 --k 10 --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp.client.stdio import StdioServerParameters, stdio_client

from mcp import ClientSession

MEMLODE = str(Path(sys.executable).with_name("memlode"))


def _questions(spec: Path, limit: int) -> list[str]:
    data = json.loads(spec.read_text("utf-8"))
    found: list[str] = []
    for session in data.get("sessions", []):
        found += [str(p["prompt"]) for p in session.get("prompts", [])]
    return found[:limit]


def _compact(structured: Any) -> int:
    # JSON.stringify: no spaces, non-ASCII kept as is
    return len(json.dumps(structured, separators=(",", ":"), ensure_ascii=False))


async def _measure(db: Path, questions: list[str], k: int) -> dict[str, dict[str, list[int]]]:
    sizes: dict[str, dict[str, list[int]]] = {}
    params = StdioServerParameters(
        command=MEMLODE, args=["--db", str(db), "mcp"], env=dict(os.environ)
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()

        async def call(tool: str, args: dict[str, Any]) -> Any:
            result = await session.call_tool(tool, args)
            if result.is_error:
                raise SystemExit(f"{tool} failed: {result.content[0].text}")  # type: ignore[union-attr]
            got = sizes.setdefault(tool, {"structured": [], "text": []})
            got["structured"].append(_compact(result.structured_content))
            got["text"].append(sum(len(getattr(c, "text", "")) for c in result.content))
            return result.structured_content

        for question in questions:
            every = {"query": question, "k": k, "namespace": "*"}
            hits = (await call("recall_memory", every))["hits"]
            await call("recall_with_expansion", {**every, "depth": 1})
            await call("recall_with_impact", every)
            await call("get_decision_chain", {"topic": question, "namespace": "*"})
            if hits:
                await call("graph_traverse", {"memory_id": hits[0]["id"], "depth": 2})
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, help="a store (a replay's DIR/offline.db)")
    parser.add_argument("spec", type=Path, help="a replay spec whose prompts are the questions")
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for path in (args.db, args.spec):
        if not path.is_file():
            parser.error(f"{path}: no such file")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "store.db"
        shutil.copyfile(args.db, db)
        os.environ["MEMLODE_HOME"] = str(Path(tmp) / "home")
        sizes = anyio.run(_measure, db, _questions(args.spec, args.questions), args.k)
    report = {
        tool: {
            "calls": len(got["structured"]),
            "structured_median": statistics.median(got["structured"]),
            "structured_total": sum(got["structured"]),
            "text_median": statistics.median(got["text"]),
            "text_total": sum(got["text"]),
        }
        for tool, got in sizes.items()
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    head = f"{'tool':24} {'calls':>5} {'structured p50':>15} {'total':>9}"
    print(f"{head} {'text p50':>9} {'total':>9}")
    for tool, r in report.items():
        print(
            f"{tool:24} {r['calls']:5} {r['structured_median']:15.0f} {r['structured_total']:9}"
            f" {r['text_median']:9.0f} {r['text_total']:9}"
        )


if __name__ == "__main__":
    main()
