"""One function per memlode hook event (``memlode.hook_events.EVENTS`` names each one's
function; the prompt's is in ``memlode.hooks.prompt``). Each gets a ``HookRun``, its payload
in Claude Code's shape (other clients' are adapted first: ``memlode.hooks.adapters``), and
returns the text to print (only SessionStart and UserPromptSubmit ever return any).

- SessionStart: starts or resumes the session (transcript path, model and cwd go into its
  metadata); prints the project's context block, and keeps it in the session's metadata
  (``start_context``: what the assistant was handed, for the dashboard).
- UserPromptSubmit (``memlode.hooks.prompt``): prints the recalled memories that pass the
  relevance gate, if any; stores the prompt (an instruction, or a question kept as a prompt).
- PostToolUse: one observation per tool call, file nodes, RELATES_TO and EVOLVED_INTO edges;
  an edited file is marked for the resident to re-index (``storage.code_dirty``).
- PostToolUseFailure: one ``failure`` observation (what was tried, the error's first lines).
- Stop: stores the session summary (an Insight), then ends the session.
- PreCompact: stores the session summary (a checkpoint).
- SessionEnd: stores the session summary, then ends the session.

Transcripts are not ingested here (too slow for a hook); the path is kept in the session's
metadata (``transcript_path``), and Stop, PostCompact and SessionEnd start ``memlode ingest
transcript`` detached (for OpenCode: its database and ``--session``).

On a PostgreSQL store the store's resident runs these same functions on the events the hooks
spooled (``memlode.hooks.handoff``); there the code index (per machine, SQLite only) gets no
edit marks, and transcripts are not ingested (``memlode ingest`` does not run on PostgreSQL).
"""

from __future__ import annotations

import os
import sys

from memlode.hooks.run import SOURCE, HookRun
from memlode.storage import capture, fastpath
from memlode.storage import capture_session as sessions

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from memlode.hooks.extract import Observation

__all__ = [
    "checkpoint",
    "post_compact",
    "post_tool",
    "post_tool_failure",
    "pre_compact",
    "session_end",
    "session_start",
    "stop",
    "subagent_stop",
]

SUMMARY_IMPORTANCE = 0.6


# ---- SessionStart ------------------------------------------------------------------------------


def session_start(run: HookRun) -> str | None:
    meta = run.session_metadata()
    source = run.text("source", 40)
    if source:
        meta["start_source"] = source
    text = ""
    if run.settings.inject:
        from memlode.hooks.injection import session_context

        # Built before the session's row is written: the context leaves the current session
        # out either way, and what it handed the assistant is kept in the same transaction
        # (the dashboard's Sessions page shows it).
        budget = run.settings.budget_chars(run.settings.session_budget_tokens)
        try:
            text = session_context(run.conn, run.namespace, run.session_id, budget)
        except Exception as exc:  # the session is recorded all the same
            from memlode.hooks._log import log_line

            log_line(run.settings.log_path, "session-start", f"context not built: {exc!r}")
    meta["start_context"] = {"chars": len(text), "text": text}  # nothing, when injection is off
    with run.write() as conn:
        sessions.start_session(conn, run.session_id, run.namespace, run.label, meta)
    if run.settings.resident_autostart:  # the store's resident, unless one runs (memlode.resident)
        from memlode.hooks._resident import ensure_running

        ensure_running(run.settings.home, run.settings.db_path)
    if not text:
        return None
    from memlode.hooks.injection import hook_output

    return hook_output("SessionStart", text)


# ---- PostToolUse -------------------------------------------------------------------------------


def post_tool(run: HookRun) -> str | None:
    if not run.settings.capture:
        return None
    tool = run.text("tool_name", 200)
    from memlode.hooks.extract import extract, is_own_tool

    if not tool or is_own_tool(tool):
        return None
    if run.settings.tools is not None and tool not in run.settings.tools:
        return None
    obs = extract(
        tool,
        run.payload.get("tool_input"),
        run.payload.get("tool_response"),
        run.cwd,
        run.settings.bash_output_chars,
    )
    if obs is not None:
        _store_observations(run, _timed(obs, tool, run.payload.get("duration_ms")))
    return None


def post_tool_failure(run: HookRun) -> str | None:
    """A failed tool call (a rejected push, a failing test run): what was tried, the error."""
    if not run.settings.capture or run.payload.get("is_interrupt") is True:
        return None
    tool = run.text("tool_name", 200)
    if run.settings.tools is not None and tool not in run.settings.tools:
        return None
    from memlode.hooks.extract import extract_failure

    obs = extract_failure(tool, run.payload.get("tool_input"), run.payload.get("error"), run.cwd)
    if obs is not None:
        _store_observations(run, _timed(obs, tool, run.payload.get("duration_ms")))
    return None


