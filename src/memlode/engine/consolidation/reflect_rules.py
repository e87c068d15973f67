"""What the reflect cycle reads in one session's stored rows, without a model.

- decided: each decision memory of the session (a plan the user approved, an answer the user
  gave, a decision stored through the CLI or MCP), on the thread of its headline;
- solved: a check command (tests, build, lint, type check, commit, push: ``CHECK_WORDS``) that
  failed and later ran without failing in the session, with the error line of its first
  failure and the files edited in between, on the thread of the command's family
  (``mix test``, ``git push``: the program and its subcommand);
- open: a check command whose last run in the session failed; and files edited after the
  session's last test or build run (``TEST_WORDS``), on the thread of that file set.

A prompt with no answer after it is not reported: the hooks store no reply per prompt, so it
cannot be told reliably. A run piped into ``tail`` or ``head`` reports the exit code of the
pipe's last command, so a test run that failed behind a pipe counts as a run that passed;
the hooks cannot tell either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memlode.fastjson import loads

__all__ = ["CHECK_WORDS", "TEST_WORDS", "Item", "Row", "command_family", "distil", "parse_rows"]

# Words of a command's family (or of the script it runs) that make it a check: its failing,
# then passing, is a problem solved; its last run failing, something still open.
TEST_WORDS = frozenset(
    "test tests pytest vitest jest mocha build compile check typecheck lint credo dialyzer"
    " mypy ruff tsc eslint clippy make".split()
)
CHECK_WORDS = TEST_WORDS | frozenset("commit push deploy migrate format".split())
# Files whose edits need no test run (notes, data): not reported as edited but untested.
UNTESTED_SKIP_EXT = frozenset({"md", "txt", "rst", "json", "jsonl", "lock", "csv", "log"})
# Files listed in one sentence (the rest as "and N more").
MAX_FILES = 6
ERROR_CHARS = 200
# The edits before a passing run that count as its evidence (the latest).
MAX_EVIDENCE_EDITS = 20
_ERROR_WORDS = re.compile(
    r"error|fail|fatal|exception|not found|denied|undefined|cannot|could not", re.I
)
# Programs whose first argument is a path or a target, not a subcommand (``mypy src``).
NO_SUBCOMMAND = frozenset(
    "pytest mypy tsc eslint jest mocha node python python3 bash sh flake8 black pylint".split()
)
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9_:.-]*")
_ENV = re.compile(r"[A-Z_][A-Z0-9_]*=\S*")


@dataclass
class Row:
    id: str
    content: str
    memory_type: str
    source: str
    tags: list[str]
    meta: dict[str, Any]
    created_at: str

    @property
    def failed(self) -> bool:
        return "failure" in self.tags

    def file(self) -> str | None:
        for tag in self.tags:
            if tag.startswith("file:"):
                return tag[5:]
        value = self.meta.get("file")
        return value if isinstance(value, str) else None


@dataclass
class Item:
    kind: str  # decision, solved, open
    thread: str  # what later sessions' insights on the same matter share
    text: str
    evidence: list[str] = field(default_factory=list)  # memory ids, oldest first
    at: str = ""  # created_at of the latest evidence
    # kept only when it follows an open item of an earlier session on its thread (a check
    # that merely passed says nothing by itself)
    follow_up: bool = False


def parse_rows(found: list[Any]) -> list[Row]:
    out = []
    for memory_id, content, memory_type, source, tags_json, meta_json, created in found:
        tags = loads(tags_json) if tags_json else []
        meta = loads(meta_json) if meta_json else {}
        out.append(
            Row(
                str(memory_id),
                str(content),
                str(memory_type),
                str(source),
                [str(t) for t in tags] if isinstance(tags, list) else [],
                meta if isinstance(meta, dict) else {},
                str(created),
            )
        )
    return out


def command_family(command: str) -> tuple[str, frozenset[str]] | None:
    """(family, its words) of a shell command: the program and its subcommand of the first
    step that is not ``cd`` or ``git add`` (``cd app && mix test x.exs 2>&1 | tail`` ->
    ``mix test``); None for an empty one."""
    steps = [s.strip() for s in command.split("\n", 1)[0].split("&&")]
    steps = [s for s in steps if s and not s.startswith(("cd ", "git add "))] or steps
    first = re.split(r"[|;]", steps[0], maxsplit=1)[0] if steps else ""
    tokens = [t for t in first.split() if not _ENV.fullmatch(t)]
    if not tokens:
        return None
    words = [tokens[0].rsplit("/", 1)[-1]]
    rest = tokens[1:]
    if rest[:1] == ["-m"] and len(rest) > 1:  # python -m pytest
        words, rest = [*words, "-m", rest[1]], rest[2:]
    elif rest[:1] == ["run"] and len(rest) > 1 and _SUBCOMMAND.fullmatch(rest[1]):
        words, rest = [*words, "run", rest[1]], rest[2:]  # npm run test, uv run pytest
    elif (
        rest
        and _SUBCOMMAND.fullmatch(rest[0])
        and "." not in rest[0]
        and (words[0] not in NO_SUBCOMMAND)
    ):
        words, rest = [*words, rest[0]], rest[1:]
    vocabulary = set(words)
    if rest and ("/" in rest[0] or "." in rest[0]):  # node scripts/build.js
        vocabulary.add(rest[0].rsplit("/", 1)[-1].split(".", 1)[0])
    return " ".join(words), frozenset(vocabulary)


def error_line(row: Row) -> str:
    """The telling line of a failed run's output: the first that names an error, else the
    first line of output."""
    lines = []
    for line in row.content.split("\n")[1:]:
        text = line.strip()
        if text == "[command]":
            break
        if not text or text.startswith("Exit code") or text in ("[stdout]", "[stderr]", "…"):
            continue
        lines.append(text)
    found = next((t for t in lines if _ERROR_WORDS.search(t)), lines[0] if lines else "")
    for junk in ("<tool_use_error>", "</tool_use_error>", "\\n"):  # "\n" as text: JSON output
        found = found.replace(junk, " ")
    text = " ".join(found.split())
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 1] + "…"


def _cancelled(row: Row) -> bool:
    """A call Claude Code cancelled because another in the same turn failed: not a run."""
    return row.failed and "Sibling tool call errored" in row.content


def shown_command(row: Row) -> str:
    """The command as run, on one line; a leading ``cd`` shows the folder's last part only
    (``cd …/assets && node build.js``: where it ran can be the fix)."""
    command = str(row.meta.get("command", ""))
    first = command.split("\n", 1)[0].strip()
    if first.startswith("cd ") and "&&" in first:
        folder, rest = first[3:].split("&&", 1)
        last = folder.strip().strip("\"'").rstrip("/").rsplit("/", 1)[-1]
        first = f"cd …/{last} && {rest.strip()}" if "/" in folder else first
    text = first if len(first) <= 100 else first[:99] + "…"
    return text + (" …" if "\n" in command and not text.endswith("…") else "")


def file_list(files: list[str]) -> str:
    unique = list(dict.fromkeys(files))
    shown = ", ".join(unique[:MAX_FILES])
    return shown + (f" and {len(unique) - MAX_FILES} more" if len(unique) > MAX_FILES else "")


def distil(rows: list[Row], where: str) -> list[Item]:
    """The session's items; ``where`` names the session in their sentences."""
    items = _decisions(rows, where)
    items += _commands(rows, where)
    untested = _untested(rows, where)
    if untested is not None:
        items.append(untested)
    return items


