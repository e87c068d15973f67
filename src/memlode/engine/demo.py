"""``python -m memlode.engine.demo`` (what ``make run`` runs): a short tour of the embedded store.

It stores a handful of real decisions about this repository (taken from its design notes),
links two of them, stores one twice to show deduplication, searches, and prints the counts.
Everything goes into a dedicated database, ``$MEMLODE_HOME/demo.db`` (default
``~/.memlode/demo.db``), which is deleted and recreated on every run, so the demo never touches
the real store (``memlode.db``) and always prints the same story. No network is needed: recall
is BM25 only unless ``MEMLODE_EMBED_PROVIDER`` chooses an embedder.
"""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

from memlode.config import Settings
from memlode.engine import Engine
from memlode.errors import MemlodeError

__all__ = ["DEMO_MEMORIES", "demo_database", "main", "run_demo"]

NAMESPACE = "memlode-demo"

# (content, memory type, importance, tags): decisions and habits from DESIGN.md and STYLE.md.
DEMO_MEMORIES: list[tuple[str, str, float, list[str]]] = [
    (
        "One SQLite file is the source of truth ($MEMLODE_HOME/memlode.db): no service to run "
        "and no network needed; teams that outgrow one machine move to PostgreSQL + pgvector.",
        "decision",
        0.9,
        ["storage", "sqlite"],
    ),
    (
        "Every connection sets busy_timeout before switching journal_mode to WAL, then "
        "synchronous=NORMAL and foreign_keys=ON, because parallel hooks write at the same time "
        "and must never lose a write.",
        "decision",
        0.9,
        ["sqlite", "concurrency"],
    ),
    (
        "Hooks never block the assistant: a hook is a fresh process that imports only what it "
        "needs, writes its observation, always exits 0; embeddings are filled in later batches.",
        "decision",
        0.8,
        ["hooks", "performance"],
    ),
    (
        "Full-text search uses an FTS5 external-content index over the memories table, kept in "
        "sync by triggers; camelCase identifiers such as getUserName are also indexed as parts.",
        "pattern",
        0.7,
        ["search", "fts5"],
    ),
    (
        "The schema evolves by numbered migrations, each applied in one transaction together "
        "with its record, so a database from any earlier version upgrades in place.",
        "insight",
        0.6,
        ["storage", "migrations"],
    ),
    (
        "Layers import only from their own layer or below; the CLI, MCP server, hooks and "
        "dashboard are thin interfaces over one engine, so they rank results identically.",
        "style",
        0.6,
        ["architecture"],
    ),
    (
        "Ranking changes are judged by the LoCoMo evaluation (recall@k, MRR, nDCG), never assumed.",
        "preference",
        0.5,
        ["evaluation", "search"],
    ),
]

SEARCHES = [
    "why is busy_timeout set before WAL?",
    "how does full text search stay in sync",
    "get user name",
]


def demo_database(settings: Settings) -> Path:
    return settings.home / "demo.db"


def _fresh(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _wrap(text: str, indent: str = "      ") -> str:
    return textwrap.fill(text, width=96, initial_indent=indent, subsequent_indent=indent)


def run_demo(settings: Settings) -> None:
    """Run the tour against ``demo.db`` in ``settings.home`` and print it to stdout."""
    db_path = demo_database(settings)
    _fresh(db_path)
    # BM25 only unless the environment asks for an embedder: the demo must work offline.
    provider = settings.embed_provider if os.environ.get("MEMLODE_EMBED_PROVIDER") else "none"
    demo_settings = settings.with_(db_path=db_path, namespace=NAMESPACE, embed_provider=provider)
    started = time.perf_counter()
    print(f"memlode demo: a fresh store at {db_path} (recreated on every run)\n")
    with Engine(demo_settings) as engine:
        print(f"1. Storing {len(DEMO_MEMORIES)} decisions about this repository")
        ids: list[str] = []
        for content, memory_type, importance, tags in DEMO_MEMORIES:
            result = engine.store(content, memory_type, importance, tags=tags)
            ids.append(result.id)
            print(f"   {result.id[:8]}  {memory_type:<10} {content[:70]}…")

        again = engine.store(DEMO_MEMORIES[0][0], "decision")
        print(f"\n2. Storing the first one again returns the same id: {again.id[:8]}")
        print(f"   (created={again.created}: content is deduplicated by its SHA-256)")

        engine.associate(ids[2], ids[1], "LEADS_TO", properties={"why": "parallel writers"})
        print("\n3. Linking two memories: hooks never block  -LEADS_TO->  busy_timeout before WAL")
        for item in engine.neighbors(ids[1]):
            print(
                f"   neighbors of {ids[1][:8]}: {item['direction']} {item['relationship']} "
                f"{item['node_id'][:8]}"
            )

        engine.catch_up()  # vectors for what was just stored (a long-lived process would)
        print(f"\n4. Searching ({'BM25 only' if provider == 'none' else provider + ' + BM25'})")
        for query in SEARCHES:
            print(f'   memlode search "{query}"')
            hits = engine.search(query, 3)
            if not hits:
                print("      no matches")
            for rank, hit in enumerate(hits, 1):
                memory = hit.memory
                print(
                    f"    {rank}. score {hit.score:.3f}  [{memory.memory_type}] "
                    f"tags: {', '.join(memory.tags)}"
                )
                print(_wrap(memory.content))
            print()

        stats = engine.stats(NAMESPACE)
        by_type = ", ".join(f"{name} {count}" for name, count in stats["by_type"].items())
        print("5. Stats")
        print(f"   memories {stats['memories']} ({by_type})")
        print(f"   graph    {stats['graph_nodes']} nodes, {stats['graph_edges']} edges")
        print(f"   database {stats['database_bytes'] / 1024:.0f} KiB")
    elapsed = time.perf_counter() - started
    print(f"\nDone in {elapsed * 1000:.0f} ms. Try: memlode --db {db_path} search 'FTS5 triggers'")


def main() -> int:
    try:
        run_demo(Settings.load())
    except MemlodeError as exc:
        print(f"memlode: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