# Claude Code (2.1.197) gives a tool call's wall time (``duration_ms``) with PostToolUse and
# PostToolUseFailure. A command that ran this long (a build, a test suite, an install) keeps
# it after its command line: "how long does the build take?" is asked of it, and most tools
# print no time of their own.
LONG_COMMAND_MS = 10_000


def _timed(obs: Observation, tool: str, duration_ms: object) -> Observation:
    """``obs`` of a command that ran LONG_COMMAND_MS or more with its time after the command's
    first line ("(took 43.5 s)"), and in its metadata; others as they are."""
    if tool != "Bash" or isinstance(duration_ms, bool):
        return obs
    if not isinstance(duration_ms, int | float) or not LONG_COMMAND_MS <= duration_ms < 1e9:
        return obs
    seconds = duration_ms / 1000
    took = f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {int(seconds % 60)} s"
    first, newline, rest = obs.content.partition("\n")
    obs.content = f"{first} (took {took}){newline}{rest}"
    obs.metadata["duration_ms"] = int(duration_ms)
    return obs


def _store_observations(run: HookRun, *observations: Observation) -> None:
    """Store the observations of one hook run (a report's parts), in one write."""
    # redacted once, where storage writes it (memlode.storage.scrub: content, tags, metadata)
    kept = [(obs, obs.content.strip()) for obs in observations if obs.content.strip()]
    if not kept:
        return None
    namespace = run.namespace
    with run.write() as conn:
        sessions.start_session(conn, run.session_id, namespace, run.label)
        for obs, content in kept:
            metadata = run.base_metadata()
            metadata.update(obs.metadata)
            memory_id, created = capture.insert_memory(
                conn,
                content=content,
                memory_type=obs.memory_type,
                importance=obs.importance,
                tags=obs.tags,
                metadata=metadata,
                namespace=namespace,
                source=SOURCE,
                session_id=run.session_id,
            )
            if not created:
                sessions.remember_seen(conn, run.session_id, memory_id)
            if obs.file_path:
                _link_file(conn, run, memory_id, content, obs)
                # the resident re-indexes it (memlode.resident.code_refresh); a PostgreSQL
                # store holds no code index (each machine keeps its own)
                if obs.action == "edit" and not run.on_server:
                    from memlode.storage import code_dirty

                    code_dirty.mark(conn, obs.file_path)


def _link_file(
    conn: sqlite3.Connection, run: HookRun, memory_id: str, content: str, obs: Observation
) -> None:
    """File node + memory RELATES_TO file; an edit EVOLVED_INTO from the last observation of the
    same file in this session (a Read, or an earlier edit)."""
    from memlode.hooks.extract import display_path

    path, action = obs.file_path or "", obs.action
    namespace = run.namespace
    node_id = capture.upsert_file_node(conn, path, namespace, display_path(path, run.cwd))
    capture.ensure_memory_node(conn, memory_id, content.split("\n", 1)[0], namespace)
    capture.add_edge(conn, memory_id, node_id, "RELATES_TO", {"action": action})
    previous = sessions.last_file_observation(conn, run.session_id, path)
    if previous == memory_id:
        return
    if action == "edit" and previous is not None and capture.node_exists(conn, previous):
        capture.add_edge(conn, previous, memory_id, "EVOLVED_INTO", {"file": node_id})
    sessions.remember_file(conn, run.session_id, path, memory_id)


# ---- Stop, PreCompact, SessionEnd --------------------------------------------------------------


def checkpoint(run: HookRun, *, end: bool, extra: dict[str, Any] | None = None) -> None:
    """Store (or refresh) the session summary; optionally end the session."""
    from memlode.hooks.summary import SUMMARY_TAG, build_summary

    last = run.text("last_assistant_message", 20_000).strip()  # scrubbed where it is stored
    with run.write() as conn:
        changes = run.session_metadata()
        if extra:
            changes.update(extra)
        if last:
            changes["last_assistant_message"] = last[:600]
        sessions.start_session(conn, run.session_id, run.namespace, run.label, changes)
        meta = sessions.session_metadata(conn, run.session_id) or {}
        summary = build_summary(
            sessions.session_memories(conn, run.session_id),
            namespace=run.namespace,
            started_at=sessions.session_started_at(conn, run.session_id),
            cwd=str(meta.get("cwd") or run.cwd),
            last_message=str(meta.get("last_assistant_message") or ""),
        )
        if summary:
            _store_summary(conn, run, summary, meta, SUMMARY_TAG)
        if end:
            sessions.end_session(conn, run.session_id, summary or None)
        elif summary:
            sessions.set_session_summary(conn, run.session_id, summary)