def _decisions(rows: list[Row], where: str) -> list[Item]:
    found: dict[str, Item] = {}
    for row in rows:
        if row.memory_type != "decision":
            continue
        lines = [ln.strip() for ln in row.content.splitlines() if ln.strip()]
        if lines and lines[0].lower().startswith("plan approved"):
            lines = lines[1:]
        headline = re.sub(r"^#+\s*", "", lines[0]) if lines else ""
        topic = " ".join(re.findall(r"[a-z0-9]+", re.sub(r"^plan:\s*", "", headline.lower())))
        if not topic:
            continue
        rest = " ".join(re.sub(r"(^|\s)#+\s", " ", " ".join(lines[1:])).split())
        rest = rest if len(rest) <= 240 else rest[:239] + "…"
        text = f"Decided {where}: {headline}" + (f". {rest}" if rest else "")
        thread = "decision:" + " ".join(topic.split()[:10])
        found[thread] = Item("decision", thread, text, [row.id], row.created_at)
    return list(found.values())


def _commands(rows: list[Row], where: str) -> list[Item]:
    """Solved or open, per family of check command: its last episode in the session."""
    runs: dict[str, list[int]] = {}
    for n, row in enumerate(rows):
        command = row.meta.get("command")
        if "command" not in row.tags or not isinstance(command, str) or _cancelled(row):
            continue
        family = command_family(command)
        if family is not None and family[1] & CHECK_WORDS:
            runs.setdefault(family[0], []).append(n)
    items = []
    for name, indexes in runs.items():
        item = _episode(rows, name, indexes, where)
        if item is not None:
            items.append(item)
    return items


