"""How Gemini CLI wraps the text it hands its model, read by the Gemini hook adapter and by the
reader of Gemini's chat files alike:

- SessionStart's additionalContext (memlode's own briefing) goes in front of the first prompt
  as ``<hook_context>…</hook_context>`` (INTEGRATION.md 6.3): cut off, it is never the user's.
- A tool's output the model should not take for instructions is wrapped in
  ``<untrusted_context>…</untrusted_context>``.
- run_shell_command reports ``Output: …`` then one line each of ``Error``, ``Exit Code``,
  ``Signal``, ``Background PIDs``, ``Process Group PGID``.

Stdlib only and import-light: every Gemini hook process imports this.
"""

from __future__ import annotations

__all__ = [
    "HOOK_CONTEXT_CLOSE",
    "HOOK_CONTEXT_OPEN",
    "shell_sections",
    "strip_hook_context",
    "unwrap",
]

HOOK_CONTEXT_OPEN = "<hook_context>"
HOOK_CONTEXT_CLOSE = "</hook_context>"
UNTRUSTED_OPEN = "<untrusted_context>"
UNTRUSTED_CLOSE = "</untrusted_context>"
# Section headers of run_shell_command's llmContent, in the order the tool writes them.
SHELL_SECTIONS = (
    "Output",
    "Error",
    "Exit Code",
    "Signal",
    "Background PIDs",
    "Process Group PGID",
)


def strip_hook_context(prompt: str) -> str:
    """The user's prompt without the ``<hook_context>`` blocks Gemini CLI put in front of it
    (SessionStart's context, in non-interactive runs)."""
    text = prompt
    while text.lstrip().startswith(HOOK_CONTEXT_OPEN):
        end = text.find(HOOK_CONTEXT_CLOSE)
        if end < 0:
            break
        text = text[end + len(HOOK_CONTEXT_CLOSE) :]
    if text is prompt:
        return prompt
    return text.lstrip("\r\n")


def unwrap(text: str) -> str:
    """Text inside the ``<untrusted_context>`` wrapper the CLI puts around command output."""
    body = text.strip()
    if body.startswith(UNTRUSTED_OPEN) and body.endswith(UNTRUSTED_CLOSE):
        body = body[len(UNTRUSTED_OPEN) : -len(UNTRUSTED_CLOSE)]
    return body.strip("\n")


def shell_sections(content: str) -> dict[str, str]:
    """run_shell_command's ``llmContent`` by section: ``Output: …`` (any number of lines),
    then one line each of ``Error: …``, ``Exit Code: 1``, ``Signal: …``, … Read from the end,
    so a line of the command's own output that looks like a header stays in the output."""
    lines = unwrap(content).split("\n")
    sections: dict[str, str] = {}
    while lines:
        header, sep, rest = lines[-1].partition(": ")
        if not sep or header not in SHELL_SECTIONS[1:] or header in sections:
            break
        sections[header] = rest
        lines.pop()
    text = "\n".join(lines)
    if text.startswith("Output: "):
        output = text[len("Output: ") :].rstrip("\n")
        sections["Output"] = "" if output == "(empty)" else output
    return sections
