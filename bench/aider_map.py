"""Run aider's repo map on a folder, for comparison (run with aider's own interpreter).

    /tmp/aider-venv/bin/python bench/aider_map.py ROOT [--tokens N] [--cold] [--files LIST]

Prints one JSON object: seconds spent in ``RepoMap.get_repo_map``, the files in map order and
the map text. ``--cold`` deletes aider's tag cache first. Tokens are counted as characters / 4,
like memlode does, so that no tokenizer has to be downloaded. Not imported by memlode.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path


class _Model:
    def token_count(self, text: str) -> float:
        return len(text) / 4


class _IO:
    def read_text(self, fname: str) -> str | None:
        try:
            return Path(fname).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def tool_output(self, *args: object, **kwargs: object) -> None:
        print(*args, file=sys.stderr)

    tool_warning = tool_output
    tool_error = tool_output


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--files", help="file with one path (relative to ROOT) per line")
    args = parser.parse_args()
    from aider.repomap import RepoMap

    root = Path(args.root).resolve()
    if args.cold:
        shutil.rmtree(root / RepoMap.TAGS_CACHE_DIR, ignore_errors=True)
    if args.files:
        names = Path(args.files).read_text().split("\n")
        files = [str(root / n) for n in names if n]
    else:
        files = [str(p) for p in sorted(root.rglob("*")) if p.is_file()]
    started = time.perf_counter()
    repo_map = RepoMap(map_tokens=args.tokens, root=str(root), main_model=_Model(), io=_IO())
    text = repo_map.get_repo_map([], files) or ""
    seconds = time.perf_counter() - started
    order = [line.rstrip(":") for line in text.splitlines() if line and not line[0].isspace()]
    order = [line for line in order if not line.startswith(("⋮", "│"))]
    print(json.dumps({"seconds": seconds, "files": order, "map": text}))


if __name__ == "__main__":
    main()
