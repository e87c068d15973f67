"""Conversation memory: ingest the assistants' conversation files into the store, incrementally.

Each file (a Claude Code transcript, a Codex CLI rollout or a Gemini CLI chat file: the writer
is told from its content, ``memlode.sources.conversations``), or each session of OpenCode's
database (:func:`ingest_opencode_session`), is parsed into the same threads of
events (:mod:`memlode.sources.transcript` and its siblings), grouped into turns and
chunks (:mod:`memlode.sources.turns`), and reconciled with what an earlier run stored for the
same file. A *unit* (one turn of one thread, or one summary) is stored with a fingerprint of its
chunks; a later run leaves unchanged units alone, replaces changed ones (the provisional last
turn, once its next prompt arrives), adds new ones and removes units that are gone (a branch
abandoned by a rewind). One file's step is one write transaction, so a crash or a concurrent
ingest of the same file never leaves half a turn or a duplicate. A file whose size and mtime
have not moved since the last run costs one ``stat`` and one row lookup.

Chunk memories whose text survives a replacement keep their id (and so their embedding).
Embeddings for new rows are filled later by a long-lived process: this module imports nothing
heavy, so the Stop hook can call :func:`ingest_transcript` directly.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memlode.engine.transcript_build import (
    QUEUED_THREAD,
    SOURCE,
    SUMMARY_THREAD,
    build_units,
    client_label,
    timestamp,
)
from memlode.engine.transcript_units import IngestReport, Unit, reconcile
from memlode.errors import InvalidInput, MemlodeError, NotFound
from memlode.project import detect_namespace, find_project_root, make_key
from memlode.redact import redact
from memlode.sources.conversations import read_conversation
from memlode.sources.transcript import MAIN_THREAD, EventKind, Transcript
from memlode.sources.turns import build_turns, is_reply, namespace_hint, summaries
from memlode.storage import sessions as session_repo
from memlode.storage import transcript_store
from memlode.types import Session, format_ts, parse_ts, utcnow

if TYPE_CHECKING:
    from memlode.engine import Engine

log = logging.getLogger(__name__)

__all__ = [
    "SOURCE",
    "IngestReport",
    "claude_projects_dir",
    "encode_project_dir",
    "ingest_opencode_session",
    "ingest_transcript",
    "opencode_key",
    "project_transcripts",
]

_SESSION_SUMMARY_CHARS = 4000
# Between an OpenCode database's path and a session id in the session's ingest key.
OPENCODE_SESSION_MARK = "#"
_ENCODE = re.compile(r"[^A-Za-z0-9]")


# ---- locating transcripts -------------------------------------------------------------------


def encode_project_dir(path: Path | str) -> str:
    """Claude Code's folder name for a cwd: every char outside [A-Za-z0-9] becomes '-'."""
    return _ENCODE.sub("-", str(path))


def claude_projects_dir() -> Path:
    """``$CLAUDE_CONFIG_DIR/projects`` when set, else ``~/.claude/projects``."""
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    base = Path(config).expanduser() if config else Path.home() / ".claude"
    return base / "projects"


def project_transcripts(project: Path | str, claude_dir: Path | str | None = None) -> list[Path]:
    """Every session of a project, subagent files included, oldest first."""
    root = Path(claude_dir).expanduser() if claude_dir else claude_projects_dir()
    folder = root / encode_project_dir(Path(project).expanduser().resolve())
    if not folder.is_dir():
        raise NotFound(
            f"no Claude Code transcripts for {project} (looked in {folder}); "
            "pass --claude-dir if they live elsewhere"
        )
    found = [p for p in folder.glob("*.jsonl") if p.is_file()]
    found += [p for p in folder.glob("*/subagents/*.jsonl") if p.is_file()]
    return sorted(found, key=lambda p: (p.stat().st_mtime_ns, str(p)))


# ---- ingest ---------------------------------------------------------------------------------


def _override(engine: Engine, namespace: str | None) -> str | None:
    if namespace is None:
        return None
    ns = engine.resolve_namespace(namespace)
    if ns is None:
        raise InvalidInput("ingest into one namespace, not '*'")
    return ns


def _namespace(transcript: Transcript, engine: Engine, override: str | None) -> str:
    if override is not None:
        return override
    cwd = transcript.cwd
    if not cwd:
        return engine.namespace
    try:
        exists = Path(cwd).is_dir()
    except OSError:
        exists = False
    if exists:
        return detect_namespace(cwd)
    # A folder that is not here (another machine's, or deleted): keyed by its name and path.
    name = namespace_hint(cwd)
    return make_key(name, cwd) if name else ""


