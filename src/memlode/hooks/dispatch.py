"""The hook entry point: read the payload on stdin, run the event's handler, print only what
the event allows, exit 0 whatever happens.

A hook process ends with ``os._exit(0)`` while its connection is still open. Closing the last
connection to a WAL database checkpoints it (copies the WAL into the database and syncs it),
which costs more than the hook's own write; committed transactions are already durable in the
WAL, and the next long-lived process (or SQLite's auto-checkpoint) folds them in.

On a PostgreSQL store the event goes to the store's resident instead
(``memlode.hooks.handoff``): a hook cannot afford to load the database driver.

Errors (bad JSON, a locked or broken database, a bug) are written to
``$MEMLODE_HOME/hooks.log`` and never reach stdout, stderr or the exit code, so that memlode
can never block, interrupt or pollute an assistant session.
"""

from __future__ import annotations

import os
import sys
import time

from memlode.fastjson import loads
from memlode.hook_settings import HookSettings
from memlode.hooks._log import log_line, timing_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["EVENTS", "MAX_PAYLOAD_BYTES", "canonical_event", "main", "run"]

# Claude Code's event names and the short names used on the command line.
EVENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt",
    "PostToolUse": "post-tool",
    "PostToolUseFailure": "post-tool-failure",
    "Stop": "stop",
    "PreCompact": "pre-compact",
    "PostCompact": "post-compact",
    "SubagentStop": "subagent-stop",
    "SessionEnd": "session-end",
}
_ALIASES = {
    "user-prompt-submit": "prompt",
    "user-prompt": "prompt",
    "post-tool-use": "post-tool",
    "posttooluse": "post-tool",
    "post-tool-use-failure": "post-tool-failure",
    "posttoolusefailure": "post-tool-failure",
    "sessionstart": "session-start",
    "sessionend": "session-end",
    "precompact": "pre-compact",
    "postcompact": "post-compact",
    "subagentstop": "subagent-stop",
}
_LEFT_OPEN: list[object] = []  # hooks whose connection the process exit abandons

# Payloads above this are not parsed (a Read of a huge file can produce tens of MB).
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024


def canonical_event(name: str) -> str | None:
    name = name.strip()
    if name in EVENTS.values():
        return name
    if name in EVENTS:
        return EVENTS[name]
    return _ALIASES.get(name.lower().replace("_", "-")) or _ALIASES.get(name.lower())


def run(
    event: str,
    raw: bytes,
    environ: Mapping[str, str] | None = None,
    *,
    keep_open: bool = False,
) -> str | None:
    """Handle one event; the text to print (SessionStart/UserPromptSubmit only) or None.

    ``keep_open`` leaves the database connection open for a process about to ``os._exit``.
    """
    try:
        settings = HookSettings(environ)
    except Exception as exc:  # pragma: no cover - HookSettings does not raise by design
        log_line(HookSettings.__new__(HookSettings).log_path, event, f"settings: {exc!r}")
        return None
    if settings.config_error:
        log_line(settings.log_path, event, settings.config_error)
    if not settings.enabled:
        return None
    started = time.perf_counter()
    try:
        return _run(event, raw, settings, keep_open)
    except Exception as exc:
        log_line(settings.log_path, event, _describe(exc))
        return None
    finally:
        timing_line(settings.timings_path, canonical_event(event) or event, _ms(started))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _run(event: str, raw: bytes, settings: HookSettings, keep_open: bool) -> str | None:
    if len(raw) > MAX_PAYLOAD_BYTES:
        log_line(settings.log_path, event, f"payload of {len(raw)} bytes skipped (too large)")
        return None
    try:
        payload = loads(raw.decode("utf-8", errors="replace")) if raw.strip() else None
    except ValueError as exc:
        log_line(settings.log_path, event, f"payload is not JSON ({exc}); ignored")
        return None
    if not isinstance(payload, dict):
        log_line(settings.log_path, event, "payload is not a JSON object; ignored")
        return None
    name = canonical_event(event)
    if name is None:
        declared = payload.get("hook_event_name")
        name = canonical_event(declared) if isinstance(declared, str) else None
    if name is None:
        log_line(settings.log_path, event, f"unknown hook event {event!r}; ignored")
        return None
    if settings.on_server:  # a PostgreSQL store: its resident runs the handler
        from memlode.hooks.handoff import hand_off

        return hand_off(name, raw, payload, settings)
    from memlode.hooks.handlers import HANDLERS, HookRun

    hook = HookRun(name, payload, settings)
    try:
        return HANDLERS[name](hook)
    finally:
        if keep_open:
            _LEFT_OPEN.append(hook)
        else:
            hook.close()


def _describe(exc: BaseException) -> str:
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def main(argv: Sequence[str] | None = None, *, exit_process: bool = False) -> int:
    """The installed hook command (and ``python -m memlode.hooks <event>``): always returns 0.

    With ``exit_process`` the process ends here (``os._exit(0)``), skipping the WAL checkpoint
    that closing the connection would run, and the interpreter's teardown.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    event = args[0] if args else ""
    try:
        raw = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1) if sys.stdin is not None else b""
    except (OSError, ValueError):
        raw = b""
    output = run(event, raw, keep_open=exit_process)
    if output:
        try:
            sys.stdout.write(output + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    if exit_process:
        try:  # noqa: SIM105 - contextlib costs a hook process milliseconds to import
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os._exit(0)
    return 0
