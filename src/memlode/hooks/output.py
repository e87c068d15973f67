"""What a command printed, as the hooks store it: its start and end, or of a passing test run
its first lines and the end with the totals, and what a long output's left-out middle said (the
versions a diff adds, the messages a log kept printing). ``memlode.hooks.extract`` reads a
command's streams with it, ``memlode.hooks.replies`` a background command's output.
"""

from __future__ import annotations

from memlode.hooks.observation import Observation
from memlode.storage.capture import FAILURE_TAG

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = [
    "PASSING_TAIL_CHARS",
    "first_lines",
    "head_tail",
    "repeated",
    "run_observation",
    "stream",
    "versions",
]

# The end of a passing test run's log kept with its totals (where the summary is), and its
# first line or two: what actually ran ("$ bun test src/" under `bun run test`, the runner and
# its version), which a next-day "what does the test script run?" asks.
PASSING_TAIL_CHARS = 240
PASSING_HEAD_CHARS = 160


def run_observation(
    head: str,
    reading: tuple[list[str], list[str], bool],
    streams: Sequence[tuple[str, str]],
    output_chars: int,
    tags: list[str],
    meta: dict[str, Any],
    after: str = "",
) -> Observation:
    """A run's observation (a shell command's, a background task's): ``head`` (what ran, with
    "Failed: " before it when it failed), then what its output says (``reading``: the outcomes,
    error lines and failure ``sources.outcomes.read_output`` found): the errors first, the
    outcomes, then each of the ``streams`` (name, text) by ``stream``, then ``after`` (the rest
    of a long command). A failure is tagged ``failure``, a change of shared state (a commit, a
    push) is an ``outcome``."""
    from memlode.sources.outcomes import STATE_REPORTS

    said, errors, failed = reading
    text = head
    if failed:  # what failed comes first (a reflection or an excerpt reads on from the head)
        text += "".join(f"\n{line}" for line in errors)
    if said:
        text += "\nOutcome: " + "; ".join(said)
    if not failed and said and said[-1].startswith("tests:"):
        # a test run that passed: its totals say it; its log is noise (request dumps, warnings)
        output_chars = min(output_chars, PASSING_TAIL_CHARS)
    blocks = ""
    for name, body in streams:
        before, shown = stream(name, body, output_chars)
        text += before
        blocks += shown
    text += blocks + after
    action = "command"
    if failed:
        action = "failure"
        tags.insert(0, FAILURE_TAG)
    elif any(not s.startswith(STATE_REPORTS) for s in said):
        action = "outcome"  # a commit, push, tag, release, pull request or merge: state
    if said:
        tags.append("outcome")
        meta["outcomes"] = said
    return Observation(action, text, "context", tags, meta)


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
