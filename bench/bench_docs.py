"""Indexing throughput for memory files and docs, on folders of real markdown.

Each folder is added with ``docs.add_folder`` (the code path of ``memlode docs add``) into a
fresh home, then indexed three ways:

- cold: every file read, hashed, chunked and stored (one transaction per file);
- warm: the same files again, all skipped by their content hash;
- one file changed: ``reindex_paths`` on one edited file (what the watcher does).

It also times chunking alone, without the database. Nothing is copied or committed: the
markdown is read where it is.

    python bench/bench_docs.py                             # Node.js and npm docs, if installed
    python bench/bench_docs.py ~/src/python-docs --json    # any folders of .md files
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memlode import __version__
from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.docs import add_folder, index_docs, reindex_paths
from memlode.sources.docfiles import DocRoot, discover
from memlode.sources.markdown import chunk_markdown

DEFAULT_FOLDERS = ["/usr/share/doc/nodejs", "/usr/lib/node_modules/npm/docs"]


def _chunk_only(files: list[Path]) -> dict[str, float]:
    start = time.perf_counter()
    cpu = time.process_time()
    chunks = words = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for chunk in chunk_markdown(text):
            chunks += 1
            words += chunk.words
    elapsed = time.perf_counter() - start
    return {
        "seconds": elapsed,
        "cpu_seconds": time.process_time() - cpu,
        "chunks": chunks,
        "files_per_s": len(files) / elapsed,
        "chunks_per_s": chunks / elapsed,
        "words_per_chunk": words / max(chunks, 1),
    }


def run(folders: list[Path]) -> dict[str, Any]:
    files = [p for f in folders for p in discover(DocRoot(f.resolve(), "bench", "folder", False))]
    size = sum(p.stat().st_size for p in files)
    result: dict[str, Any] = {
        "memlode": __version__,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "folders": [str(f) for f in folders],
        "files": len(files),
        "megabytes": size / 1e6,
        "chunking_only": _chunk_only(files),
    }
    with tempfile.TemporaryDirectory(prefix="memlode-bench-docs-") as tmp:
        home = Path(tmp) / "home"
        loose = Path(tmp) / "loose"  # no project marker: docs-only mode, namespace "global"
        loose.mkdir()
        settings = Settings.load({"home": str(home)}, environ={"MEMLODE_EMBED_PROVIDER": "none"})
        with Engine(settings, cwd=loose) as engine:
            start = time.perf_counter()
            cpu = time.process_time()
            chunks = 0
            for folder in folders:
                added = add_folder(engine, folder, cwd=loose)
                chunks += added["index"]["chunks_added"]
            cold = time.perf_counter() - start
            result["cold"] = {
                "seconds": cold,
                "cpu_seconds": time.process_time() - cpu,
                "chunks": chunks,
                "files_per_s": len(files) / cold,
                "chunks_per_s": chunks / cold,
                "mb_per_s": size / 1e6 / cold,
            }
            start = time.perf_counter()
            report = index_docs(engine, cwd=loose)
            warm = time.perf_counter() - start
            result["warm"] = {
                "seconds": warm,
                "skipped": report["skipped"],
                "files_per_s": report["files"] / warm,
            }
            biggest = max(files, key=lambda p: p.stat().st_size)
            edited = Path(tmp) / "edited" / biggest.name
            edited.parent.mkdir()
            edited.write_text(biggest.read_text(errors="replace") + "\n\nOne more paragraph.\n")
            add_folder(engine, edited.parent, cwd=loose)
            with edited.open("a") as fh:
                fh.write("\nAnd another.\n")
            start = time.perf_counter()
            one = reindex_paths(engine, [edited], cwd=loose)
            result["one_file_changed"] = {
                "file": biggest.name,
                "kilobytes": edited.stat().st_size / 1e3,
                "seconds": time.perf_counter() - start,
                "chunks_added": one["chunks_added"],
                "chunks_removed": one["chunks_removed"],
            }
            result["database_mb"] = os.path.getsize(engine.db.path) / 1e6
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="*", help="folders of markdown (default: Node.js docs)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    folders = [Path(f) for f in (args.folders or DEFAULT_FOLDERS) if Path(f).is_dir()]
    if not folders:
        sys.exit("no markdown folders found; pass one or more folders of .md files")
    result = run(folders)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"memlode {result['memlode']}, Python {result['python']}, SQLite {result['sqlite']}")
    where = ", ".join(result["folders"])
    print(f"{result['files']} files, {result['megabytes']:.1f} MB in {where}")
    c = result["chunking_only"]
    print(
        f"chunking only:   {c['files_per_s']:8.0f} files/s {c['chunks_per_s']:8.0f} chunks/s"
        f"  ({c['chunks']} chunks, {c['words_per_chunk']:.0f} words each;"
        f" {c['seconds']:.2f} s, CPU {c['cpu_seconds']:.2f} s)"
    )
    c = result["cold"]
    print(
        f"cold index:      {c['files_per_s']:8.0f} files/s {c['chunks_per_s']:8.0f} chunks/s"
        f"  ({c['seconds']:.2f} s, CPU {c['cpu_seconds']:.2f} s, {c['mb_per_s']:.1f} MB/s)"
    )
    w = result["warm"]
    print(f"warm (all skip): {w['files_per_s']:8.0f} files/s  ({w['seconds']:.2f} s)")
    o = result["one_file_changed"]
    print(
        f"one file edited: {o['seconds'] * 1000:8.1f} ms for {o['file']} ({o['kilobytes']:.0f} kB,"
        f" +{o['chunks_added']} -{o['chunks_removed']} chunks)"
    )
    print(f"database:        {result['database_mb']:.1f} MB")


if __name__ == "__main__":
    main()