def _episode(rows: list[Row], family: str, indexes: list[int], where: str) -> Item | None:
    """The family's last episode: still failing at the session's end (open), or the last
    failures that a run without failure followed (solved); None when it never failed."""
    streak: list[int] = []
    solved: tuple[list[int], int] | None = None
    for n in indexes:
        if rows[n].failed:
            streak.append(n)
        elif streak:
            solved, streak = (streak, n), []
    thread = "command:" + family
    if streak:
        first, last = rows[streak[0]], rows[streak[-1]]
        times = f" ({len(streak)} runs in a row)" if len(streak) > 1 else ""
        text = (
            f"Still open {where}: `{shown_command(last)}` failed{times} and did not pass"
            f" again: {error_line(first)}"
        )
        return Item("open", thread, text, [rows[n].id for n in streak], last.created_at)
    if solved is None:
        return _passed(rows, thread, indexes[0], where)
    failures, passed_at = solved
    first, passed = rows[failures[0]], rows[passed_at]
    edits = [r for r in rows[failures[0] : passed_at] if "edit" in r.tags and r.file()]
    times = f" {len(failures)} times" if len(failures) > 1 else ""
    changed = f" after edits to {file_list([str(r.file()) for r in edits])}" if edits else ""
    text = (
        f"Solved {where}: `{shown_command(first)}` failed{times} ({error_line(first)}) and"
        f" passed{changed} (`{shown_command(passed)}`)."
    )
    evidence = [rows[n].id for n in failures] + [r.id for r in edits] + [passed.id]
    return Item("solved", thread, text, evidence, passed.created_at)


def _passed(rows: list[Row], thread: str, passed_at: int, where: str) -> Item:
    """A check that only passed in the session: solved, if an earlier session left it
    failing (the same failure again is not stored again: the hooks keep one row per text)."""
    passed = rows[passed_at]
    edits = [r for r in rows[:passed_at] if "edit" in r.tags and not r.failed and r.file()]
    edits = edits[-MAX_EVIDENCE_EDITS:]
    changed = f" after edits to {file_list([str(r.file()) for r in edits])}" if edits else ""
    text = (
        f"Solved {where}: `{shown_command(passed)}`, left failing by an earlier session,"
        f" passed{changed}."
    )
    evidence = [r.id for r in edits] + [passed.id]
    return Item("solved", thread, text, evidence, passed.created_at, follow_up=True)


def _untested(rows: list[Row], where: str) -> Item | None:
    tested = -1
    for n, row in enumerate(rows):
        command = row.meta.get("command")
        if "command" in row.tags and isinstance(command, str):
            family = command_family(command)
            if family is not None and family[1] & TEST_WORDS:
                tested = n
    if tested < 0:
        return None
    edits = [
        r
        for r in rows[tested + 1 :]
        if "edit" in r.tags
        and not r.failed
        and r.file()
        and str(r.file()).rsplit(".", 1)[-1].lower() not in UNTESTED_SKIP_EXT
        and not str(r.file()).startswith(".")
    ]
    if not edits:
        return None
    files = sorted({str(r.file()) for r in edits})
    run = rows[tested]
    text = (
        f"Still open {where}: {file_list(files)} edited after the last check"
        f" (`{shown_command(run)}`) and not checked since."
    )
    thread = "files:" + ",".join(files)
    return Item("open", thread, text, [run.id] + [r.id for r in edits], edits[-1].created_at)
