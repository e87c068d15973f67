"""Per-tool extractors: one PostToolUse payload -> at most one short observation.

Each extractor reads ``tool_input``/``tool_response`` defensively (Anthropic publishes no schema
for ``tool_response``; any field may be missing or of another type) and returns an
``Observation`` whose text is bounded: a Read stores the path and line range, never the body;
an edit stores a diff summary, never the file.

| tool | memory type | tags |
|---|---|---|
| Read | context | file:, ext:, dir: |
| Glob / Grep | pattern | glob: / pattern: |
| Edit / MultiEdit / Write / NotebookEdit | context | file:, ext:, dir:, edit |
| Bash | context | cmd: |
| WebFetch / WebSearch | context | web: |
| AskUserQuestion (the user's answers) | decision | decision, asked-user |
| ExitPlanMode (the plan the user approved) | decision | decision, plan |
| any other tool | context | tool: |

An edit is an observation of a change, not a decision: the decisions of a session are the
user's answers and approved plans (and what is stored on purpose). ``extract_failure`` turns a
PostToolUseFailure (a failed command, a rejected edit) into a short ``failure`` observation.
"""

from __future__ import annotations

import os

from memlode.hooks._lean import dumps
from memlode.hooks.diffsum import DiffSummary, summarize_patch, summarize_strings, symbols_in

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "OWN_TOOL_PREFIX",
    "Observation",
    "display_path",
    "extract",
    "extract_failure",
    "is_own_tool",
]

OWN_TOOL_PREFIX = "mcp__memlode__"

# Importance of each kind of observation: edits are what changed, searches show intent,
# reads are the most frequent and least telling. Deliberately below the 0.5 default of a
# memory stored on purpose, so curated memories outrank passive capture.
IMPORTANCE = {
    "read": 0.2,
    "search": 0.3,
    "edit": 0.45,
    "command": 0.3,
    "fetch": 0.35,
    "failure": 0.4,
    # What the user decided: their answer to a question, a plan they approved.
    "decision": 0.8,
    "plan": 0.7,
    # What a subagent found (research, a review): its report back to the main agent.
    "subagent": 0.5,
    "other": 0.2,
}
MAX_REPORT_CHARS = 2000
MAX_ERROR_CHARS = 600
# A command's first line as shown first, and the whole command as stored (see _command_parts).
COMMAND_LINE_CHARS = 200
COMMAND_CHARS = 600
MAX_PLAN_CHARS = 1500
MAX_ANSWER_CHARS = 400
MAX_PATTERN_CHARS = 200
MAX_LISTED_FILES = 8
MAX_FETCH_CHARS = 600
MAX_GENERIC_CHARS = 400


class Observation:
    """What one tool call taught: text plus how to file it."""

    __slots__ = ("action", "content", "file_path", "importance", "memory_type", "metadata", "tags")

    def __init__(
        self,
        action: str,
        content: str,
        memory_type: str,
        tags: list[str],
        metadata: dict[str, Any],
        file_path: str | None = None,
    ) -> None:
        self.action = action
        self.content = content
        self.memory_type = memory_type
        self.importance = IMPORTANCE.get(action, 0.2)
        self.tags = tags
        self.metadata = metadata
        self.file_path = file_path


