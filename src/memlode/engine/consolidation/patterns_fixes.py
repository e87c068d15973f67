"""The patterns cycle's detectors over one session's order of work: error → fix pairs (a failed
command, then edits or other commands, then the same command passing) and decision chains
(edits to one file with the decisions that led to them). Strengths: see ``patterns_detect``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from memlode.engine.consolidation.patterns_detect import (
    Observation,
    Pattern,
    clamp,
    days,
    shown,
)
from memlode.textutil import command_key
from memlode.types import parse_ts

__all__ = ["CHAIN_MIN_EDITS", "decision_chains", "error_fixes", "error_line"]

CHAIN_MIN_EDITS = 3
# A decision stored at most this long before an edit in the same session led to it.
CHAIN_WINDOW_SECONDS = 1800
# Two runs are the same command when they share the program and subcommand
# (``textutil.command_key``) and this share of their words.
SAME_COMMAND = 0.8
# Commands that only look (they fix nothing between a failure and its fix).
_LOOKING = frozenset(
    {
        *"cat head tail ls grep rg find less wc echo pwd which".split(),
        *("git status", "git diff", "git log", "git show", "git ls-files", "git branch"),
    }
)
_NOT_ERRORS = ("Sibling tool call errored", "The user doesn't want to proceed")
_ERROR_WORDS = ("error", "fatal", "fail", "undefined", "not found", "denied", "cannot",
                "could not", "exception", "traceback", "no such", "invalid", "✘")  # fmt: skip
_NOISE = ("exit code", "compiling", "generated", "getting extensions", "running ", "==>",
          "[command]", "[stdout]", "[stderr]", "…", "failed: ")  # fmt: skip
ERROR_CHARS = 160


def error_line(content: str) -> str:
    """The line of a failure observation that says what went wrong (its first error-looking
    line after the command, else its first line of output)."""
    lines = [" ".join(line.split()) for line in content.replace("\\n", "\n").splitlines()[1:]]
    lines = [line for line in lines if line and not line.lower().startswith(_NOISE)]
    for n, line in enumerate(lines):
        if any(w in line.lower() for w in _ERROR_WORDS):
            if line.endswith(":") and n + 1 < len(lines):  # "validation failed:" says why next
                line = f"{line} {lines[n + 1]}"
            return line[:ERROR_CHARS]
    return lines[0][:ERROR_CHARS] if lines else ""


def _words(command: str) -> frozenset[str]:
    """The words of a command before any pipe, without redirections."""
    head = command.split("|", 1)[0]
    return frozenset(w for w in head.split() if not w[:1].isdigit() or ">" not in w)


def _same(a: str, b: str) -> bool:
    key = command_key(a)
    if not key or key != command_key(b):
        return False
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) >= SAME_COMMAND


def _extends(failed: str, passed: str) -> bool:
    """Whether ``passed`` is ``failed`` with options added (``git push`` -> ``git push
    --set-upstream origin main``): the fix was in the command itself. Added words that start
    with no option (``mix test`` -> ``mix test test/x_test.exs``) narrow it: no fix."""
    key = command_key(failed)
    if not key or key != command_key(passed) or not _words(failed) < _words(passed):
        return False
    added = [w for w in passed.split("|", 1)[0].split() if w not in _words(failed)]
    return added[0].startswith("-")


def _short(command: str, limit: int = 80) -> str:
    parts = [p.strip() for p in command.split("&&")]
    while len(parts) > 1 and parts[0].startswith("cd "):
        parts.pop(0)
    text = " ".join(" && ".join(parts).split("\n", 1)[0].split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _looks(command: str) -> bool:
    """Whether ``command`` only looks at things (a read, a search, git status)."""
    words = _short(command, 400).split()
    return bool(words) and (words[0] in _LOOKING or " ".join(words[:2]) in _LOOKING)


@dataclass
class _Open:
    failures: list[Observation]
    between: list[Observation] = field(default_factory=list)


def error_fixes(observations: list[Observation]) -> list[Pattern]:
    by_session: dict[str, list[Observation]] = defaultdict(list)
    for o in observations:
        if o.session:
            by_session[o.session].append(o)
    pairs: list[tuple[_Open, Observation]] = []
    for items in by_session.values():
        pairs.extend(_session_pairs(items))
    out = []
    for opened, passed in pairs:
        pattern = _pair_pattern(opened, passed)
        if pattern is not None:
            out.append(pattern)
    # the same command fixed the same way in other sessions makes each pair stronger
    for p in out:
        again = {
            q.details["session"]
            for q in out
            if q.details["command_key"] == p.details["command_key"]
            and q.details["fix"] == p.details["fix"]
            and q.details["session"] != p.details["session"]
        }
        p.strength = clamp(0.5 + 0.25 * len(again))
    return out


def _session_pairs(items: list[Observation]) -> list[tuple[_Open, Observation]]:
    opened: list[_Open] = []
    pairs = []
    for o in items:
        command = o.command
        if command and o.failed:
            if any(n in o.content for n in _NOT_ERRORS):
                continue
            match = next((p for p in opened if _same(p.failures[0].command, command)), None)
            if match is None:
                opened.append(_Open([o]))
            else:
                match.failures.append(o)
            continue
        if command:
            match = next((p for p in opened if _same(p.failures[0].command, command)), None)
            if match is None:
                match = next((p for p in opened if _extends(p.failures[-1].command, command)), None)
            if match is not None:
                opened.remove(match)
                pairs.append((match, o))
                continue
        for p in opened:
            p.between.append(o)
    return pairs


def _pair_pattern(opened: _Open, passed: Observation) -> Pattern | None:
    edits = [o for o in opened.between if "edit" in o.tags and o.file and not o.failed]
    ran = [o for o in opened.between if o.command and not o.failed and not _looks(o.command)]
    first = opened.failures[0]
    if not _same(first.command, passed.command):  # the command itself was changed
        fix = f"running `{_short(passed.command)}` instead"
        evidence: list[Observation] = []
    elif edits:
        files = list(dict.fromkeys(shown(o.file, [o]) for o in edits))
        fix = (
            "editing "
            + ", ".join(files[:4])
            + (f" and {len(files) - 4} more" if len(files) > 4 else "")
        )
        evidence = edits
    elif ran:
        commands = list(dict.fromkeys(f"`{_short(o.command, 60)}`" for o in ran))
        fix = "running " + ", ".join(commands[:3])
        evidence = ran
    else:
        return None  # passed on a plain re-run: nothing was fixed
    error = error_line(first.content)
    text = (
        f"`{_short(first.command)}` failed"
        + (f' with "{error}"' if error else "")
        + (f" ({len(opened.failures)} times)" if len(opened.failures) > 1 else "")
        + f"; fixed by {fix} ({passed.created_at[:10]})."
    )
    key = command_key(first.command)
    ids = [o.id for o in opened.failures] + [o.id for o in evidence] + [passed.id]
    return Pattern(
        "error-fix",
        f"{key}|{first.id}",
        text,
        0.5,
        ids,
        {"command_key": key, "fix": fix, "session": first.session, "error": error},
    )


def decision_chains(
    observations: list[Observation], decisions: list[tuple[str, str, str, str]]
) -> list[Pattern]:
    if not decisions:
        return []
    edits_of: dict[str, list[Observation]] = defaultdict(list)
    for o in observations:
        if "edit" in o.tags and o.file and not o.failed:
            edits_of[o.file].append(o)
    by_session: dict[str, list[tuple[str, str, str, str]]] = defaultdict(list)
    for row in decisions:
        by_session[row[2] or ""].append(row)
    out = []
    for path, edits in edits_of.items():
        if len(edits) < CHAIN_MIN_EDITS:
            continue
        name = shown(path, edits)
        base = name.rsplit("/", 1)[-1]
        linked = {row[0]: row for row in decisions if base in row[1] or name in row[1]}
        named = bool(linked)
        for edit in edits:
            before = _decision_before(by_session.get(edit.session, []), edit.created_at)
            if before is not None:
                linked.setdefault(before[0], before)
        # one decision that names no file, followed by edits, is a plan carried out: not a chain
        if not linked or (len(linked) < 2 and not named):
            continue
        chosen = sorted(linked.values(), key=lambda r: r[3])
        said = "; ".join(f'"{_gist(r[1])}"' for r in chosen[:3])
        sessions = {o.session for o in edits if o.session}
        text = (
            f"{name} changed in {len(edits)} edits over {len(sessions) or 1} session(s)"
            f" ({days(edits)}), following the decisions {said}"
            + (f" and {len(chosen) - 3} more" if len(chosen) > 3 else "")
            + "."
        )
        out.append(
            Pattern(
                "decision-chain",
                path,
                text,
                clamp(min(1.0, len(chosen) / 2) * min(1.0, len(edits) / 4)),
                [r[0] for r in chosen] + [o.id for o in edits],
                {"file": path, "decisions": len(chosen), "edits": len(edits)},
            )
        )
    return out


def _decision_before(
    decisions: list[tuple[str, str, str, str]], at: str
) -> tuple[str, str, str, str] | None:
    """The latest of ``decisions`` (one session's, oldest first) stored before ``at`` and at
    most ``CHAIN_WINDOW_SECONDS`` earlier."""
    earlier = [row for row in decisions if row[3] <= at]
    if not earlier:
        return None
    latest = earlier[-1]
    gap = (parse_ts(at) - parse_ts(latest[3])).total_seconds()
    return latest if gap <= CHAIN_WINDOW_SECONDS else None


def _gist(text: str) -> str:
    """A decision's first words: up to its first heading or sentence end, at most 100 chars."""
    flat = " ".join(text.split()).split(" ## ", 1)[0]
    return flat if len(flat) <= 100 else flat[:99] + "…"