def _store_summary(
    conn: sqlite3.Connection, run: HookRun, summary: str, meta: dict[str, Any], tag: str
) -> None:
    from memlode.textutil import content_hash

    metadata = run.base_metadata()
    metadata["kind"] = "session-summary"
    existing = meta.get("summary_memory_id")
    stored = capture.stored_hash(conn, existing) if isinstance(existing, str) else None
    if isinstance(existing, str) and stored is not None:
        digest = content_hash(summary)
        if stored != digest and capture.find_by_hash(conn, run.namespace, SOURCE, digest) is None:
            capture.update_memory_content(conn, existing, summary, metadata)
        return
    memory_id, _ = capture.insert_memory(
        conn,
        content=summary,
        memory_type="insight",
        importance=SUMMARY_IMPORTANCE,
        tags=[tag, f"session:{run.session_id}"],
        metadata=metadata,
        namespace=run.namespace,
        source=SOURCE,
        session_id=run.session_id,
    )
    sessions.update_session_metadata(conn, run.session_id, {"summary_memory_id": memory_id})


def ingest_transcript_detached(run: HookRun) -> None:
    """Ingest the session's transcript in a detached process (``memlode ingest transcript``).

    Ingest is incremental (only the new tail is parsed), but it imports the engine and may meet
    a large file, so it never runs inside the hook: the hook starts it and returns at once.
    """
    # import-light: the readers' tables
    from memlode.sources.conversations import DATABASES, READERS, session_database

    if not run.settings.ingest_transcripts:
        return
    if run.client in DATABASES:
        # OpenCode: no file per session; its database, where OpenCode's process (whose
        # environment the hook inherits) keeps it, and the session's id
        path = session_database(run.client, os.environ) or ""
        session = run.text("session_id", 200).strip()
        target = ["--session", session] if session else []
    elif run.client in READERS:
        path = run.text("transcript_path", 4096)
        target = []
    else:
        return  # a client whose conversations memlode cannot read
    if not path or not os.path.isfile(path) or (run.client in DATABASES and not target):
        return
    env = dict(os.environ)
    env.setdefault("MEMLODE_HOME", run.settings.home)
    env.setdefault("MEMLODE_DB", run.settings.db_path)
    # posix_spawn, not subprocess: no module to import on the hook's hot path; a new session so
    # the ingest outlives the hook (and the assistant's process group). Its error, if any, goes
    # to the hook log (which `doctor` shows) as a line like the hooks' own
    # (``memlode.hooks.detached``), and what only reaches its standard error goes there too: a
    # silent failure once left a session's later turns unstored for good.
    from memlode.hooks._log import keep_bounded

    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    log = run.settings.log_path
    append = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    logged = [*quiet[:2], (os.POSIX_SPAWN_OPEN, 2, log, append, 0o600)]
    argv = [sys.executable, "-m", "memlode.hooks.detached", log, path, *target]
    try:
        os.makedirs(os.path.dirname(log), mode=0o700, exist_ok=True)  # the ingest's home too
        keep_bounded(log)
        os.posix_spawn(sys.executable, argv, env, file_actions=logged, setsid=True)
    except OSError:  # no hook log to write to: the ingest still runs
        os.posix_spawn(sys.executable, argv, env, file_actions=quiet, setsid=True)


def stop(run: HookRun) -> str | None:
    if run.payload.get("stop_hook_active") is True:
        return None  # Claude is already continuing because of a Stop hook: do not loop
    if run.settings.capture:
        from memlode.hooks.extract import extract_turn_report

        report = extract_turn_report(run.payload.get("last_assistant_message"))
        if report is not None:
            _store_observations(run, report)
    checkpoint(run, end=True)
    ingest_transcript_detached(run)
    return None


def subagent_stop(run: HookRun) -> str | None:
    """A subagent finished: its report to the main agent is stored as an insight."""
    if not run.settings.capture or run.payload.get("stop_hook_active") is True:
        return None
    if not run.text("agent_type", 200).strip():
        # Claude Code runs /compact as a forked agent with no type: its "report" is the
        # compaction summary, which the transcript ingest stores as the session's summary
        return None
    from memlode.hooks.extract import extract_subagent_report

    parts = extract_subagent_report(
        run.text("agent_type", 200), run.payload.get("last_assistant_message")
    )
    _store_observations(run, *parts)
    return None


def post_compact(run: HookRun) -> str | None:
    """A compaction just wrote its summary into the transcript: ingest it now (the summary is
    the session's densest knowledge; the next Stop may be far off, or never come)."""
    ingest_transcript_detached(run)
    return None


def pre_compact(run: HookRun) -> str | None:
    extra: dict[str, Any] = {"last_compaction": fastpath.now_ts()}
    trigger = run.text("trigger", 40)
    if trigger:
        extra["compaction_trigger"] = trigger
    checkpoint(run, end=False, extra=extra)
    return None


def session_end(run: HookRun) -> str | None:
    if sessions.session_metadata(run.conn, run.session_id) is None:
        # no session to end: a command that starts none fired it (`claude mcp list`)
        return None
    reason = run.text("reason", 60)
    checkpoint(run, end=True, extra={"end_reason": reason} if reason else None)
    ingest_transcript_detached(run)
    return None
