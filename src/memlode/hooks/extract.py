"""Per-tool extractors: one PostToolUse payload -> at most one short observation.

Each extractor reads ``tool_input``/``tool_response`` defensively (Anthropic publishes no schema
for ``tool_response``; any field may be missing or of another type) and returns an
``Observation`` whose text is bounded: a Read stores the path and line range, never the body,
and an edit a diff summary, never the file; a manifest or settings file read, or written whole,
keeps what its lines say (``hooks.manifest``).

| tool | memory type | tags |
|---|---|---|
| Read | context | file:, ext:, dir: (settings: a settings file's lines) |
| Glob / Grep | pattern | glob: / pattern: |
| Edit / MultiEdit / Write / NotebookEdit | context | file:, ext:, dir:, edit (settings) |
| Bash | context | cmd: |
| TaskOutput / BashOutput (a background command's output) | context | cmd:, background |
| WebFetch / WebSearch | context | web: |
| AskUserQuestion (the answers, the options not taken) | decision | decision, asked-user |
| ExitPlanMode (the plan the user approved) | decision | decision, plan |
| any other tool (what it was asked, what it answered) | context | tool: |

An edit is an observation of a change, not a decision: the decisions of a session are the
user's answers and approved plans (and what is stored on purpose). ``extract_failure`` turns a
PostToolUseFailure (a failed command, a rejected edit) into a short ``failure`` observation.

A hook process runs one extractor, so each extractor imports its own helpers:
``memlode.hooks.diffsum`` (symbols, diff summaries) for a Read or an edit,
``memlode.sources.outcomes`` (what a command's output says) for a command,
``memlode.hooks.replies`` for any other tool (what it answered; a background command's output).
"""

from __future__ import annotations

import os

