"""What the tools without a reader of their own in ``memlode.hooks.extract`` answered: another
MCP server's reply, a skill's, a scheduled wakeup's, after what each was asked; and a command
run in the background, whose output the assistant reads later (TaskOutput), read as a command's.
Loaded only for such a tool: ``extract`` hands it over.
"""

from __future__ import annotations

from memlode.fastjson import dumps
from memlode.hooks.observation import Observation, as_dict, as_text, clip, one_line
from memlode.hooks.output import run_observation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["other_tool"]


def other_tool(
    tool: str, tool_input: object, tool_response: object, output_chars: int
) -> Observation | None:
    """The observation of a tool ``memlode.hooks.extract`` has no reader for."""
    if tool in BACKGROUND_OUTPUT_TOOLS:
        return _background_output(as_dict(tool_response), output_chars)
    return _generic(tool, tool_input, tool_response)


# A command run in the background (Bash with run_in_background) answers with its task's id; its
# output comes later, when the assistant reads it with TaskOutput (BashOutput in older builds):
# ``{retrieval_status, task: {task_id, description, status, exitCode, output}}`` [transcripts].
# Read as a command's output is, under the task's description: a background test run's totals
# or its failure are what a next-day "did the tests pass?" asks.
BACKGROUND_OUTPUT_TOOLS = ("TaskOutput", "BashOutput")


def _background_output(resp: dict[str, Any], output_chars: int) -> Observation | None:
    task = as_dict(resp.get("task")) or resp
    output = as_text(task.get("output"), 1 << 62).strip()
    if not output:
        output = "\n".join(as_text(resp.get(s), 1 << 62) for s in ("stdout", "stderr")).strip()
    name = one_line(as_text(task.get("description") or task.get("command")), 200) or one_line(
        as_text(task.get("task_id") or task.get("shell_id") or resp.get("shellId")), 60
    )
    status = one_line(as_text(task.get("status") or resp.get("status")), 40)
    code = task.get("exitCode", resp.get("exitCode"))
    if not output and not status:
        return None
    from memlode.sources.outcomes import read_output

    exit_failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
    said, errors, failed = read_output(as_text(task.get("command")), output, exit_failed)
    failed = failed or exit_failed
    state = ", ".join(
        part for part in (status, f"exit code {code}" if isinstance(code, int) else "") if part
    )
    head = ("Failed: " if failed else "") + "Background task" + (f" {name}" if name else "")
    head += f" ({state})" if state else ""
    reading = (said, errors, failed)
    meta: dict[str, Any] = {"task": name}
    return run_observation(
        head, reading, [("output", output)], output_chars, ["command", "background"], meta
    )


# What any other tool answered, after what it was asked: an MCP server's reply (a pull request's
# number, an issue's URL: the text blocks of ``{"content": [{"type": "text", ...}]}``), a
# skill's, a wakeup's (``{"stopped": true, "cancelledWakeups": 1}``: its values by name), at most
# MAX_REPLY_CHARS. Not of a tool whose reply is reported elsewhere (a subagent's, at
# SubagentStop), says again what it was asked (TodoWrite's old and new lists) or keeps the
# assistant's own books (a task's id and status, a deferred tool found, plan mode entered: the
# shared transcripts' TaskCreate, TaskUpdate, ToolSearch and EnterPlanMode replies).
MAX_GENERIC_CHARS = 400  # what it was asked
MAX_REPLY_CHARS = 600
UNREPLIED_TOOLS = frozenset(
    {"Task", "Agent", "TodoWrite", "TaskCreate", "TaskUpdate", "ToolSearch", "EnterPlanMode"}
)
MAX_REPLY_DEPTH = 4
MIN_REPLY_VALUE_CHARS = 40
MAX_BLOB_WORD = 200  # a longer text without a space is an encoded payload, not words


def _generic(tool: str, tool_in: object, tool_response: object) -> Observation | None:
    try:
        shown = dumps(tool_in, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        shown = ""
    text = f"Used {tool}"
    if shown and shown not in ("{}", "null"):
        text += ": " + clip(shown, MAX_GENERIC_CHARS)
    if tool not in UNREPLIED_TOOLS:
        asked = {v for v in as_dict(tool_in).values() if isinstance(v, str) and len(v) > 3}
        reply = _reply(tool_response, asked)
        if reply:
            text += "\nAnswered: " + clip(reply, MAX_REPLY_CHARS)
    return Observation("other", text, "context", [f"tool:{tool[:60]}"], {})


def _reply(response: object, asked: set[str]) -> str:
    """A tool's reply in words: its text blocks, a text, or its values by name (the texts it
    was asked with left out: a prompt, a query), '' when it says nothing."""
    blocks = response.get("content") if isinstance(response, dict) else response
    if isinstance(blocks, list):
        texts = [
            as_text(block.get("text"), MAX_REPLY_CHARS * 2).strip()
            for block in blocks
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        if any(texts):
            return " ".join(" ".join(t.split()) for t in texts if t)
    if isinstance(response, str):
        return " ".join(response[: MAX_REPLY_CHARS * 2].split())
    pairs: list[str] = []
    _values(response, "", asked, pairs, 0)
    return "; ".join(pairs)


def _values(value: object, name: str, asked: set[str], out: list[str], depth: int) -> None:
    """``name: value`` of each scalar in ``value`` (nested names joined by dots), into ``out``
    until they fill MAX_REPLY_CHARS (a text takes the room left: an ``output`` of one text is
    kept as long as a text reply); empty texts, encoded payloads and those it was asked with
    left out."""
    room = MAX_REPLY_CHARS - sum(len(p) + 2 for p in out)
    if room <= 0 or depth > MAX_REPLY_DEPTH:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _values(item, f"{name}.{key}" if name else str(key), asked, out, depth + 1)
    elif isinstance(value, list):
        if value and all(isinstance(v, str | int | float) for v in value):
            listed = ", ".join(one_line(str(v), 80) for v in value[:10])
            out.append(f"{name}: {listed}" if name else listed)
        else:
            for item in value[:10]:
                _values(item, name, asked, out, depth + 1)
    elif isinstance(value, bool):
        out.append(f"{name}: {'true' if value else 'false'}")
    elif isinstance(value, int | float) or (
        isinstance(value, str) and value not in asked | {""} and not _blob(value)
    ):
        shown = one_line(str(value), max(room - len(name) - 2, MIN_REPLY_VALUE_CHARS))
        out.append(f"{name}: {shown}" if name else shown)


def _blob(text: str) -> bool:
    """An encoded payload (an image's base64, a token): long, and not one space in it."""
    return len(text) > MAX_BLOB_WORD and not any(c.isspace() for c in text)
