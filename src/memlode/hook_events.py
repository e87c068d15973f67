"""Hook events, declared once (L0, import-light: every hook process reads it).

Two tables:

- ``EVENTS``: memlode's own events and the handler each one runs (``module:function``), so a
  hook process imports only its own event's module (``memlode.hooks.dispatch``).
- ``CLIENT_HOOKS``: per assistant, the hook events memlode registers there: the client's own
  event name, the memlode event it feeds, its matcher, timeout (seconds) and whether the
  client may run it without waiting (``async``). ``memlode init`` writes them, ``doctor``
  checks them, the Claude Code plugin's ``hooks.json`` is generated from Claude Code's row
  (``memlode.cli.plugin_hooks``), the OpenCode plugin receives its row, and dispatch reads a
  client's events in its payloads through it.

A client whose payloads are not Claude Code's shape has an adapter,
``memlode.hooks.adapters.<client>``, which turns its payload into that shape (``ADAPTED``).
Everything captured carries the client's ``label`` (``CLIENT_LABELS``).

Where each client's events come from (their hook references, checked Dec 2026; the real CLIs
in tests/clients confirm the ones that run here):

- Claude Code: code.claude.com/docs hooks reference.
- Codex CLI: Claude Code's wire format in ``hooks.json``; edits arrive as ``apply_patch``.
- Gemini CLI: ``hooks`` in ``settings.json``; BeforeAgent/AfterAgent around a turn, AfterTool
  after each tool, PreCompress before a compression. Timeouts in milliseconds (the installer
  converts).
- OpenCode: no hook files; a plugin memlode installs forwards its events and hooks
  (``session.created``, ``chat.message``, ``tool.execute.after``, ``session.idle``, ...).
- Cursor: ``hooks.json`` ``{"version": 1, "hooks": {...}}``, camelCase events.
- Windsurf: ``hooks.json`` with snake_case events (``pre_user_prompt``, ``post_write_code``...).
"""

from __future__ import annotations

__all__ = [
    "ADAPTED",
    "CLAUDE_CAPTURED_TOOLS",
    "CLIENT_HOOKS",
    "CLIENT_LABELS",
    "DEFAULT_CLIENT",
    "EVENTS",
    "HOOK_CODE",
    "HookSpec",
    "client_spec",
    "event_name",
]


# What an installed hook runs: ``python -c HOOK_CODE <event> [<client>]``. Not ``python -m
# memlode.hooks``: runpy imports importlib.util, contextlib and functools, several milliseconds
# of a hook's budget (bench/RESULTS.md).
HOOK_CODE = "from memlode.hooks.dispatch import main; main(exit_process=True)"


class HookSpec:
    """One hook memlode registers with a client."""

    __slots__ = ("async_", "event", "matcher", "name", "timeout")

    def __init__(
        self, event: str, name: str, matcher: str | None, timeout: int, async_: bool = False
    ) -> None:
        self.event = event  # the client's event name
        self.name = name  # memlode's event (a key of EVENTS)
        self.matcher = matcher  # None: every occurrence (events without matchers)
        self.timeout = timeout  # seconds
        self.async_ = async_

    def __repr__(self) -> str:
        return f"HookSpec({self.event!r} -> {self.name!r})"


# memlode's events: the handler each one runs, imported only when that event fires.
EVENTS = {
    "session-start": "memlode.hooks.handlers:session_start",
    "prompt": "memlode.hooks.prompt:user_prompt",
    "post-tool": "memlode.hooks.handlers:post_tool",
    "post-tool-failure": "memlode.hooks.handlers:post_tool_failure",
    "stop": "memlode.hooks.handlers:stop",
    "pre-compact": "memlode.hooks.handlers:pre_compact",
    "post-compact": "memlode.hooks.handlers:post_compact",
    "subagent-stop": "memlode.hooks.handlers:subagent_stop",
    "session-end": "memlode.hooks.handlers:session_end",
}

DEFAULT_CLIENT = "claude"

# Timeouts are seconds (values like 2000 have left other tools' hooks effectively uncapped).
# Claude Code's PostToolUse runs async (it does not wait at all); its matcher names the tools
# memlode has extractors for, which also leaves out memlode's own MCP tools.
CLAUDE_CAPTURED_TOOLS = (
    "Read|Write|Edit|MultiEdit|NotebookEdit|Bash|Grep|Glob|WebFetch|WebSearch"
    "|AskUserQuestion|ExitPlanMode"
)
# Failures worth remembering: a rejected push, a failing test run, an edit that did not apply.
_CLAUDE_FAILED_TOOLS = "Bash|Edit|MultiEdit|Write|NotebookEdit|WebFetch"