from memlode.hooks.observation import (
    OWN_TOOL_PREFIX,
    Observation,
    Paths,
    as_dict,
    as_int,
    as_text,
    clip,
    display_path,
    file_part,
    is_own_tool,
    one_line,
)
from memlode.hooks.output import head_tail, repeated, run_observation
from memlode.storage.capture import (
    ANSWER_LINE,
    COMMAND_REST,
    FAILURE_TAG,
    QUESTION_LINE,
    SETTINGS_TAG,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

__all__ = [
    "OWN_TOOL_PREFIX",
    "Observation",
    "display_path",
    "extract",
    "extract_failure",
    "is_own_tool",
]

MAX_REPORT_CHARS = 2000
# A subagent's report longer than MAX_REPORT_CHARS (an Explore agent's survey of a codebase runs
# to 10,000 characters and more) is kept whole, in parts of at most REPORT_PART_CHARS cut at its
# headings and paragraphs, each a memory of its own: of one long memory, an injection shows a
# passage of a few hundred characters and the vector reads only the start (session replay,
# bench/RESULTS.md "Session 22": the window size an Explore report gave 5,000 characters in
# was in no memory). At most MAX_REPORT_PARTS parts; a longer report keeps its head and tail.
REPORT_PART_CHARS = 1500
MAX_REPORT_PARTS = 12
# A turn's last message shorter than this many words ("Done.", "Pushed.") is not kept.
MIN_REPORT_WORDS = 12
MAX_ERROR_CHARS = 600
# A command's first line as shown first, and the whole command as stored (see _command_parts).
COMMAND_LINE_CHARS = 200
COMMAND_CHARS = 600
MAX_PLAN_CHARS = 1500
MAX_ANSWER_CHARS = 400
MAX_PATTERN_CHARS = 200
MAX_LISTED_FILES = 8
MAX_FETCH_CHARS = 600


def _file_list(names: object, paths: Paths) -> str:
    if not isinstance(names, list):
        return ""
    shown = [paths.display(n) for n in names[:MAX_LISTED_FILES] if isinstance(n, str)]
    more = len(names) - len(shown)
    text = ", ".join(shown)
    if more > 0:
        text += f" (+{more} more)"
    return text


# ---- extractors --------------------------------------------------------------------------------


def _read(tool_in: dict[str, Any], resp: dict[str, Any], paths: Paths) -> Observation | None:
    file_info = as_dict(resp.get("file"))
    raw = as_text(tool_in.get("file_path")) or as_text(file_info.get("filePath"))
    if not raw:
        return None
    path = paths.absolute(raw)
    shown = paths.display(path)
    said = ""  # a settings file's lines (hooks.manifest)
    if as_text(resp.get("type")) == "image":
        text = f"Viewed image {shown}"
    else:
        start = as_int(file_info.get("startLine")) or as_int(tool_in.get("offset"))
        count = as_int(file_info.get("numLines")) or as_int(tool_in.get("limit"))
        total = as_int(file_info.get("totalLines"))
        text = f"Read {shown}"
        if start is not None and count is not None and count > 0:
            text += f" lines {start}-{start + count - 1}"
        if total is not None:
            text += f" of {total}"
        content = as_text(file_info.get("content"), 400_000)
        from memlode.hooks.manifest import digest, is_settings_file

        if is_settings_file(path, len(content)):
            said = digest(content)
            if said:
                text += ":\n" + said
        else:
            from memlode.hooks.diffsum import symbols_in

            symbols = symbols_in(content, limit=15, suffix=os.path.splitext(path)[1])
            if symbols:
                text += "; defines " + ", ".join(symbols)
    tags = ["read", *paths.file_tags(path)]
    if said:
        tags.append(SETTINGS_TAG)
    return Observation("read", text, "context", tags, {"file": path}, path)


def _search(
    tool: str, tool_in: dict[str, Any], resp: dict[str, Any], paths: Paths, output_chars: int
) -> Observation | None:
    pattern = as_text(tool_in.get("pattern"), MAX_PATTERN_CHARS * 4)
    if not pattern.strip():
        return None
    pattern = one_line(pattern, MAX_PATTERN_CHARS)
    where = as_text(tool_in.get("path"))
    text = f"{tool} '{pattern}'"
    if where:
        text += f" in {paths.display(paths.absolute(where))}"
    extras = [f"{k} {as_text(tool_in.get(k))}" for k in ("glob", "type") if as_text(tool_in.get(k))]
    if extras:
        text += " (" + ", ".join(extras) + ")"
    num = as_int(resp.get("numFiles"))
    mode = as_text(resp.get("mode")) or as_text(tool_in.get("output_mode"))
    if tool == "Grep" and mode in ("content", "count"):
        # Content mode reports numFiles 0 and puts the matches in ``content``.
        content = as_text(resp.get("content"), 2_000_000)
        matches, files = _grep_matches(content, mode)
        lines = as_int(resp.get("numLines"))
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
    if tool == "Grep" and mode == "content" and output_chars > 0:
        # the matched lines, as a grep run in the shell keeps its output: what was found
        # ("which package is createTreeCollection re-exported from?") is in them
        found = head_tail(_relative_lines(content, paths).strip(), output_chars)
        if found:
            text += "\n" + found
    prefix = "glob" if tool == "Glob" else "pattern"
    tags = ["search", f"{prefix}:{pattern[:80]}"]
    meta = {"pattern": pattern, "matches": meta_matches}
    return Observation("search", text, "pattern", tags, meta)


def _relative_lines(content: str, paths: Paths) -> str:
    """Grep's matched lines with the working directory left out of their paths."""
    root = os.path.normpath(paths.cwd).rstrip(os.sep) + os.sep if paths.cwd else ""
    return content.replace(root, "") if root and root != os.sep else content


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
    tool: str, tool_in: dict[str, Any], resp: dict[str, Any], paths: Paths
) -> Observation | None:
    raw = (
        as_text(tool_in.get("file_path"))
        or as_text(resp.get("filePath"))
        or as_text(tool_in.get("notebook_path"))
    )
    if not raw:
        return None
    path = paths.absolute(raw)
    shown = paths.display(path)
    suffix = os.path.splitext(path)[1]
    from memlode.hooks.diffsum import (
        DiffSummary,
        leading_comment,
        summarize_patch,
        summarize_strings,
        symbols_in,
    )

    summary: DiffSummary | None = summarize_patch(resp.get("structuredPatch"), suffix)
    verb = "Edited"
    said = ""
    settings = False
    if tool == "Write":
        kind = as_text(resp.get("type"))
        body = as_text(tool_in.get("content"), 2_000_000) or as_text(resp.get("content"), 2_000_000)
        from memlode.hooks.manifest import digest, is_settings_file

        settings = is_settings_file(path, len(body))
        if settings:
            said = digest(body)  # a unit file or a manifest written whole: what it says
        if kind == "create" or (summary is None and not resp.get("originalFile")):
            verb = "Created"
            summary = DiffSummary()
            summary.added = len(body.splitlines())
            summary.hunks = 1
            summary.symbols = symbols_in(body, suffix=suffix)
            if not said:  # what the new file says it is for, in its opening comment
                said = leading_comment(body)
        elif summary is None:
            verb = "Rewrote"
    if summary is None:
        if tool == "MultiEdit" and isinstance(tool_in.get("edits"), list):
            parts = [as_dict(e) for e in tool_in["edits"]]
            summary = summarize_strings(
                "\n".join(as_text(p.get("old_string")) for p in parts),
                "\n".join(as_text(p.get("new_string")) for p in parts),
                suffix,
            )
            summary.hunks = len(parts)
        else:
            old = as_text(tool_in.get("old_string")) or as_text(resp.get("oldString"))
            new = as_text(tool_in.get("new_string")) or as_text(resp.get("newString"))
            if tool == "NotebookEdit":
                new = as_text(tool_in.get("new_source"))
            summary = summarize_strings(old, new, suffix)
    text = f"{verb} {shown}: {summary.headline()}"
    if suffix.lower() in DOC_SUFFIXES and verb == "Edited":
        section = _section(path, tool_in, summary.line_ranges)
        if section:
            text = f'{verb} {shown}, section "{section}": {summary.headline()}'
    if summary.excerpt and verb == "Edited":
        text += "\n" + "\n".join(summary.excerpt)
    if said:  # a file the Write tool wrote whole: what it says now (after the change)
        text += "\n" + (said if verb == "Created" else "[the file now]\n" + said)
    tags = ["edit", *paths.file_tags(path)]
    if settings and said:
        tags.append(SETTINGS_TAG)
    meta = {"file": path, "diff": summary.as_dict()}
    return Observation("edit", text, "context", tags, meta, path)