def _d(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _s(value: object, limit: int = 100_000) -> str:
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def _n(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _one_line(text: str, limit: int) -> str:
    return _clip(" ".join(text.split()), limit)


def is_own_tool(tool_name: str) -> bool:
    return tool_name.startswith(OWN_TOOL_PREFIX)


class _Paths:
    """Absolute and display forms of a path, relative to the session's working directory."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    def absolute(self, path: str) -> str:
        if not os.path.isabs(path) and self.cwd:
            path = os.path.join(self.cwd, path)
        return os.path.normpath(path)

    def display(self, path: str) -> str:
        if self.cwd:
            root = os.path.normpath(self.cwd)
            if path == root:
                return "."
            if path.startswith(root.rstrip(os.sep) + os.sep):
                return path[len(root.rstrip(os.sep)) + 1 :]
        return path

    def file_tags(self, abs_path: str) -> list[str]:
        shown = self.display(abs_path)
        tags = [f"file:{shown}"]
        ext = os.path.splitext(abs_path)[1].lstrip(".").lower()
        if ext:
            tags.append(f"ext:{ext}")
        folder = os.path.dirname(shown)
        tags.append(f"dir:{folder or '.'}")
        return tags


def display_path(path: str, cwd: str) -> str:
    """``path`` relative to ``cwd`` when inside it, else as given."""
    return _Paths(cwd).display(path)


def _file_list(names: object, paths: _Paths) -> str:
    if not isinstance(names, list):
        return ""
    shown = [paths.display(n) for n in names[:MAX_LISTED_FILES] if isinstance(n, str)]
    more = len(names) - len(shown)
    text = ", ".join(shown)
    if more > 0:
        text += f" (+{more} more)"
    return text


# ---- extractors --------------------------------------------------------------------------------


def _read(tool_in: dict[str, Any], resp: dict[str, Any], paths: _Paths) -> Observation | None:
    file_info = _d(resp.get("file"))
    raw = _s(tool_in.get("file_path")) or _s(file_info.get("filePath"))
    if not raw:
        return None
    path = paths.absolute(raw)
    shown = paths.display(path)
    if _s(resp.get("type")) == "image":
        text = f"Viewed image {shown}"
    else:
        start = _n(file_info.get("startLine")) or _n(tool_in.get("offset"))
        count = _n(file_info.get("numLines")) or _n(tool_in.get("limit"))
        total = _n(file_info.get("totalLines"))
        text = f"Read {shown}"
        if start is not None and count is not None and count > 0:
            text += f" lines {start}-{start + count - 1}"
        if total is not None:
            text += f" of {total}"
        symbols = symbols_in(_s(file_info.get("content"), 400_000), limit=15)
        if symbols:
            text += "; defines " + ", ".join(symbols)
    tags = ["read", *paths.file_tags(path)]
    return Observation("read", text, "context", tags, {"file": path}, path)


def _search(
    tool: str, tool_in: dict[str, Any], resp: dict[str, Any], paths: _Paths
) -> Observation | None:
    pattern = _s(tool_in.get("pattern"), MAX_PATTERN_CHARS * 4)
    if not pattern.strip():
        return None
    pattern = _one_line(pattern, MAX_PATTERN_CHARS)
    where = _s(tool_in.get("path"))
    text = f"{tool} '{pattern}'"
    if where:
        text += f" in {paths.display(paths.absolute(where))}"
    extras = [f"{k} {_s(tool_in.get(k))}" for k in ("glob", "type") if _s(tool_in.get(k))]
    if extras:
        text += " (" + ", ".join(extras) + ")"
    num = _n(resp.get("numFiles"))
    mode = _s(resp.get("mode")) or _s(tool_in.get("output_mode"))
    if tool == "Grep" and mode in ("content", "count"):
        # Content mode reports numFiles 0 and puts the matches in ``content``.
        matches, files = _grep_matches(_s(resp.get("content"), 2_000_000), mode)
        lines = _n(resp.get("numLines"))
        if mode == "content" and lines is not None:
            matches = lines
        num = len(files) if files else None
        text += f" -> {matches} matching line" + ("" if matches == 1 else "s")
        if files:
            text += f" in {len(files)} file" + ("" if len(files) == 1 else "s")
            text += ": " + _file_list(files, paths)
        meta_matches: int | None = matches
    else:
        meta_matches = num
        if num is not None:
            text += f" -> {num} file" + ("" if num == 1 else "s")
    listed = (
        ""
        if tool == "Grep" and mode in ("content", "count")
        else _file_list(resp.get("filenames"), paths)
    )
    if listed:
        text += ": " + listed
    if resp.get("truncated") is True:
        text += " (truncated)"
    prefix = "glob" if tool == "Glob" else "pattern"
    tags = ["search", f"{prefix}:{pattern[:80]}"]
    meta = {"pattern": pattern, "matches": meta_matches}
    return Observation("search", text, "pattern", tags, meta)


def _grep_matches(content: str, mode: str) -> tuple[int, list[str]]:
    """Matches and distinct files of a Grep in content or count mode.

    Content lines read ``path:line:text`` (or ``path:text``; plain ``text`` when one file was
    searched); count lines read ``path:count``.
    """
    files: list[str] = []
    seen: set[str] = set()
    matches = 0
    for line in content.splitlines():
        if not line.strip() or line == "--":
            continue
        head, sep, rest = line.partition(":")
        if mode == "count":
            count = rest.strip()
            matches += int(count) if sep and count.isdigit() else 0
        else:
            matches += 1
        is_path = sep and head and ("/" in head or "." in head) and " " not in head
        if is_path and head not in seen:
            seen.add(head)
            files.append(head)
    return matches, files


def _edit(
    tool: str, tool_in: dict[str, Any], resp: dict[str, Any], paths: _Paths
) -> Observation | None:
    raw = (
        _s(tool_in.get("file_path")) or _s(resp.get("filePath")) or _s(tool_in.get("notebook_path"))
    )
    if not raw:
        return None
    path = paths.absolute(raw)
    shown = paths.display(path)
    summary: DiffSummary | None = summarize_patch(resp.get("structuredPatch"))
    verb = "Edited"
    if tool == "Write":
        kind = _s(resp.get("type"))
        if kind == "create" or (summary is None and not resp.get("originalFile")):
            verb = "Created"
            body = _s(tool_in.get("content"), 2_000_000) or _s(resp.get("content"), 2_000_000)
            summary = DiffSummary()
            summary.added = len(body.splitlines())
            summary.hunks = 1
            summary.symbols = symbols_in(body)
        elif summary is None:
            verb = "Rewrote"
    if summary is None:
        if tool == "MultiEdit" and isinstance(tool_in.get("edits"), list):
            parts = [_d(e) for e in tool_in["edits"]]
            summary = summarize_strings(
                "\n".join(_s(p.get("old_string")) for p in parts),
                "\n".join(_s(p.get("new_string")) for p in parts),
            )
            summary.hunks = len(parts)
        else:
            old = _s(tool_in.get("old_string")) or _s(resp.get("oldString"))
            new = _s(tool_in.get("new_string")) or _s(resp.get("newString"))
            if tool == "NotebookEdit":
                new = _s(tool_in.get("new_source"))
            summary = summarize_strings(old, new)
    text = f"{verb} {shown}: {summary.headline()}"
    if summary.excerpt and verb == "Edited":
        text += "\n" + "\n".join(summary.excerpt)
    tags = ["edit", *paths.file_tags(path)]
    meta = {"file": path, "diff": summary.as_dict()}
    return Observation("edit", text, "context", tags, meta, path)


def _bash(
    tool_in: dict[str, Any], resp: dict[str, Any], paths: _Paths, output_chars: int
) -> Observation | None:
    command = _s(tool_in.get("command"), 20_000).strip()
    if not command:
        return None
    first, rest = _command_parts(command)
    text = "$ " + first
    description = _one_line(_s(tool_in.get("description")), 200)
    if description:
        text += f"\n# {description}"
    if resp.get("interrupted") is True:
        text += "\n(interrupted)"
    for stream in ("stdout", "stderr"):
        body = _s(resp.get(stream), 1 << 62).strip()
        if body and output_chars > 0:
            text += f"\n[{stream}]\n" + _head_tail(body, output_chars)
    if rest:
        text += "\n[command]\n" + rest
    first = command.split()[0] if command.split() else ""
    tags = ["command", f"cmd:{os.path.basename(first)[:40]}"]
    return Observation("command", text, "context", tags, {"command": _clip(command, 300)})


def _command_parts(command: str) -> tuple[str, str]:
    """A command's first line (up to COMMAND_LINE_CHARS, with " …" when more follows) and the
    rest of it (up to COMMAND_CHARS in all). A long command (a commit with its message in a
    heredoc) is stored as its first line, then what it printed or the error, then the rest:
    what happened comes before the details, so a short excerpt shows it."""
    line, newline, more = command.partition("\n")
    line = line.rstrip()
    if len(line) > COMMAND_LINE_CHARS:
        line, more = line[:COMMAND_LINE_CHARS], line[COMMAND_LINE_CHARS:] + newline + more
    elif not newline:
        return line, ""
    more = more.strip()
    if "<<" in line and more:  # a heredoc (a commit message): its first line belongs up front
        subject, _nl, more = more.partition("\n")
        line = f"{line} {subject.strip()}"[:COMMAND_LINE_CHARS]
        more = more.strip()
    if not more:
        return line, ""
    return line + " …", _clip(more, max(COMMAND_CHARS - len(line), 0))


def _head_tail(text: str, limit: int) -> str:
    """The start and the end of long output: errors and totals tend to be at the end."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 5
    tail = limit - head
    return text[:head].rstrip() + "\n…\n" + text[-tail:].lstrip()


def _web(tool: str, tool_in: dict[str, Any], resp: dict[str, Any]) -> Observation | None:
    if tool == "WebSearch":
        query = _one_line(_s(tool_in.get("query")), 300)
        if not query:
            return None
        return Observation(
            "fetch", f"Web search: {query}", "context", ["web", "web:search"], {"query": query}
        )
    url = _s(tool_in.get("url"), 4000) or _s(resp.get("url"), 4000)
    if not url:
        return None
    text = f"Fetched {_clip(url, 400)}"
    code = _n(resp.get("code"))
    if code is not None:
        text += f" ({code})"
    prompt = _one_line(_s(tool_in.get("prompt")), 300)
    if prompt:
        text += f"\nAsked: {prompt}"
    result = _s(resp.get("result"), 200_000)
    if result.strip():
        text += "\n" + _clip(result, MAX_FETCH_CHARS)
    host = url.split("://", 1)[-1].split("/", 1)[0].split("@")[-1][:80]
    return Observation("fetch", text, "context", ["web", f"web:{host}"], {"url": _clip(url, 400)})


def _ask(tool_in: dict[str, Any], resp: dict[str, Any]) -> Observation | None:
    """The user's answers to AskUserQuestion: often the one real decision of a session."""
    answers = _d(resp.get("answers"))
    if not answers:
        return None
    questions: list[Any] = []
    for source in (resp.get("questions"), tool_in.get("questions")):
        if isinstance(source, list):
            questions = source
            break
    asked = [_s(_d(q).get("question"), 2000) for q in questions]
    order = [q for q in asked if q in answers] + [q for q in answers if q not in asked]
    parts = []
    for question in order:
        answer = answers.get(question)
        if isinstance(answer, list):
            answer = ", ".join(_s(a, MAX_ANSWER_CHARS) for a in answer)
        answer_text = _one_line(_s(answer, MAX_ANSWER_CHARS * 2), MAX_ANSWER_CHARS)
        if answer_text:
            parts.append(f"Q: {_one_line(question, 300)}\nA (user): {answer_text}")
    if not parts:
        return None
    text = "User decided:\n" + "\n".join(parts)
    meta = {"answers": {_one_line(q, 300): _one_line(_s(answers.get(q)), 400) for q in order}}
    return Observation("decision", text, "decision", ["decision", "asked-user"], meta)


def _plan(tool_in: dict[str, Any]) -> Observation | None:
    plan = _s(tool_in.get("plan"), 200_000).strip()
    if not plan:
        return None
    text = "Plan approved by the user:\n" + _clip(plan, MAX_PLAN_CHARS)
    return Observation("plan", text, "decision", ["decision", "plan"], {})


def extract_failure(
    tool_name: str, tool_input: object, error: object, cwd: str
) -> Observation | None:
    """A failed tool call (PostToolUseFailure): what was tried and the error's first lines."""
    if not tool_name or is_own_tool(tool_name):
        return None
    paths = _Paths(cwd)
    tool_in = _d(tool_input)
    message = _s(error, 200_000).strip()
    if tool_name == "Bash":
        command = _s(tool_in.get("command"), 20_000).strip()
        if not command:
            return None
        line, rest = _command_parts(command)
        what = "$ " + line
        first = command.split()[0] if command.split() else ""
        tags = ["failure", "command", f"cmd:{os.path.basename(first)[:40]}"]
        meta: dict[str, Any] = {"command": _clip(command, 300)}
    else:
        raw = _s(tool_in.get("file_path")) or _s(tool_in.get("path"))
        shown = paths.display(paths.absolute(raw)) if raw else ""
        what = f"{tool_name} {shown}".strip()
        tags = ["failure", *(paths.file_tags(paths.absolute(raw)) if raw else [])]
        meta = {"file": paths.absolute(raw)} if raw else {}
    text = f"Failed: {what}"
    if message:
        text += "\n" + _head_tail(message, MAX_ERROR_CHARS)
    if tool_name == "Bash" and rest:
        text += "\n[command]\n" + rest
    tags.append(f"tool:{tool_name[:60]}")
    meta["tool"] = tool_name
    return Observation("failure", text, "context", tags, meta)


def extract_subagent_report(agent_type: str, report: object) -> Observation | None:
    """A subagent's final message (SubagentStop's ``last_assistant_message``): its report to
    the main agent, which otherwise reaches the store only with the transcript's next ingest."""
    text = _s(report, 200_000).strip()
    if not text:
        return None
    kind = _one_line(agent_type, 60) or "subagent"
    tags = ["subagent", f"agent:{kind}"]
    content = f"Subagent {kind} reported: {_head_tail(text, MAX_REPORT_CHARS)}"
    return Observation("subagent", content, "insight", tags, {"agent_type": kind})


def _generic(tool: str, tool_in: object) -> Observation | None:
    try:
        shown = dumps(tool_in, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        shown = ""
    text = f"Used {tool}"
    if shown and shown not in ("{}", "null"):
        text += ": " + _clip(shown, MAX_GENERIC_CHARS)
    return Observation("other", text, "context", [f"tool:{tool[:60]}"], {})


def extract(
    tool_name: str, tool_input: object, tool_response: object, cwd: str, bash_output_chars: int
) -> Observation | None:
    """The observation for one tool call, or None when there is nothing worth keeping."""
    paths = _Paths(cwd)
    tool_in = _d(tool_input)
    resp = _d(tool_response)
    if tool_name == "Read":
        obs = _read(tool_in, resp, paths)
    elif tool_name in ("Glob", "Grep"):
        obs = _search(tool_name, tool_in, resp, paths)
    elif tool_name in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
        obs = _edit(tool_name, tool_in, resp, paths)
    elif tool_name == "Bash":
        obs = _bash(tool_in, resp, paths, bash_output_chars)
    elif tool_name in ("WebFetch", "WebSearch"):
        obs = _web(tool_name, tool_in, resp)
    elif tool_name == "AskUserQuestion":
        obs = _ask(tool_in, resp)
    elif tool_name == "ExitPlanMode":
        obs = _plan(tool_in)
    else:
        obs = _generic(tool_name, tool_input)
    if obs is not None:
        obs.tags.append(f"tool:{tool_name[:60]}")
        obs.metadata["tool"] = tool_name
    return obs
