"""``memlode eval``: retrieval benchmarks run through the engine a user gets."""

from __future__ import annotations

from pathlib import Path

import click

from memlode.cli.common import (
    echo_json,
    json_option,
    settings_from,
    sqlite_only,
    stop_on_interrupt,
)
from memlode.cli.eval_updates_cmd import updates
from memlode.cli.progress import step_lines
from memlode.embed import PROVIDERS


@click.group(name="eval")
def eval_() -> None:
    """Measure retrieval quality on public benchmarks."""


eval_.add_command(updates)  # memlode eval updates: supersession (cli/eval_updates_cmd.py)


@eval_.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--questions",
    "questions_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help='Ask these questions instead: a JSON list of {"sample_id", "query", "evidence",'
    ' "category"} about the same conversations.',
)
@click.option(
    "--limit-conversations",
    type=click.IntRange(min=1),
    default=None,
    help="Use only the first N conversations (quick runs).",
)
@click.option(
    "--k",
    "k",
    type=click.IntRange(25, 1000),
    default=25,
    show_default=True,
    help="Ranking depth: memories retrieved per question (at least 25).",
)
@click.option(
    "--embed-provider",
    type=click.Choice(PROVIDERS),
    default=None,
    help="Override the embedding provider for this run.",
)
@click.option(
    "--consolidate",
    is_flag=True,
    help="Consolidate each conversation's store (memlode consolidate) before its questions.",
)
@click.option(
    "--progress",
    is_flag=True,
    help="Report each conversation on stderr (on a terminal this is the default without --json).",
)
@json_option
@click.pass_context
def locomo(
    ctx: click.Context,
    path: Path,
    questions_path: Path | None,
    limit_conversations: int | None,
    k: int,
    embed_provider: str | None,
    consolidate: bool,
    progress: bool,
    as_json: bool,
) -> None:
    """Run the LoCoMo benchmark file PATH (locomo10.json) and report retrieval quality.

    Each conversation is stored in a fresh temporary database, one memory per turn (with
    --db postgresql://..., a schema of its own on that server, dropped afterwards); every
    question with evidence is asked through the normal search. Reports turn-level evidence
    recall@5/10/25, session-level recall@5/10, MRR and nDCG@10, per category and overall.
    """
    from memlode.evaluation import format_report, load_locomo, load_questions, run_locomo

    settings = settings_from(ctx, embed_provider=embed_provider)
    # Interrupted or terminated: the temporary stores (a schema on a server) are removed.
    stop_on_interrupt()
    conversations, questions = load_locomo(path)
    if questions_path is not None:
        questions = load_questions(questions_path)
        known = {c.sample_id for c in conversations}
        strangers = sorted({q.sample_id for q in questions} - known)
        if strangers:
            raise click.BadParameter(
                f"no conversation {', '.join(strangers)} in {path}", param_hint="--questions"
            )

    if limit_conversations is not None:
        conversations = conversations[:limit_conversations]

    report = run_locomo(
        conversations,
        questions,
        settings,
        k=k,
        consolidate=consolidate,
        progress=step_lines(progress, quiet=as_json),
    )
    if as_json:
        echo_json(report)
    else:
        click.echo(format_report(report))


@sqlite_only(
    "does not work on a PostgreSQL store (the replay's hooks need a SQLite one); point --db /"
    " MEMLODE_DB at a SQLite file for it"
)
@eval_.command()
@click.argument(
    "questions",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
@click.option(
    "--data",
    "data_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Folder the session paths are relative to [default: the question file's own 'data',"
    " else ../shared/data/transcripts/spotter].",
)
@click.option(
    "--only", multiple=True, help="Replay only sessions whose file name contains this (repeatable)."
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Work in this folder (projects, memlode home, transcripts) and keep it.",
)
@click.option(
    "--embed-provider",
    type=click.Choice(PROVIDERS),
    default=None,
    help="Embedding provider for the replay's store.",
)
@click.option(
    "--consolidate",
    is_flag=True,
    help="Consolidate the store overnight, before the next-day prompts (memlode consolidate).",
)
@click.option(
    "--progress",
    is_flag=True,
    help="Report each session on stderr (on a terminal this is the default without --json).",
)
@json_option
@click.pass_context
def replay(
    ctx: click.Context,
    questions: tuple[Path, ...],
    data_dir: Path | None,
    only: tuple[str, ...],
    keep: Path | None,
    embed_provider: str | None,
    consolidate: bool,
    progress: bool,
    as_json: bool,
) -> None:
    """Replay real Claude Code sessions through the installed hooks, then ask next-day prompts.

    QUESTIONS is one or more JSON files of sessions (transcripts under --data), next-day prompts
    with the phrases an answer must contain, end states, and control prompts
    (bench/replay_prompts.json, bench/replay_untuned.json); several files replay into one store
    and are reported set by set.
    Reports prompts answered by the injection, silent controls, injected size, whether
    SessionStart states each session's end state, echoes, files left in the project and hook
    wall times.
    """
    from memlode.evaluation.replay import format_replay, run_replay
    from memlode.evaluation.replay_spec import load_replay_specs

    settings_from(ctx)  # refuses a PostgreSQL store (sqlite_only)
    spec = load_replay_specs(list(questions), data_dir, list(only) or None)
    extra = {"MEMLODE_EMBED_PROVIDER": embed_provider} if embed_provider else None
    report = run_replay(
        spec,
        keep=keep,
        env_extra=extra,
        progress=step_lines(progress, quiet=as_json),
        consolidate=consolidate,
    )
    if as_json:
        echo_json(report)
    else:
        click.echo(format_replay(report))