def _stat(path: Path | str) -> tuple[Path, os.stat_result]:
    file = Path(path).expanduser()
    try:
        file = file.resolve()
        stat = file.stat()
    except FileNotFoundError:
        raise NotFound(f"no transcript at {path}; give the path of a .jsonl file") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    if not file.is_file():
        raise InvalidInput(
            f"{path} is not a file; give a transcript .jsonl file "
            "(or use `memlode ingest transcripts --project DIR` for a whole project)"
        )
    return file, stat


def _read_tail(
    engine: Engine, file: Path, stat: os.stat_result, row: sqlite3.Row
) -> Transcript | None:
    """The file from its provisional turn on, when that alone is enough to update the store.

    Anything a tail cannot show whole sends the caller back to a full read: a file that
    shrank, a provisional turn that moved or was edited, a fork or compaction (their parents
    lie before the tail), a new summary, more lines of a subagent already stored, or a
    provisional turn that is a short reply (it shows what it answered, in the turn before).
    """
    offset, line, uuid = row["provisional_offset"], row["provisional_line"], row["provisional_uuid"]
    if offset is None or line is None or not uuid or stat.st_size < row["file_size"]:
        return None
    tail = read_conversation(file, start=offset, first_line=line)
    turns = build_turns(tail.main)
    if not turns or turns[0].user_uuid != uuid or turns[0].offset != offset:
        return None
    if is_reply(turns[0].user_text):  # it shows the end of the turn before, which the tail lacks
        return None
    if tail.abandoned or tail.external_parents > 1 or tail.titles or tail.compact_boundaries:
        return None
    if any(ev.kind is EventKind.COMPACT_SUMMARY for ev in tail.main.events):
        return None
    stored_threads = transcript_store.stored_threads(engine.conn, str(file))
    if any(t.key in stored_threads for t in tail.sidechains):
        return None
    return tail


def ingest_transcript(
    engine: Engine, path: Path | str, *, namespace: str | None = None, force: bool = False
) -> IngestReport:
    """Bring the store up to date with one transcript file (the Stop hook's entry point).

    Unchanged since the last run (same size and mtime): no work. Grown by appends: only the
    tail from the provisional turn on is read and its units reconciled. Otherwise (first read,
    rewrite, rewind, compaction, ``force``) the whole file is read and every unit reconciled.
    Either way one file is one transaction, and a unit whose chunks did not change is left
    alone.
    """
    file, stat = _stat(path)
    key = str(file)
    row = transcript_store.file_state(engine.conn, key)
    override = _override(engine, namespace)
    if row is not None and not force and override in (None, row["namespace"]):
        if row["file_size"] == stat.st_size and row["mtime_ns"] == stat.st_mtime_ns:
            return _unchanged(key, row)
        try:
            tail = _read_tail(engine, file, stat, row)
        except OSError as exc:
            raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
        done = _ingest_tail(engine, file, stat, row, tail) if tail is not None else None
        if done is not None:
            return done
    try:
        transcript = read_conversation(file)
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    recognised = transcript.lines - transcript.malformed
    if transcript.lines and recognised == 0:
        raise InvalidInput(
            f"{path} is not a Claude Code transcript (nor a Codex or Gemini CLI conversation "
            f"file): none of its {transcript.lines} lines is a JSON record with a type"
        )
    ns = _namespace(transcript, engine, override)
    report = IngestReport(
        path=key,
        status="ingested" if transcript.lines else "empty",
        session_id=transcript.session_id,
        namespace=ns,
        lines=transcript.lines,
        malformed=transcript.malformed,
        partial_tail=transcript.partial_tail,
        read_offset=transcript.consumed_bytes,
    )
    units = build_units(engine, transcript, file, ns, report)
    version = (stat.st_size, stat.st_mtime_ns)
    _store(engine, key, version, transcript, units, report, prefix_malformed=0, scope=None)
    return report


def _unchanged(key: str, row: sqlite3.Row) -> IngestReport:
    return IngestReport(
        path=key,
        status="unchanged",
        session_id=row["session_id"],
        namespace=row["namespace"],
        lines=row["read_lines"],
        malformed=row["malformed_lines"],
        read_offset=row["read_offset"],
        turns=row["turns"],
        sidechain_turns=row["sidechain_turns"],
    )


