"""What the guards against bad input cost on the paths that run all the time.

Transcript reading now finds the file's encoding, decodes every line before parsing it and
looks for escaped lone surrogates; JSON options are checked for depth, size and finite numbers
before parsing. This prints, for the code it runs against:

- parse_transcript over every real transcript in ../shared/data/transcripts (UTF-8 as shipped,
  and the same files re-encoded as UTF-16 with a byte order mark): MB/s and lines/s;
- validate.metadata on typical metadata (microseconds a call), and on 1 MB adversarial inputs
  (deep brackets, brackets inside strings, escapes): milliseconds each, all linear.

    python bench/bench_bad_input.py [--repeat 5] [--json]

Run it with PYTHONPATH pointing at an older checkout's src to compare.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memlode import validate
from memlode.errors import InvalidInput
from memlode.sources.transcript import parse_transcript

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "transcripts"


def _best(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def transcripts(files: list[Path], repeat: int) -> dict[str, float]:
    size = sum(f.stat().st_size for f in files)
    lines = 0

    def read_all() -> None:
        nonlocal lines
        lines = sum(parse_transcript(f).lines for f in files)

    seconds = _best(read_all, repeat)
    return {
        "files": len(files),
        "megabytes": round(size / 1e6, 2),
        "lines": lines,
        "seconds": round(seconds, 4),
        "mb_per_s": round(size / 1e6 / seconds, 1),
        "lines_per_s": round(lines / seconds),
    }


def json_checks(repeat: int) -> dict[str, float]:
    typical = json.dumps(
        {"file": "src/memlode/storage/db.py", "line": 120, "tool": "Edit", "tags": ["a", "b"]}
        | {"session_id": "8c1f2d3e-aaaa-bbbb-cccc-1234567890ab", "score": 0.75}
    )
    calls = 10_000
    per_call = _best(lambda: [validate.metadata(typical) for _ in range(calls)], repeat) / calls
    size = 1_000_000
    adversarial = {
        "deep brackets": "[" * size,
        "brackets in strings": '{"a": "' + "[{" * (size // 2 - 8) + '"}',
        "escapes": '{"a": "' + '\\"' * (size // 2 - 8) + '"}',
        "64 levels, then text": "[" * 64 + '"' + "x" * (size - 200) + '"' + "]" * 64,
    }
    out: dict[str, float] = {"typical_metadata_us": round(per_call * 1e6, 2)}
    for name, text in adversarial.items():

        def check(text: str = text) -> None:
            with contextlib.suppress(InvalidInput):
                validate.json_text(text, "bench")

        out[f"1MB {name} ms"] = round(_best(check, repeat) * 1e3, 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    files = sorted(REAL.glob("**/*.jsonl"))
    if not files:
        sys.exit(f"no transcripts under {REAL}")
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "utf8": transcripts(files, args.repeat),
    }
    with tempfile.TemporaryDirectory() as tmp:
        copies = []
        for i, path in enumerate(files):
            copy = Path(tmp) / f"{i}-{path.name}"
            copy.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
            copies.append(copy)
        report["utf16"] = transcripts(copies, args.repeat)
    if hasattr(validate, "json_text"):
        report["json"] = json_checks(args.repeat)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for key in ("utf8", "utf16"):
        r = report[key]
        print(
            f"parse_transcript {key:<5}: {r['files']} files, {r['megabytes']} MB, {r['lines']} "
            f"lines in {r['seconds']:.3f} s = {r['mb_per_s']} MB/s, {r['lines_per_s']} lines/s"
        )
    for name, value in report.get("json", {}).items():
        print(f"json option check, {name}: {value}")


if __name__ == "__main__":
    main()