# An edit of a markdown file says which section it changed: the heading above its first changed
# line, as code's edits name the functions they touch. A one-line edit of a list ("+
# libdbus-1-dev \\" in a README's build dependencies) has no word of its own that a question
# about it uses ("which package do people need to build from source?").
DOC_SUFFIXES = (".md", ".mdx", ".markdown")
SECTION_CHARS = 100
SECTION_READ_BYTES = 1 << 20  # a file larger than this is searched in the edit's text only
HUNK_CONTEXT = 3


def _section(path: str, tool_in: dict[str, Any], line_ranges: list[str]) -> str:
    """The heading (markdown "#" or a line that is bold text, "**Build Dependencies**
    (Debian):") of the section an edit's first changed line is in: read from the file as
    it is now, above the edit's first hunk (``line_ranges``, "76-82"), else from the edit's own
    new text above its first changed line; '' when there is none."""
    lines: list[str] = []
    first = line_ranges[0].split("-")[0] if line_ranges else ""
    if first.isdigit():
        try:
            if os.path.getsize(path) <= SECTION_READ_BYTES:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    # a hunk starts up to three lines of context before its first change
                    lines = handle.read().splitlines()[: int(first) + HUNK_CONTEXT]
        except OSError:
            lines = []
    if not lines:  # the edit's new text, up to the first line it changes
        old = as_text(tool_in.get("old_string"), 200_000).splitlines()
        new = as_text(tool_in.get("new_string"), 200_000).splitlines()
        same = 0
        while same < min(len(old), len(new)) and old[same] == new[same]:
            same += 1
        lines = new[: same + 1]
    heading = ""
    for line, prose in _prose(lines):
        if prose and (_heading(line) or _bold_line(line)):
            heading = line
    text = " ".join(heading.strip().lstrip("#").replace("**", "").split()).rstrip(":")
    return text[:SECTION_CHARS]


def _bold_line(line: str) -> bool:
    """A line that starts with bold text, as a heading of its own ("**Build Dependencies**
    (Pop!_OS/Ubuntu/Debian):"), not a list item or a paragraph that bolds a word."""
    text = line.strip()
    return text.startswith("**") and text.find("**", 2) > 2 and len(text) <= SECTION_CHARS


def _bash(
    tool_in: dict[str, Any], resp: dict[str, Any], paths: Paths, output_chars: int
) -> Observation | None:
    command = as_text(tool_in.get("command"), 20_000).strip()
    if not command:
        return None
    first, rest = _command_parts(command)
    outputs = {part: as_text(resp.get(part), 1 << 62) for part in ("stdout", "stderr")}
    outputs["stdout"] = _with_persisted_end(
        outputs["stdout"], resp.get("persistedOutputPath"), resp.get("persistedOutputSize")
    )
    printed = "\n".join(outputs.values()).strip()
    # an exit status of 0 can hide a failure (a test run piped into tail): its output says so
    from memlode.sources.outcomes import read_output

    reading = read_output(command, printed)
    head = ("Failed: $ " if reading[2] else "$ ") + first
    description = one_line(as_text(tool_in.get("description")), 200)
    if description:
        head += f"\n# {description}"
    if resp.get("interrupted") is True:
        head += "\n(interrupted)"
    streams = [(part, text.strip()) for part, text in outputs.items()]
    word = command.split()[0] if command.split() else ""
    tags = ["command", f"cmd:{os.path.basename(word)[:40]}"]
    meta: dict[str, Any] = {"command": clip(command, 300)}
    after = COMMAND_REST + rest if rest else ""
    return run_observation(head, reading, streams, output_chars, tags, meta, after)


