"""What a command printed, as the hooks store it: its start and end, or of a passing test run
its first lines and the end with the totals, and what a long output's left-out middle said (the
versions a diff adds, the messages a log kept printing). ``memlode.hooks.extract`` reads a
command's streams with it, ``memlode.hooks.replies`` a background command's output.
"""

from __future__ import annotations

__all__ = ["PASSING_TAIL_CHARS", "first_lines", "head_tail", "repeated", "stream", "versions"]

# The end of a passing test run's log kept with its totals (where the summary is), and its
# first line or two: what actually ran ("$ bun test src/" under `bun run test`, the runner and
# its version), which a next-day "what does the test script run?" asks.
PASSING_TAIL_CHARS = 240
PASSING_HEAD_CHARS = 160


def stream(name: str, body: str, output_chars: int) -> tuple[str, str]:
    """What a command's output ``body`` (its stream ``name``) adds before the output, and the
    ``[name]`` block itself: its start and end, or of a passing test run (``output_chars`` is
    PASSING_TAIL_CHARS) its first lines and the end with the totals."""
    if not body or output_chars <= 0:
        return "", ""
    shown = head_tail(body, output_chars)
    if output_chars == PASSING_TAIL_CHARS and len(body) > output_chars:
        head = first_lines(body[: len(body) - output_chars], PASSING_HEAD_CHARS)
        shown = head + "\n…\n" + body[-output_chars:].lstrip()
    block = f"\n[{name}]\n" + shown
    if len(body) <= output_chars:
        return "", block
    # what the left-out middle said: the versions a diff adds before the output (a long text's
    # vector is of its start), what a log kept printing after it (a commit's test run must not
    # push its "6 files changed" out of an excerpt)
    return versions(body), block + repeated(body, shown)


def first_lines(text: str, limit: int, count: int = 2) -> str:
    """The first ``count`` non-blank lines of ``text``, within ``limit`` characters in all."""
    kept: list[str] = []
    room = limit
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if len(line) > room:
            if not kept:
                kept.append(line[: max(0, room - 1)] + "…")
            break
        kept.append(line)
        room -= len(line) + 1
        if len(kept) == count:
            break
    return "\n".join(kept)


def repeated(output: str, shown: str) -> str:
    """What a long command output kept printing in the part ``shown`` of it leaves out
    (``sources.outcomes.repeated_lines``), one ``[printed N times]`` line each."""
    from memlode.sources.outcomes import repeated_lines

    return "".join(f"\n[printed {n} times] {line}" for line, n in repeated_lines(output, shown))


def versions(output: str) -> str:
    """The packages and versions the added lines of a long diff name
    (``sources.outcomes.added_versions``), as a ``[versions added]`` line, or ''."""
    from memlode.sources.outcomes import added_versions

    found = added_versions(output)
    return f"\n[versions added] {found}" if found else ""


def head_tail(text: str, limit: int) -> str:
    """The start and the end of long output: errors and totals tend to be at the end."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 5
    tail = limit - head
    return text[:head].rstrip() + "\n…\n" + text[-tail:].lstrip()
