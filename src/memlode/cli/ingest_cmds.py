"""``memlode ingest``: bring conversation transcripts into memory.

``ingest transcript PATH...`` reads the given conversation files (Claude Code transcripts, Codex
CLI rollouts, Gemini CLI chat files) and OpenCode databases (``opencode.db``: each session, or
those named by ``--session``); ``ingest transcripts
--project DIR`` reads every session of a project (subagent files included) from Claude Code's
projects folder. Both are incremental: a file already read is only re-read where it grew.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from memlode.cli.common import echo_json, json_option, namespace_option, open_engine
from memlode.errors import InvalidInput, NotFound

__all__ = ["ingest"]


@click.group()
def ingest() -> None:
    """Ingest external records (assistants' conversation files) as searchable memories."""


# What one ingest reads: a conversation file (no session), or one session of a database.
Target = tuple[Path, str | None]


def _run(
    ctx: click.Context,
    targets: Sequence[Path] | Sequence[Target],
    namespace: str | None,
    force: bool,
    as_json: bool,
) -> None:
    from memlode.engine.transcripts import (
        IngestReport,
        ingest_opencode_session,
        ingest_transcript,
    )

    items = [t if isinstance(t, tuple) else (t, None) for t in targets]
    reports: list[IngestReport] = []
    with (
        open_engine(ctx) as engine,
        click.progressbar(
            items,
            label="ingesting transcripts",
            file=sys.stderr,
            hidden=as_json or not sys.stderr.isatty(),  # a pipe or --json: the summary only
            show_pos=True,
            item_show_func=lambda t: (t[1] or t[0].name) if t is not None else None,
        ) as bar,
    ):
        for path, session in bar:
            if session is None:
                report = ingest_transcript(engine, path, namespace=namespace, force=force)
            else:
                report = ingest_opencode_session(
                    engine, path, session, namespace=namespace, force=force
                )
            reports.append(report)
    summary = _summary(reports)
    if as_json:
        echo_json({**summary, "files": [r.to_dict() for r in reports]})
        return
    for r in reports:
        if r.status == "unchanged":
            click.echo(f"{r.path}: unchanged")
            continue
        extra = f", {r.malformed} malformed lines skipped" if r.malformed else ""
        click.echo(
            f"{r.path}: {r.turns} turns ({r.sidechain_turns} in subagents), "
            f"+{r.units_added} new, {r.units_replaced} updated, {r.units_removed} removed; "
            f"{r.chunks_added} chunks added, {r.chunks_removed} removed "
            f"[namespace {r.namespace or '-'}]{extra}"
        )
    click.echo(
        f"{summary['files_read']} of {summary['files_total']} files read, "
        f"{summary['chunks_added']} chunks added, {summary['chunks_removed']} removed"
    )


def _summary(reports: Sequence[Any]) -> dict[str, int]:
    def total(name: str) -> int:
        return sum(int(getattr(r, name)) for r in reports)

    return {
        "files_total": len(reports),
        "files_read": sum(1 for r in reports if r.status != "unchanged"),
        "turns": total("turns"),
        "sidechain_turns": total("sidechain_turns"),
        "units_added": total("units_added"),
        "units_replaced": total("units_replaced"),
        "units_removed": total("units_removed"),
        "chunks_added": total("chunks_added"),
        "chunks_removed": total("chunks_removed"),
        "malformed_lines": total("malformed"),
    }


def _targets(raw: Sequence[str], sessions: Sequence[str]) -> list[Target]:
    """Every path must be a conversation file or an OpenCode database before anything is
    stored; a database's sessions are ``sessions``, else every session it holds. Sessions
    given with no database among the paths are refused."""
    from memlode.sources import transcript_opencode as opencode

    targets: list[Target] = []
    files: list[str] = []
    for item in raw:
        path = Path(item).expanduser()
        if item.strip() and path.is_file() and opencode.is_database(path):
            for session in sessions or opencode.list_sessions(path):
                targets.append((path, session))
        else:
            files.append(item)
    if sessions and not targets:
        raise InvalidInput(
            "--session names a session of an OpenCode database: give its opencode.db "
            "(~/.local/share/opencode/opencode.db)"
        )
    targets.extend((path, None) for path in _check_paths(files))
    return targets


def _check_paths(raw: Sequence[str]) -> list[Path]:
    """Every path must be a transcript file before anything is stored."""
    from memlode.sources.transcript_records import sniff

    paths: list[Path] = []
    for item in raw:
        if not item.strip():
            raise InvalidInput("a transcript path is empty; give the path of a .jsonl file")
        path = Path(item).expanduser()
        if not path.exists():
            raise NotFound(f"no transcript at {item}; give the path of a .jsonl file")
        if not path.is_file():
            raise InvalidInput(
                f"{item} is not a file; give transcript .jsonl files, or use "
                "`memlode ingest transcripts --project DIR` for a whole project"
            )
        try:
            refused = sniff(path)
        except OSError as exc:
            raise InvalidInput(f"cannot read {item}: {exc.strerror}") from None
        if refused is not None:
            raise InvalidInput(
                f"{item} is not a Claude Code transcript (nor a Codex or Gemini CLI "
                f"conversation file): {refused}"
            )
        paths.append(path)
    return paths


_force_option = click.option(
    "--force", is_flag=True, help="Re-read files even if unchanged since the last run."
)


@ingest.command("transcript")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--session",
    "sessions",
    multiple=True,
    help="Of an OpenCode database (opencode.db), only this session (ses_...); repeatable.",
)
@namespace_option
@_force_option
@json_option
@click.pass_context
def transcript_cmd(
    ctx: click.Context,
    paths: tuple[str, ...],
    sessions: tuple[str, ...],
    namespace: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Ingest conversation files (.jsonl) as turns: Claude Code transcripts, Codex CLI
    rollouts, Gemini CLI chat files (told apart by their content); and OpenCode's database
    (opencode.db): every session in it, or the ones given with --session.

    The namespace defaults to the project of the transcript's working directory.
    """
    _run(ctx, _targets(paths, sessions), namespace, force, as_json)


@ingest.command("transcripts")
@click.option(
    "--project",
    "project",
    required=True,
    type=click.Path(file_okay=False),
    help="The project folder whose Claude Code sessions to ingest.",
)
@click.option(
    "--claude-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Claude Code's projects folder (default: ~/.claude/projects).",
)
@namespace_option
@_force_option
@json_option
@click.pass_context
def transcripts_cmd(
    ctx: click.Context,
    project: str,
    claude_dir: str | None,
    namespace: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Ingest every session of a project (subagent files included)."""
    from memlode.engine.transcripts import project_transcripts

    _run(ctx, project_transcripts(project, claude_dir), namespace, force, as_json)