CLIENT_HOOKS: dict[str, tuple[HookSpec, ...]] = {
    "claude": (
        HookSpec("SessionStart", "session-start", None, 5),
        HookSpec("UserPromptSubmit", "prompt", None, 5),
        HookSpec("PostToolUse", "post-tool", CLAUDE_CAPTURED_TOOLS, 10, async_=True),
        HookSpec("PostToolUseFailure", "post-tool-failure", _CLAUDE_FAILED_TOOLS, 10, async_=True),
        HookSpec("Stop", "stop", None, 5),
        HookSpec("PreCompact", "pre-compact", "auto|manual", 5),
        HookSpec("PostCompact", "post-compact", "auto|manual", 5, async_=True),
        HookSpec("SubagentStop", "subagent-stop", None, 5, async_=True),
        HookSpec("SessionEnd", "session-end", None, 5),
    ),
    # Codex runs hooks in Claude Code's wire format; every tool is passed to the adapter, which
    # keeps the shell and apply_patch (and leaves memlode's own MCP tools out).
    "codex": (
        HookSpec("SessionStart", "session-start", None, 5),
        HookSpec("UserPromptSubmit", "prompt", None, 5),
        HookSpec("PostToolUse", "post-tool", None, 10),
        HookSpec("PreCompact", "pre-compact", None, 5),
        HookSpec("Stop", "stop", None, 5),
        HookSpec("SessionEnd", "session-end", None, 5),
    ),
    "gemini": (
        HookSpec("SessionStart", "session-start", None, 5),
        HookSpec("BeforeAgent", "prompt", None, 5),
        HookSpec("AfterTool", "post-tool", None, 10),
        HookSpec("AfterAgent", "stop", None, 5),
        # Gemini fires PreCompress before every model request with trigger "auto" (before it
        # checks whether anything needs compressing); its matcher is compared with the trigger
        HookSpec("PreCompress", "pre-compact", "manual", 5),
        HookSpec("SessionEnd", "session-end", None, 5),
    ),
    # The plugin memlode installs (memlode/hooks/opencode_plugin.js) receives this row: a tool
    # that throws fires no tool.execute.after, only a message part in error.
    "opencode": (
        HookSpec("session.created", "session-start", None, 5),
        HookSpec("chat.message", "prompt", None, 5),
        HookSpec("tool.execute.after", "post-tool", None, 10, async_=True),
        HookSpec("message.part.updated", "post-tool-failure", None, 10, async_=True),
        HookSpec("session.idle", "stop", None, 5, async_=True),
        HookSpec("experimental.session.compacting", "pre-compact", None, 5),
        HookSpec("session.compacted", "post-compact", None, 5, async_=True),
        HookSpec("session.deleted", "session-end", None, 5, async_=True),
    ),
    # cursor.com/docs/agent/hooks (adapter: memlode.hooks.adapters.cursor). Edits and commands
    # through their own events (their documented fields); postToolUse for reads only (the
    # adapter passes the rest over); afterAgentResponse carries the reply that Stop records,
    # stop the end of the loop (also after an abort).
    "cursor": (
        HookSpec("sessionStart", "session-start", None, 5),
        HookSpec("beforeSubmitPrompt", "prompt", None, 5),
        HookSpec("afterFileEdit", "post-tool", None, 10),
        HookSpec("afterShellExecution", "post-tool", None, 10),
        HookSpec("afterMCPExecution", "post-tool", None, 10),
        HookSpec("postToolUse", "post-tool", None, 10),
        HookSpec("postToolUseFailure", "post-tool-failure", None, 10),
        HookSpec("afterAgentResponse", "stop", None, 5),
        HookSpec("stop", "stop", None, 5),
        HookSpec("preCompact", "pre-compact", None, 5),
        HookSpec("sessionEnd", "session-end", None, 5),
    ),
    # docs.windsurf.com/windsurf/cascade/hooks (adapter: memlode.hooks.adapters.windsurf):
    # no session start or end, no compaction, no failure event.
    "windsurf": (
        HookSpec("pre_user_prompt", "prompt", None, 5),
        HookSpec("post_read_code", "post-tool", None, 10),
        HookSpec("post_write_code", "post-tool", None, 10),
        HookSpec("post_run_command", "post-tool", None, 10),
        HookSpec("post_mcp_tool_use", "post-tool", None, 10),
        HookSpec("post_cascade_response", "stop", None, 5),
    ),
}

# What memlode records as the client (memories' metadata "client", sessions.source).
CLIENT_LABELS = {
    "claude": "claude-code",
    "codex": "codex",
    "gemini": "gemini",
    "opencode": "opencode",
    "cursor": "cursor",
    "windsurf": "windsurf",
}

# The events whose output reaches the client's model, per client (their hook references):
# Cursor's beforeSubmitPrompt takes no context (only continue/user_message) and Windsurf's hooks
# none at all; there memlode stores what happened and recalls nothing it cannot hand over.
_BOTH = frozenset({"session-start", "prompt"})
HANDS_CONTEXT = {
    "claude": _BOTH,
    "codex": _BOTH,
    "gemini": _BOTH,
    "opencode": _BOTH,
    "cursor": frozenset({"session-start"}),
    "windsurf": frozenset(),
}

# Clients whose payloads go through memlode.hooks.adapters.<client> first.
ADAPTED = frozenset({"codex", "gemini", "opencode", "cursor", "windsurf"})


def client_spec(client: str, event: str) -> HookSpec | None:
    """The client's hook registered for memlode event ``event`` (its first, where several)."""
    for spec in CLIENT_HOOKS.get(client, ()):
        if spec.name == event:
            return spec
    return None


def event_name(name: str, client: str = DEFAULT_CLIENT) -> str | None:
    """memlode's event for ``name``: one of memlode's own, or the client's name for it
    (``UserPromptSubmit``, ``BeforeAgent``, any case), or an older spelling of memlode's
    (``user-prompt-submit``); None when it is none of them."""
    name = name.strip()
    if name in EVENTS:
        return name
    for spec in CLIENT_HOOKS.get(client, ()):
        if spec.event == name:
            return spec.name
    folded = name.lower().replace("_", "").replace("-", "").replace(".", "")
    for known in EVENTS:
        if known.replace("-", "") == folded:
            return known
    for specs in CLIENT_HOOKS.values():
        for spec in specs:
            if spec.event.lower().replace("_", "").replace(".", "") == folded:
                return spec.name
    return _OLD_NAMES.get(folded)


_OLD_NAMES = {"userprompt": "prompt"}  # an older spelling of the prompt event