def opencode_key(db: Path | str, session_id: str) -> str:
    """The name one OpenCode session's ingest state is stored under (and its turns'
    ``transcript``): ``<database path>#<session id>``."""
    return f"{Path(db).expanduser().resolve()}{OPENCODE_SESSION_MARK}{session_id}"


def ingest_opencode_session(
    engine: Engine,
    db: Path | str,
    session_id: str,
    *,
    namespace: str | None = None,
    force: bool = False,
) -> IngestReport:
    """Bring the store up to date with one session of OpenCode's database (``opencode.db``).

    A database is no append-only file: the session's rows are counted and their latest
    ``time_updated`` taken (``transcript_opencode.session_version``, kept where a file's size
    and mtime are). Unchanged: no work. Otherwise the session is read whole (one indexed
    query) and its units reconciled as a file's are: unchanged turns are left alone, the
    provisional last turn is replaced once it grew, and turns an undo removed are dropped.
    """
    from memlode.sources import transcript_opencode as opencode

    file = Path(db).expanduser().resolve()
    if not file.is_file():
        raise NotFound(f"no OpenCode database at {db}")
    key = opencode_key(file, session_id)
    version = opencode.session_version(file, session_id)
    row = transcript_store.file_state(engine.conn, key)
    override = _override(engine, namespace)
    stored = (version.rows, version.updated_ms)
    fresh = row is not None and (row["file_size"], row["mtime_ns"]) == stored
    if row is not None and fresh and not force and override in (None, row["namespace"]):
        return _unchanged(key, row)
    transcript = opencode.read_session(file, session_id, key=key)
    ns = _namespace(transcript, engine, override)
    report = IngestReport(
        path=key,
        status="ingested" if transcript.lines else "empty",
        session_id=session_id,
        namespace=ns,
        lines=transcript.lines,
        malformed=transcript.malformed,
    )
    units = build_units(engine, transcript, Path(key), ns, report)
    _store(engine, key, stored, transcript, units, report, prefix_malformed=0, scope=None)
    return report


def _ingest_tail(
    engine: Engine, file: Path, stat: os.stat_result, row: sqlite3.Row, tail: Transcript
) -> IngestReport | None:
    """The tail's units reconciled with the stored ones it covers; None when the whole file
    must be read after all (a session title that is new or changed)."""
    first_turn = int(row["turns"]) - 1  # the stored provisional turn is re-read
    report = IngestReport(
        path=str(file),
        status="ingested",
        session_id=row["session_id"] or tail.session_id,
        namespace=row["namespace"],
        lines=int(row["provisional_line"]) + tail.lines,
        malformed=int(row["prefix_malformed"]) + tail.malformed,
        partial_tail=tail.partial_tail,
        read_offset=tail.consumed_bytes,
        incremental=True,
    )
    units = build_units(engine, tail, file, report.namespace, report, first_turn=first_turn)
    # The only summary a tail can hold is the session's title (``_read_tail`` sends a new
    # compaction or linked title to a full read), which Claude Code writes again every few
    # turns: the one stored already stays; a new one needs its place among the summaries.
    titles = [u for u in units if u.thread == SUMMARY_THREAD]
    if titles:
        stored = {
            fingerprint
            for thread, _unit, fingerprint in transcript_store.stored_units(engine.conn, str(file))
            if thread == SUMMARY_THREAD
        }
        if any(u.fingerprint not in stored for u in titles):
            return None
        units = [u for u in units if u.thread != SUMMARY_THREAD]
        report.summaries -= len(titles)
    report.sidechain_turns += int(row["sidechain_turns"])
    new_threads = {t.key for t in tail.sidechains}
    first_line = int(row["provisional_line"])

    def scope(thread: str, unit: int) -> bool:
        # what the tail read again or anew: the main thread from the provisional turn on,
        # new subagents, and messages typed while a reply ran (keyed by their line in the file)
        return (
            (thread == MAIN_THREAD and unit >= first_turn)
            or thread in new_threads
            or (thread == QUEUED_THREAD and unit >= first_line)
        )

    _store(
        engine,
        str(file),
        (stat.st_size, stat.st_mtime_ns),
        tail,
        units,
        report,
        prefix_malformed=int(row["prefix_malformed"]),
        scope=scope,
    )
    return report


