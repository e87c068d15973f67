"""One function per Claude Code hook event. Each gets a ``HookRun`` and returns the text to
print (only SessionStart and UserPromptSubmit ever return any).

- SessionStart: starts or resumes the session (transcript path, model and cwd go into its
  metadata); prints the project's context block.
- UserPromptSubmit: stores the prompt as a Context memory (importance 0.3); prints the recalled
  memories that pass the relevance gate, if any.
- PostToolUse: one observation per tool call, file nodes, RELATES_TO and EVOLVED_INTO edges.
- PostToolUseFailure: one ``failure`` observation (what was tried, the error's first lines).
- Stop: stores the session summary (an Insight), then ends the session.
- PreCompact: stores the session summary (a checkpoint).
- SessionEnd: stores the session summary, then ends the session.

Transcripts are not ingested here (too slow for a hook); the path is kept in the session's
metadata (``transcript_path``) for a long-lived process to ingest.
"""

from __future__ import annotations

import os
import sys

from memlode.hooks import _store as store
from memlode.redact import redact, redact_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from memlode.hooks._settings import HookSettings
    from memlode.hooks.extract import Observation

__all__ = ["HANDLERS", "SESSION_SOURCE", "SOURCE", "HookRun"]

SOURCE = "hook"  # memories.source of everything the hooks capture
SESSION_SOURCE = "claude-code"  # sessions.source
PROMPT_IMPORTANCE = 0.3
# What the user told the assistant to do ("start phoenix in the background", "new beads were
# added, tackle them") is knowledge a later session can use; a question is not (its answer
# is). Instructions are tagged INSTRUCTION_TAG and recalled; questions keep the prompt tag,
# which recall leaves out. Below INSTRUCTION_MIN_WORDS content words ("continue", "ok do it")
# an instruction says nothing on its own and is stored as a prompt.
INSTRUCTION_TAG = "instruction"
INSTRUCTION_IMPORTANCE = 0.4
INSTRUCTION_MIN_WORDS = 3
SUMMARY_IMPORTANCE = 0.6
MAX_PROMPT_CHARS = 4000
MAX_SEEN = 400  # ids of deduplicated observations remembered per session
MAX_FILES = 300  # last observation per file remembered per session (for EVOLVED_INTO)


class HookRun:
    """One hook invocation: its settings, payload and (lazily) the database."""

    def __init__(self, event: str, payload: dict[str, Any], settings: HookSettings) -> None:
        self.event = event
        self.payload = payload
        self.settings = settings
        self._conn: sqlite3.Connection | None = None
        self._namespace: str | None = None

    def text(self, key: str, limit: int = 100_000) -> str:
        value = self.payload.get(key)
        return value[:limit] if isinstance(value, str) else ""

    @property
    def session_id(self) -> str:
        return self.text("session_id", 200).strip() or "unknown-session"

    @property
    def cwd(self) -> str:
        cwd = self.text("cwd", 4096) or os.environ.get("CLAUDE_PROJECT_DIR", "")
        if not cwd or not os.path.isabs(cwd):
            try:
                cwd = os.getcwd()
            except OSError:
                cwd = ""
        return cwd

    @property
    def namespace(self) -> str:
        if self._namespace is None:
            if self.settings.namespace is not None:
                self._namespace = self.settings.namespace
            else:
                from memlode.project import detect_namespace  # import-light (L0)

                self._namespace = detect_namespace(self.cwd) if self.cwd else ""
        return self._namespace

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = store.open_db(self.settings.db_path)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def base_metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "hook": self.payload.get("hook_event_name") or self.event,
            "source": SESSION_SOURCE,
            "session_id": self.session_id,
        }
        for key in ("tool_use_id", "prompt_id", "agent_id"):
            value = self.text(key, 200)
            if value:
                meta[key] = value
        return meta

    def session_metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        for key in ("transcript_path", "cwd", "model", "permission_mode"):
            value = self.text(key, 4096)
            if value:
                meta[key] = value
        return meta


# ---- SessionStart ------------------------------------------------------------------------------


