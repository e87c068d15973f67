"""A successful build's verdict, read from the last lines of its output
(``memlode.sources.outcomes`` adds it to a command's outcomes)."""

from __future__ import annotations

__all__ = ["build_verdict"]

# The line a build tool ends a successful build with: what a next-day "did it build?" or "how
# long did the build take?" asks, at the end of a log that can run to thousands of lines.
# (start, what the line also holds): SwiftPM, Cargo, Gradle, Maven, xcodebuild, dotnet, Vite,
# Bazel, Next.js, webpack, CMake. Kept as "build: succeeded in <its time>": the tools' own
# words ("Finished `dev` profile [unoptimized + debuginfo] target(s) in 13.82s") would go into
# the memory's words and vector, and say nothing a question asks.
_BUILT = (
    ("Build complete!", ""),
    ("Build of ", "complete!"),
    ("Finished ", "target(s) in"),
    ("BUILD SUCCESSFUL", ""),
    ("[INFO] BUILD SUCCESS", ""),
    ("** BUILD SUCCEEDED **", ""),
    ("Build succeeded", ""),
    ("✓ built in", ""),
    ("INFO: Build completed successfully", ""),
    ("✓ Compiled successfully", ""),
    ("Compiled successfully", ""),
    ("webpack ", "compiled successfully"),
    ("[100%] Built target", ""),
)
# A line after the verdict that gives its time (Maven's "Total time:", dotnet's "Time Elapsed").
_BUILD_TIMES = ("[INFO] Total time:", "Time Elapsed")
BUILD_VERDICT_LINES = 30  # the verdict is among the last lines of a build's output


def build_verdict(lines: list[str]) -> str:
    """``build: succeeded in <time>`` (or without a time) when one of the last lines of a
    build's output is a successful build's verdict, else ''."""
    start = max(0, len(lines) - BUILD_VERDICT_LINES)
    for i in range(len(lines) - 1, start - 1, -1):
        line = lines[i]
        if not any(line.startswith(s) and holds in line for s, holds in _BUILT):
            continue
        timed = next((t for t in lines[i + 1 : i + 5] if t.startswith(_BUILD_TIMES)), "")
        given = next((timed[len(t) :] for t in _BUILD_TIMES if timed.startswith(t)), "")
        took = _took(line) or given.strip(" :")[:40]
        return "build: succeeded" + (f" in {took}" if took else "")
    return ""


def _took(line: str) -> str:
    """The time a verdict line gives: after its last " in " ("in 1m 02s", "in 41s"), or in
    parentheses ("(43.50s)"); '' when it gives none."""
    if "(" in line and line.rstrip().endswith(")"):
        inside = line[line.rindex("(") + 1 : -1].strip()
        if inside[:1].isdigit():
            return inside[:40]
    head, found, after = line.rpartition(" in ")
    after = after.strip()
    return after[:40] if found and head and after[:1].isdigit() else ""