# Claude Code keeps a command's output longer than 30,000 characters in a file and hands the
# hook its first 30,000 only (``tool_response.persistedOutputPath``; seen with 2.1.81 in a
# transcript and 2.1.197 here): a build's verdict, a test run's totals, the last error sit at
# the end it leaves out. That end is read back from the file: its last PERSISTED_END_BYTES,
# or the whole file when it is at most PERSISTED_WHOLE_BYTES.
PERSISTED_END_BYTES = 20_000
PERSISTED_WHOLE_BYTES = 64_000


def _with_persisted_end(stdout: str, path: object, expected: object = None) -> str:
    """``stdout`` as the hook got it, with the end of the whole output it was cut from (the file
    at ``path``) after it; ``stdout`` alone when there is no such readable regular file, or
    when it is shorter than the ``expected`` size (not written to its end yet)."""
    part = file_part(path, PERSISTED_WHOLE_BYTES, end=True)
    if part is None:
        return stdout
    data, size = part
    wanted = as_int(expected)
    if wanted is not None and size < wanted:
        return stdout
    if size <= PERSISTED_WHOLE_BYTES:
        return data.decode("utf-8", "replace")
    end = data[-PERSISTED_END_BYTES:].decode("utf-8", "replace")
    end = end.split("\n", 1)[1] if "\n" in end else end  # from the first whole line
    return stdout.rstrip("\n") + f"\n… [{size:,} bytes in all]\n" + end


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
    return line + " …", clip(more, max(COMMAND_CHARS - len(line), 0))


def _web(tool: str, tool_in: dict[str, Any], resp: dict[str, Any]) -> Observation | None:
    if tool == "WebSearch":
        query = one_line(as_text(tool_in.get("query")), 300)
        if not query:
            return None
        return Observation(
            "fetch", f"Web search: {query}", "context", ["web", "web:search"], {"query": query}
        )
    url = as_text(tool_in.get("url"), 4000) or as_text(resp.get("url"), 4000)
    if not url:
        return None
    text = f"Fetched {clip(url, 400)}"
    code = as_int(resp.get("code"))
    if code is not None:
        text += f" ({code})"
    prompt = one_line(as_text(tool_in.get("prompt")), 300)
    if prompt:
        text += f"\nAsked: {prompt}"
    result = as_text(resp.get("result"), 200_000)
    if result.strip():
        text += "\n" + clip(result, MAX_FETCH_CHARS)
    host = url.split("://", 1)[-1].split("/", 1)[0].split("@")[-1][:80]
    return Observation("fetch", text, "context", ["web", f"web:{host}"], {"url": clip(url, 400)})


# The options of one question the user's answer is shown with: their labels, each this long.
MAX_OPTIONS, MAX_OPTION_CHARS = 6, 80


def _offered(tool_in: dict[str, Any]) -> dict[str, list[str]]:
    """Each question's option labels, as the assistant offered them (AskUserQuestion's input:
    ``questions[].options[].label``)."""
    out: dict[str, list[str]] = {}
    questions = tool_in.get("questions")
    for q in questions if isinstance(questions, list) else []:
        options = as_dict(q).get("options")
        labels = [
            one_line(as_text(as_dict(o).get("label"), 400), MAX_OPTION_CHARS)
            for o in (options if isinstance(options, list) else [])
        ]
        out[as_text(as_dict(q).get("question"), 2000)] = [x for x in labels if x][:MAX_OPTIONS]
    return out