def _store(
    engine: Engine,
    key: str,
    version: tuple[int, int],
    transcript: Transcript,
    units: list[Unit],
    report: IngestReport,
    *,
    prefix_malformed: int,
    scope: Callable[[str, int], bool] | None,
) -> None:
    """One transaction: the file's row (``version``: its size and mtime, or what stands for
    them), its units reconciled, its session."""
    turns = build_turns(transcript.main)
    last = turns[-1] if turns else None
    prov_line = last.line if last is not None else None
    if prov_line is not None:
        prefix_malformed += sum(1 for n in transcript.malformed_at if n < prov_line)
    with engine.db.write() as conn:
        transcript_store.save_file_state(
            conn,
            {
                "path": key,
                "session_id": report.session_id,
                "namespace": report.namespace,
                "file_size": version[0],
                "mtime_ns": version[1],
                "read_offset": report.read_offset,
                "read_lines": report.lines,
                "malformed_lines": report.malformed,
                "provisional_offset": last.offset if last is not None else None,
                "provisional_line": prov_line,
                "provisional_uuid": last.user_uuid if last is not None else None,
                "prefix_malformed": prefix_malformed,
                "turns": report.turns,
                "sidechain_turns": report.sidechain_turns,
                "ingested_at": format_ts(utcnow()),
            },
        )
        reconcile(conn, key, units, report, scope)
        _record_session(conn, transcript, report.namespace)
    _append_compactions(engine, transcript)


def _append_compactions(engine: Engine, transcript: Transcript) -> None:
    """Append compaction summaries to MEMORY.md, only when the user asked for it.

    Off by default (``[memory_files] write_compactions``, ``MEMLODE_WRITE_COMPACTIONS``): the
    summary is already in memlode's own store, as the transcript's summary unit and the
    session's summary, and ingest writes nothing into any repository. When on, it writes only
    into the project the ingest runs in (the working directory's project root, the root
    memlode indexes as that project's memory files) and only for a transcript of that same
    project: a transcript whose ``cwd`` names another repository is never written into it.
    A summary whose text MEMORY.md already holds is not appended again. A failure here is
    logged and never fails the ingest.
    """
    if not engine.settings.write_compactions:
        return
    compactions = [s for s in summaries(transcript) if s.kind == "compaction" and s.text.strip()]
    if not compactions or not transcript.cwd:
        return
    try:
        here = find_project_root(Path.cwd())
        there = find_project_root(transcript.cwd) if Path(transcript.cwd).is_dir() else None
    except OSError:  # a working directory that was deleted, an unreadable cwd
        return
    if here is None or here == here.parent or there != here:
        log.info(
            "compaction summary of %s not written to MEMORY.md: the transcript's project (%s)"
            " is not the project this ingest runs in (%s)",
            transcript.path,
            there or transcript.cwd,
            here or "none",
        )
        return
    from memlode.engine import docs

    memory_file = here / "MEMORY.md"
    for summary in compactions:
        try:
            existing = memory_file.read_text(encoding="utf-8") if memory_file.exists() else ""
            if redact(summary.text.strip()) in existing:  # as memory_store wrote it
                continue
            when = timestamp(summary.timestamp)
            docs.append_compaction_summary(
                engine,
                summary.text,
                session_id=transcript.session_id,
                when=parse_ts(when) if when else None,
                cwd=here,
            )
        except (MemlodeError, OSError, ValueError) as exc:
            log.warning("could not append a compaction summary to %s: %s", memory_file, exc)


def _record_session(conn: sqlite3.Connection, transcript: Transcript, namespace: str) -> None:
    """The assistant's session as a ``sessions`` row (its source: the client's label, as the
    hooks record it); its compaction summary as the summary."""
    if not transcript.session_id:
        return
    started = None
    for thread in transcript.threads:
        for ev in thread.events:
            started = timestamp(ev.timestamp)
            if started:
                break
        if started:
            break
    session_repo.insert_exact(  # through the storage layer: it redacts what it stores
        conn,
        Session(
            id=transcript.session_id,
            namespace=namespace,
            source=client_label(transcript),
            started_at=started or format_ts(utcnow()),
            metadata={"transcript": transcript.path},
        ),
    )
    compactions = [s for s in summaries(transcript) if s.kind == "compaction"]
    if compactions:
        session_repo.set_summary(
            conn,
            transcript.session_id,
            compactions[-1].text,
            only_if_empty=True,
            limit=_SESSION_SUMMARY_CHARS,
        )
