"""Checks a code-search question file: every expected and target name is a real symbol.

    python bench/code_search_check.py [--questions bench/code_search_heldout.json] [--fetch]

Each project of the file is a ``bench/realcode.json`` entry; its folder is indexed into a fresh
store (namespace = project name) and every ``expected`` and ``target`` qualified name of its
questions must be in the store's symbols. Printed: per project the symbols indexed, the
questions by type and half, and each missing name; the exit code is 1 when a name is missing.

This checks names only: it never runs a search, so it says nothing about how memlode ranks.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.realcode import fetch, real_code  # noqa: E402


def _names(item: dict[str, object]) -> list[str]:
    """The qualified names a question claims exist (its answers and, for impact, its target)."""
    out: list[str] = []
    for key in ("expected", "target"):
        value = item.get(key, [])
        assert isinstance(value, list)
        out += [str(v) for v in value]
    return out


def check(spec: dict[str, object], *, download: bool) -> int:
    """Index each project, print its counts and missing names; return how many are missing."""
    from memlode.code.indexer import index_project
    from memlode.storage.code_repo import CodeRepo
    from memlode.storage.db import Database

    projects = spec["projects"]
    questions = spec["questions"]
    assert isinstance(projects, dict) and isinstance(questions, list)
    missing = 0
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "check.db")
        for project, entry in sorted(projects.items()):
            root = fetch(entry) if download else real_code(entry)
            index_project(db, root, project)
            known = {s.qualified_name for s in CodeRepo(db).symbols(project)}
            mine = [q for q in questions if q["project"] == project]
            kinds = Counter(f"{q['type']}/{q['half']}" for q in mine)
            print(f"{project} ({entry}): {len(known)} symbols, {len(mine)} questions: "
                  + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))  # fmt: skip
            for item in mine:
                for name in _names(item):
                    if name not in known:
                        missing += 1
                        print(f"  MISSING {item['id']}: {name}")
        db.close()
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=HERE / "code_search_heldout.json")
    parser.add_argument("--fetch", action="store_true", help="fetch missing real code first")
    args = parser.parse_args(argv)
    spec = json.loads(args.questions.read_text())
    missing = check(spec, download=args.fetch)
    total = len(spec["questions"])
    print(f"{total} questions, {missing} missing names")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