def _ask(tool_in: dict[str, Any], resp: dict[str, Any]) -> Observation | None:
    """The user's answers to AskUserQuestion: often the one real decision of a session."""
    answers = as_dict(resp.get("answers"))
    if not answers:
        return None
    questions: list[Any] = []
    for source in (resp.get("questions"), tool_in.get("questions")):
        if isinstance(source, list):
            questions = source
            break
    asked = [as_text(as_dict(q).get("question"), 2000) for q in questions]
    order = [q for q in asked if q in answers] + [q for q in answers if q not in asked]
    offered = _offered(tool_in)
    parts = []
    for question in order:
        answer = answers.get(question)
        if isinstance(answer, list):
            answer = ", ".join(as_text(a, MAX_ANSWER_CHARS) for a in answer)
        answer_text = one_line(as_text(answer, MAX_ANSWER_CHARS * 2), MAX_ANSWER_CHARS)
        if answer_text:
            part = f"{QUESTION_LINE}{one_line(question, 300)}\n{ANSWER_LINE}{answer_text}"
            # what the user turned down is part of the choice ("what was the other option?")
            others = [o for o in offered.get(question, []) if o not in answer_text]
            if others:
                part += "\nOther options: " + "; ".join(others)
            parts.append(part)
    if not parts:
        return None
    text = "User decided:\n" + "\n".join(parts)
    meta = {"answers": {one_line(q, 300): one_line(as_text(answers.get(q)), 400) for q in order}}
    return Observation("decision", text, "decision", ["decision", "asked-user"], meta)


def _plan(tool_in: dict[str, Any]) -> Observation | None:
    plan = as_text(tool_in.get("plan"), 200_000).strip()
    if not plan:
        return None
    text = "Plan approved by the user:\n" + clip(plan, MAX_PLAN_CHARS)
    return Observation("plan", text, "decision", ["decision", "plan"], {})


def extract_failure(
    tool_name: str, tool_input: object, error: object, cwd: str
) -> Observation | None:
    """A failed tool call (PostToolUseFailure): what was tried and the error's first lines."""
    if not tool_name or is_own_tool(tool_name):
        return None
    paths = Paths(cwd)
    tool_in = as_dict(tool_input)
    message = as_text(error, 200_000).strip()
    if tool_name == "Bash":
        command = as_text(tool_in.get("command"), 20_000).strip()
        if not command:
            return None
        line, rest = _command_parts(command)
        what = "$ " + line
        first = command.split()[0] if command.split() else ""
        tags = [FAILURE_TAG, "command", f"cmd:{os.path.basename(first)[:40]}"]
        meta: dict[str, Any] = {"command": clip(command, 300)}
    else:
        raw = as_text(tool_in.get("file_path")) or as_text(tool_in.get("path"))
        shown = paths.display(paths.absolute(raw)) if raw else ""
        what = f"{tool_name} {shown}".strip()
        tags = [FAILURE_TAG, *(paths.file_tags(paths.absolute(raw)) if raw else [])]
        meta = {"file": paths.absolute(raw)} if raw else {}
    text = f"Failed: {what}"
    said: list[str] = []
    if tool_name == "Bash":
        from memlode.sources.outcomes import read_output

        said, errors, _failed = read_output(command, message, failed=True)
        if len(message) > MAX_ERROR_CHARS:
            # a long log (pre-commit, CI, a test run): its decisive lines first, where an
            # excerpt of the error starts
            text += "".join(f"\n{line}" for line in errors)
    if message:
        shown = head_tail(message, MAX_ERROR_CHARS)
        text += "\n" + shown
        if tool_name == "Bash" and len(message) > MAX_ERROR_CHARS:
            text += repeated(message, shown)
    if said:
        text += "\nOutcome: " + "; ".join(said)
        meta["outcomes"] = said
    if tool_name == "Bash" and rest:
        text += COMMAND_REST + rest
    tags.append(f"tool:{tool_name[:60]}")
    meta["tool"] = tool_name
    return Observation("failure", text, "context", tags, meta)


def extract_subagent_report(agent_type: str, report: object) -> list[Observation]:
    """A subagent's final message (SubagentStop's ``last_assistant_message``): its report to
    the main agent, which otherwise reaches the store only with the transcript's next ingest;
    a long one in parts (``REPORT_PART_CHARS``), each saying which part of how many it is and
    under which heading it stands."""
    text = as_text(report, 200_000).strip()
    if not text:
        return []
    kind = one_line(agent_type, 60) or "subagent"
    tags = ["subagent", f"agent:{kind}"]
    if len(text) <= MAX_REPORT_CHARS:
        content = f"Subagent {kind} reported: {text}"
        return [Observation("subagent", content, "insight", tags, {"agent_type": kind})]
    parts = _report_parts(head_tail(text, REPORT_PART_CHARS * MAX_REPORT_PARTS))
    out = []
    for number, (heading, part) in enumerate(parts, 1):
        where = f"; {heading}" if heading and not part.startswith(heading) else ""
        content = f"Subagent {kind} reported (part {number} of {len(parts)}{where}): {part}"
        meta = {"agent_type": kind, "part": number, "parts": len(parts)}
        out.append(Observation("subagent", content, "insight", list(tags), meta))
    return out