def session_start(run: HookRun) -> str | None:
    meta = run.session_metadata()
    source = run.text("source", 40)
    if source:
        meta["start_source"] = source
    with store.write(run.conn) as conn:
        store.start_session(conn, run.session_id, run.namespace, SESSION_SOURCE, meta)
    if run.settings.resident_autostart:  # the store's resident, unless one runs (memlode.resident)
        from memlode.hooks._resident import ensure_running

        ensure_running(run.settings.home, run.settings.db_path)
    if not run.settings.inject:
        return None
    from memlode.hooks.context import hook_output, session_context

    budget = run.settings.budget_chars(run.settings.session_budget_tokens)
    text = session_context(run.conn, run.namespace, run.session_id, budget)
    return hook_output("SessionStart", text) if text else None


# ---- UserPromptSubmit --------------------------------------------------------------------------


def user_prompt(run: HookRun) -> str | None:
    prompt = run.text("prompt", 200_000)
    output: str | None = None
    found_ids: list[str] = []
    recall_path = ""  # who ranked: "resident" (the engine) or "lean" (the hook's BM25)
    if run.settings.inject and prompt.strip() and run.settings.prompt_max_memories > 0:
        from memlode.hooks import _recall, _resident
        from memlode.hooks.context import hook_output, prompt_context

        # The engine's ranking from the store's resident; the lean BM25 when it cannot answer
        # in time (and then it is started again if it is gone).
        limit = run.settings.prompt_max_memories
        hits = _resident.recall(
            run.settings.home,
            run.settings.db_path,
            prompt,
            run.namespace,
            run.session_id,
            limit * 3,
            run.settings.resident_timeout_ms,
        )
        if hits is not None:
            recall_path = "resident"
            found = _resident.recalled(run.conn, hits, prompt, limit, run.session_id)
        else:
            recall_path = "lean"
            found = _recall.recall(run.conn, prompt, run.namespace, run.session_id, limit=limit)
            if run.settings.resident_autostart:
                _resident.ensure_running(
                    run.settings.home, run.settings.db_path, backoff=_resident.PROMPT_START_BACKOFF
                )
        budget = run.settings.budget_chars(run.settings.prompt_budget_tokens)
        text = prompt_context(found, budget)
        if text:
            output = hook_output("UserPromptSubmit", text)
            found_ids = [f.id for f in found]
    store_prompt = run.settings.capture and run.settings.capture_prompts and prompt.strip()
    if store_prompt or found_ids:
        with store.write(run.conn) as conn:
            store.start_session(conn, run.session_id, run.namespace, SESSION_SOURCE)
            if store_prompt:
                content = redact(prompt[:MAX_PROMPT_CHARS]).strip()
                metadata = run.base_metadata()
                if recall_path:  # measured by `memlode eval replay`: how often the lean path ran
                    metadata["recall"] = recall_path
                    metadata["injected"] = len(found_ids)
                if content:
                    told = _is_instruction(content)
                    memory_id, created = store.insert_memory(
                        conn,
                        content=content,
                        memory_type="context",
                        importance=INSTRUCTION_IMPORTANCE if told else PROMPT_IMPORTANCE,
                        tags=[INSTRUCTION_TAG if told else "prompt"],
                        metadata=metadata,
                        namespace=run.namespace,
                        source=SOURCE,
                        session_id=run.session_id,
                    )
                    if not created:
                        _remember_seen(conn, run.session_id, memory_id)
            if found_ids:
                now = store.now_ts()
                conn.executemany(
                    "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ?"
                    " WHERE id = ?",
                    [(now, i) for i in found_ids],
                )
    return output


_QUESTION_WORDS = frozenset(
    """what why how when where which who whom whose is are was were am do does did can could
    should would will shall have has had may might must any anything""".split()
)


def _is_instruction(prompt: str) -> bool:
    """A prompt that tells rather than asks: not ending in "?", not opening with a question
    word, and holding at least INSTRUCTION_MIN_WORDS content words."""
    from memlode.hooks._recall import _gate_terms

    text = prompt.strip()
    first = text.split(None, 1)[0].lower().strip(",.!:;\"'") if text else ""
    if not text or text.endswith("?") or first in _QUESTION_WORDS:
        return False
    return len(_gate_terms(text)) >= INSTRUCTION_MIN_WORDS


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
        _store_observation(run, obs)
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
        _store_observation(run, obs)
    return None


