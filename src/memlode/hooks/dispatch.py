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

from memlode.fastjson import dumps, loads
from memlode.hook_events import (
    ADAPTED,
    CLIENT_LABELS,
    DEFAULT_CLIENT,
    HANDS_CONTEXT,
    event_name,
)
from memlode.hook_settings import HookSettings
from memlode.hooks._log import log_line, timing_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any


__all__ = ["MAX_PAYLOAD_BYTES", "canonical_event", "console", "main", "run"]

_LEFT_OPEN: list[object] = []  # hooks whose connection the process exit abandons

# Payloads above this are not parsed (a Read of a huge file can produce tens of MB).
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024


def canonical_event(name: str, client: str = DEFAULT_CLIENT) -> str | None:
    """memlode's event for a name on the command line or in a payload (``event_name``)."""
    return event_name(name, client)


def run(
    event: str,
    raw: bytes,
    environ: Mapping[str, str] | None = None,
    *,
    keep_open: bool = False,
    client: str = DEFAULT_CLIENT,
) -> str | None:
    """Handle one event from ``client``; the text to print (SessionStart/UserPromptSubmit
    only) or None.

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
        return _run(event, raw, settings, keep_open, client)
    except Exception as exc:
        log_line(settings.log_path, event, _describe(exc))
        return None
    finally:
        name = canonical_event(event, client) or event
        timing_line(settings.timings_path, name, _ms(started), client)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _run(
    event: str, raw: bytes, settings: HookSettings, keep_open: bool, client: str
) -> str | None:
    if client not in CLIENT_LABELS:
        log_line(settings.log_path, event, f"unknown client {client!r}; ignored")
        return None
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
    name = canonical_event(event, client)
    if name is None:
        declared = payload.get("hook_event_name")
        name = canonical_event(declared, client) if isinstance(declared, str) else None
    if name is None:
        log_line(settings.log_path, event, f"unknown hook event {event!r}; ignored")
        return None
    events = [(name, payload)]
    if client in ADAPTED:  # the client's payload, in the shape the handlers read
        events = _adapted(client, name, payload)
    output: str | None = None
    for name, payload in events:
        if len(events) > 1 or client in ADAPTED:
            raw = dumps(payload).encode("utf-8")
        if name in ("session-start", "prompt") and name not in HANDS_CONTEXT[client]:
            settings.inject = False  # nothing would reach the model: recall nothing
        output = _handle(name, raw, payload, settings, keep_open, client) or output
    if output and client in ADAPTED:  # the client's own output shape, where it has one
        render = getattr(_module(f"memlode.hooks.adapters.{client}"), "render", None)
        output = render(name, output) if render is not None else output
    return output


def _adapted(client: str, event: str, payload: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The events a client's payload stands for (``memlode.hooks.adapters``)."""
    module = _module(f"memlode.hooks.adapters.{client}")
    several = getattr(module, "adapt_all", None)
    if several is not None:
        found: list[tuple[str, dict[str, Any]]] = several(event, payload)
        return found
    one: tuple[str, dict[str, Any]] | None = module.adapt(event, payload)
    return [one] if one is not None else []


def _handle(
    name: str,
    raw: bytes,
    payload: dict[str, Any],
    settings: HookSettings,
    keep_open: bool,
    client: str,
) -> str | None:
    if settings.on_server:  # a PostgreSQL store: its resident runs the handler
        from memlode.hooks.handoff import hand_off

        return hand_off(name, raw, payload, settings, client)
    from memlode.hooks.run import HookRun, handler

    hook = HookRun(name, payload, settings, client=client)
    try:
        return handler(name)(hook)
    finally:
        if keep_open:
            _LEFT_OPEN.append(hook)
        else:
            hook.close()


def _module(name: str) -> Any:
    """The module ``name`` (a dotted path): the builtin import, since the ``importlib`` package
    is not loaded in a hook process and would cost it a module to import."""
    return __import__(name, fromlist=("_",))


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
    if exit_process:
        # No cyclic garbage collection in a process that ends within milliseconds (at
        # ``os._exit`` below): the collections that importing a handler and the redaction rules
        # set off would find nothing to free; reference counting frees the rest all the same.
        import gc

        gc.disable()
    args = list(sys.argv[1:] if argv is None else argv)
    event = args[0] if args else ""
    client = args[1] if len(args) > 1 else DEFAULT_CLIENT
    try:
        raw = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1) if sys.stdin is not None else b""
    except (OSError, ValueError):
        raw = b""
    output = run(event, raw, keep_open=exit_process, client=client)
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


def console() -> None:
    """The ``memlode-hook EVENT [CLIENT]`` console script: what the files a team commits run
    (``memlode init --scope project``), as fast as the interpreter-path command."""
    main(exit_process=True)