# Markdown's structure is read by ``memlode.sources.markdown.parse_blocks``; a report's parts
# need only its headings and fences, by the same rules (at most three spaces before either; a
# fence closes on a line of its own character), and that parser's imports (``re``,
# ``dataclasses``) would add some 20 ms to every Stop hook.
def _heading(line: str) -> bool:
    """A markdown heading: one to six "#" and a space ("#123" and "#!/bin/sh" are none)."""
    text = line.lstrip(" ")
    marks = len(text) - len(text.lstrip("#"))
    return (
        len(line) - len(text) <= 3
        and 0 < marks <= 6
        and (len(text) == marks or text[marks].isspace())
    )


def _fence(line: str) -> str:
    """The character of a code fence (three or more ` or ~) that ``line`` is, else ''."""
    text = line.lstrip(" ")
    if len(line) - len(text) <= 3 and text[:3] in ("```", "~~~"):
        return text[0]
    return ""


def _prose(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Each line, and whether it is prose: neither a code fence nor inside a fenced block,
    where "# ..." is a comment, not a heading."""
    fenced = ""  # the fence character of the code block we are in
    for line in lines:
        fence = _fence(line)
        if fence and (not fenced or fence == fenced):
            fenced = "" if fenced else fence
            yield line, False
        else:
            yield line, not fenced


def _report_parts(text: str) -> list[tuple[str, str]]:
    """``text`` (markdown) cut into parts of at most REPORT_PART_CHARS: a heading starts a new
    part (unless the part so far is short), a part that would grow too long ends at a line
    break, and a line longer than a part is cut between words. Each part comes with the last
    heading above its start."""
    parts: list[tuple[str, str]] = []
    lines: list[str] = []
    size = 0
    heading = ""  # the heading the part being built stands under
    last = ""  # the last heading seen

    def flush() -> None:
        nonlocal lines, size
        body = "\n".join(lines).strip()
        if body:
            parts.append((heading, body))
        lines, size = [], 0

    for line, prose in _prose(text.splitlines()):
        if prose and _heading(line):
            if size >= REPORT_PART_CHARS // 3:  # a short part takes the next section in too
                flush()
            last = " ".join(line.split())[:120]
        while len(line) > REPORT_PART_CHARS:  # a line longer than a part: cut between words
            cut = line.rfind(" ", 0, REPORT_PART_CHARS) + 1 or REPORT_PART_CHARS
            flush()
            heading = last
            lines, size = [line[:cut]], cut
            line = line[cut:]
        if size + len(line) + 1 > REPORT_PART_CHARS:
            flush()
        if not lines:
            heading = last
        lines.append(line)
        size += len(line) + 1
    flush()
    return parts


def extract_turn_report(message: object) -> Observation | None:
    """The assistant's last message of a turn (Stop's ``last_assistant_message``): what it
    says it did, found and left, in its own words ("Committed as 62c5d6c0. Root cause: …"),
    which in a long turn is otherwise only a piece of a chunk full of tool lines. Short
    replies ("Done.") say nothing a next day asks."""
    text = as_text(message, 200_000).strip()
    if len(text.split()) < MIN_REPORT_WORDS:
        return None
    content = f"Assistant reported at the end of a turn: {head_tail(text, MAX_REPORT_CHARS)}"
    return Observation("report", content, "context", ["report", "turn-end"], {})


def extract(
    tool_name: str, tool_input: object, tool_response: object, cwd: str, bash_output_chars: int
) -> Observation | None:
    """The observation for one tool call, or None when there is nothing worth keeping."""
    paths = Paths(cwd)
    tool_in = as_dict(tool_input)
    resp = as_dict(tool_response)
    if tool_name == "Read":
        obs = _read(tool_in, resp, paths)
    elif tool_name in ("Glob", "Grep"):
        obs = _search(tool_name, tool_in, resp, paths, bash_output_chars)
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
    else:  # another tool: what it was asked and answered, a background command's output
        from memlode.hooks.replies import other_tool

        obs = other_tool(tool_name, tool_input, tool_response, bash_output_chars)
    if obs is not None:
        obs.tags.append(f"tool:{tool_name[:60]}")
        obs.metadata["tool"] = tool_name
    return obs