def _store_observation(run: HookRun, obs: Observation) -> None:
    content = redact(obs.content).strip()
    if not content:
        return None
    metadata = run.base_metadata()
    redacted_meta = redact_value(obs.metadata)
    if isinstance(redacted_meta, dict):
        metadata.update(redacted_meta)
    namespace = run.namespace
    with store.write(run.conn) as conn:
        store.start_session(conn, run.session_id, namespace, SESSION_SOURCE)
        memory_id, created = store.insert_memory(
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
        session_meta = store.session_metadata(conn, run.session_id) or {}
        changes: dict[str, Any] = {}
        if not created:
            seen = _seen_update(conn, session_meta, run.session_id, memory_id)
            if seen is not None:
                changes["seen"] = seen
        if obs.file_path:
            files = _link_file(conn, run, memory_id, content, obs, session_meta)
            if files is not None:
                changes["files"] = files
        if changes:
            store.update_session_metadata(conn, run.session_id, changes)


def _seen_update(
    conn: sqlite3.Connection, session_meta: dict[str, Any], session_id: str, memory_id: str
) -> list[str] | None:
    """The session's new ``seen`` list if ``memory_id`` belongs to another session."""
    row = conn.execute("SELECT session_id FROM memories WHERE id = ?", (memory_id,)).fetchone()
    if row is None or row[0] == session_id:
        return None
    seen = session_meta.get("seen")
    seen = [s for s in seen if isinstance(s, str)] if isinstance(seen, list) else []
    if memory_id in seen:
        return None
    return [*seen, memory_id][-MAX_SEEN:]


def _remember_seen(conn: sqlite3.Connection, session_id: str, memory_id: str) -> None:
    meta = store.session_metadata(conn, session_id) or {}
    seen = _seen_update(conn, meta, session_id, memory_id)
    if seen is not None:
        store.update_session_metadata(conn, session_id, {"seen": seen})


def _link_file(
    conn: sqlite3.Connection,
    run: HookRun,
    memory_id: str,
    content: str,
    obs: Observation,
    session_meta: dict[str, Any],
) -> dict[str, str] | None:
    """File node + memory RELATES_TO file; an edit EVOLVED_INTO from the last observation of the
    same file in this session (a Read, or an earlier edit). Returns the session's new ``files``
    map (path -> last observation) when it changed."""
    from memlode.hooks.extract import display_path

    path, action = obs.file_path or "", obs.action
    namespace = run.namespace
    node_id = store.upsert_file_node(conn, path, namespace, display_path(path, run.cwd))
    store.ensure_memory_node(conn, memory_id, content.split("\n", 1)[0], namespace)
    store.add_edge(conn, memory_id, node_id, "RELATES_TO", {"action": action})
    known = session_meta.get("files")
    files: dict[str, str] = (
        {k: v for k, v in known.items() if isinstance(v, str)} if isinstance(known, dict) else {}
    )
    previous = files.get(path)
    if action == "edit" and isinstance(previous, str) and previous != memory_id:
        exists = conn.execute("SELECT 1 FROM graph_nodes WHERE id = ?", (previous,)).fetchone()
        if exists:
            store.add_edge(conn, previous, memory_id, "EVOLVED_INTO", {"file": node_id})
    if previous == memory_id:
        return None
    files.pop(path, None)
    files[path] = memory_id
    return dict(list(files.items())[-MAX_FILES:])


# ---- Stop, PreCompact, SessionEnd --------------------------------------------------------------


def checkpoint(run: HookRun, *, end: bool, extra: dict[str, Any] | None = None) -> None:
    """Store (or refresh) the session summary; optionally end the session."""
    from memlode.hooks.summary import SUMMARY_TAG, build_summary, session_rows

    last = redact(run.text("last_assistant_message", 20_000)).strip()
    with store.write(run.conn) as conn:
        changes = run.session_metadata()
        if extra:
            changes.update(extra)
        if last:
            changes["last_assistant_message"] = last[:600]
        store.start_session(conn, run.session_id, run.namespace, SESSION_SOURCE, changes)
        meta = store.session_metadata(conn, run.session_id) or {}
        row = conn.execute(
            "SELECT started_at FROM sessions WHERE id = ?", (run.session_id,)
        ).fetchone()
        seen = meta.get("seen")
        rows = session_rows(conn, run.session_id, seen if isinstance(seen, list) else [])
        summary = build_summary(
            rows,
            namespace=run.namespace,
            started_at=row[0] if row else "",
            cwd=str(meta.get("cwd") or run.cwd),
            last_message=str(meta.get("last_assistant_message") or ""),
        )
        if summary:
            _store_summary(conn, run, summary, meta, SUMMARY_TAG)
        if end:
            store.end_session(conn, run.session_id, summary or None)
        elif summary:
            store.set_session_summary(conn, run.session_id, summary)


def _store_summary(
    conn: sqlite3.Connection, run: HookRun, summary: str, meta: dict[str, Any], tag: str
) -> None:
    from memlode.hooks._lean import content_hash

    metadata = run.base_metadata()
    metadata["kind"] = "session-summary"
    existing = meta.get("summary_memory_id")
    if isinstance(existing, str):
        row = conn.execute("SELECT content_hash FROM memories WHERE id = ?", (existing,)).fetchone()
        if row is not None:
            if row[0] == content_hash(summary):
                return
            clash = conn.execute(
                "SELECT id FROM memories WHERE namespace = ? AND source = ? AND content_hash = ?",
                (run.namespace, SOURCE, content_hash(summary)),
            ).fetchone()
            if clash is None:
                store.update_memory_content(conn, existing, summary, metadata)
            return
    memory_id, _ = store.insert_memory(
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
    store.update_session_metadata(conn, run.session_id, {"summary_memory_id": memory_id})


def ingest_transcript_detached(run: HookRun) -> None:
    """Ingest the session's transcript in a detached process (``memlode ingest transcript``).

    Ingest is incremental (only the new tail is parsed), but it imports the engine and may meet
    a large file, so it never runs inside the hook: the hook starts it and returns at once.
    """
    path = run.text("transcript_path", 4096)
    if not path or not run.settings.ingest_transcripts or not os.path.isfile(path):
        return
    env = dict(os.environ)
    env.setdefault("MEMLODE_HOME", run.settings.home)
    env.setdefault("MEMLODE_DB", run.settings.db_path)
    # posix_spawn, not subprocess: no module to import on the hook's hot path; a new session so
    # the ingest outlives the hook (and the assistant's process group).
    devnull = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    os.posix_spawn(
        sys.executable,
        [sys.executable, "-m", "memlode", "ingest", "transcript", path],
        env,
        file_actions=devnull,
        setsid=True,
    )


def stop(run: HookRun) -> str | None:
    if run.payload.get("stop_hook_active") is True:
        return None  # Claude is already continuing because of a Stop hook: do not loop
    checkpoint(run, end=True)
    ingest_transcript_detached(run)
    return None


def subagent_stop(run: HookRun) -> str | None:
    """A subagent finished: its report to the main agent is stored as an insight."""
    if not run.settings.capture or run.payload.get("stop_hook_active") is True:
        return None
    from memlode.hooks.extract import extract_subagent_report

    obs = extract_subagent_report(
        run.text("agent_type", 200), run.payload.get("last_assistant_message")
    )
    if obs is not None:
        _store_observation(run, obs)
    return None


def post_compact(run: HookRun) -> str | None:
    """A compaction just wrote its summary into the transcript: ingest it now (the summary is
    the session's densest knowledge; the next Stop may be far off, or never come)."""
    ingest_transcript_detached(run)
    return None


def pre_compact(run: HookRun) -> str | None:
    extra: dict[str, Any] = {"last_compaction": store.now_ts()}
    trigger = run.text("trigger", 40)
    if trigger:
        extra["compaction_trigger"] = trigger
    checkpoint(run, end=False, extra=extra)
    return None


def session_end(run: HookRun) -> str | None:
    reason = run.text("reason", 60)
    checkpoint(run, end=True, extra={"end_reason": reason} if reason else None)
    ingest_transcript_detached(run)
    return None


HANDLERS = {
    "session-start": session_start,
    "prompt": user_prompt,
    "post-tool": post_tool,
    "post-tool-failure": post_tool_failure,
    "stop": stop,
    "pre-compact": pre_compact,
    "post-compact": post_compact,
    "subagent-stop": subagent_stop,
    "session-end": session_end,
}
