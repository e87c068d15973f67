"""Commands on memory files and docs: ``docs`` (index, add, list, remove), ``memory`` (get,
search, store) and ``watch``. Each is a thin adapter over ``memlode.engine.docs``."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import click

from memlode import validate
from memlode.cli.common import (
    Count,
    echo_json,
    json_option,
    open_engine,
    read_stdin_text,
    stop_on_interrupt,
)
from memlode.textutil import one_line


def _short(text: str, width: int = 100) -> str:
    return one_line(text, width)


def _echo_report(report: dict[str, Any]) -> None:
    click.echo(
        f"{report['files']} files: {report['indexed']} indexed, {report['skipped']} unchanged, "
        f"{report['removed']} removed; chunks +{report['chunks_added']} "
        f"-{report['chunks_removed']}"
    )
    for error in report.get("errors", []):
        click.echo(f"  skipped {error['path']}: {error['error']}", err=True)


@click.group()
def docs() -> None:
    """Memory files and docs: MEMORY.md, memory/*.md, SOUL.md, USER.md and doc folders."""


@docs.command("index")
@json_option
@click.pass_context
def docs_index(ctx: click.Context, as_json: bool) -> None:
    """Index every source once (unchanged files are skipped, deleted ones dropped)."""
    from memlode.engine.docs import index_docs

    show = sys.stderr.isatty() and not as_json
    with open_engine(ctx) as engine:
        if show:
            with click.progressbar(
                length=1, label="indexing docs", file=sys.stderr, show_pos=True
            ) as bar:

                def progress(done: int, total: int, _path: str) -> None:
                    bar.length = max(total, 1)
                    bar.update(1)

                report = index_docs(engine, progress=progress)
        else:
            report = index_docs(engine)
    if as_json:
        echo_json(report)
        return
    if report["docs_only"]:
        click.echo("docs-only mode: no project here; indexed the global files and folders")
    _echo_report(report)


@docs.command("add")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--global", "global_", is_flag=True, help="Add it for every project.")
@json_option
@click.pass_context
def docs_add(ctx: click.Context, folder: str, global_: bool, as_json: bool) -> None:
    """Add FOLDER of markdown docs to the current project (or --global) and index it."""
    from memlode.engine.docs import add_folder

    with open_engine(ctx) as engine:
        result = add_folder(engine, folder, global_=global_)
    if as_json:
        echo_json(result)
        return
    state = "added" if result["added"] else "already added"
    click.echo(f"{state}: {result['path']} (namespace {result['namespace']})")
    _echo_report(result["index"])


@docs.command("list")
@json_option
@click.pass_context
def docs_list(ctx: click.Context, as_json: bool) -> None:
    """Show the sources indexed from here, with their file and chunk counts."""
    from memlode.engine.docs import docs_status

    with open_engine(ctx) as engine:
        status = docs_status(engine)
    if as_json:
        echo_json(status)
        return
    if status["docs_only"]:
        click.echo("docs-only mode: no project here; global files and folders only")
    for root in status["roots"]:
        mark = "" if root["exists"] else "  (missing)"
        click.echo(
            f"{root['scope']:<8} {root['namespace']:<16} {root['files']:>5} files "
            f"{root['chunks']:>6} chunks  {root['path']}{mark}"
        )


@docs.command("remove")
@click.argument("folder", type=click.Path(file_okay=False))
@json_option
@click.pass_context
def docs_remove(ctx: click.Context, folder: str, as_json: bool) -> None:
    """Forget an added FOLDER and drop its chunks (the files are not touched)."""
    from memlode.engine.docs import remove_folder

    with open_engine(ctx) as engine:
        result = remove_folder(engine, folder)
    if as_json:
        echo_json(result)
        return
    click.echo(
        f"removed {result['path']}: {result['files_removed']} files, "
        f"{result['chunks_removed']} chunks dropped"
    )


@click.group()
def memory() -> None:
    """Read, search and write memory files (MEMORY.md, memory/<name>.md, SOUL.md, USER.md)."""


@memory.command("get")
@click.argument("path")
@json_option
@click.pass_context
def memory_get_cmd(ctx: click.Context, path: str, as_json: bool) -> None:
    """Print memory file PATH: MEMORY.md, memory/<name>.md, SOUL.md, USER.md, global/..."""
    from memlode.engine.docs import memory_get

    with open_engine(ctx) as engine:
        result = memory_get(engine, path)
    if as_json:
        echo_json(result)
    else:
        click.echo(result["content"], nl=not result["content"].endswith("\n"))


@memory.command("search")
@click.argument("query")
@click.option(
    "-k", "--k", "k", default=5, show_default=True, type=Count(1, 1000), help="How many results."
)
@json_option
@click.pass_context
def memory_search_cmd(ctx: click.Context, query: str, k: int, as_json: bool) -> None:
    """Search memory files and docs only, best first."""
    from memlode.engine.docs import memory_search

    validate.utf8_text(query, "the query")
    with open_engine(ctx) as engine:
        result = memory_search(engine, query, k)
    if as_json:
        echo_json(result)
        return
    if not result["results"]:
        click.echo("no matches")
    for item in result["results"]:
        where = item["ref"] or item["file"] or item["path"]
        lines = item.get("lines") or ["?", "?"]
        click.echo(f"{where}:{lines[0]}-{lines[1]}  score={item['score']:.3f}")
        body = item["text"].split("\n\n", 1)[-1]
        click.echo(f"    {_short(body)}")


@memory.command("store")
@click.argument("name")
@click.argument("text")
@click.option("--replace", is_flag=True, help="Replace the file instead of appending to it.")
@click.option("--global", "global_", is_flag=True, help="Write into the global memory files.")
@json_option
@click.pass_context
def memory_store_cmd(
    ctx: click.Context, name: str, text: str, replace: bool, global_: bool, as_json: bool
) -> None:
    """Append TEXT to memory/NAME.md (or MEMORY.md, SOUL.md, USER.md) and index it.

    '-' reads TEXT from stdin.
    """
    from memlode.engine.docs import memory_store

    if text == "-":
        text = read_stdin_text("the text on standard input")
    with open_engine(ctx) as engine:
        result = memory_store(
            engine,
            name,
            text,
            mode="write" if replace else "append",
            scope="global" if global_ else None,
        )
    if as_json:
        echo_json(result)
    else:
        verb = "wrote" if replace else "appended to"
        click.echo(f"{verb} {result['ref']} ({result['path']})")


@click.command()
@click.option(
    "--debounce",
    "debounce_ms",
    default=300,
    show_default=True,
    type=click.IntRange(0, 60_000),
    help="Milliseconds to let a burst of changes settle.",
)
@click.option("--no-initial", is_flag=True, help="Do not index everything before watching.")
@click.option(
    "--code",
    is_flag=True,
    help="Also re-index the project's indexed code as files change (see `memlode index`).",
)
@click.pass_context
def watch(ctx: click.Context, debounce_ms: int, no_initial: bool, code: bool) -> None:
    """Watch memory files and docs and re-index them as they change (Ctrl-C stops).

    With --code, the code indexed for this project is watched too: a changed file's symbols
    and the repo map follow within the debounce, without `memlode index`.
    """
    from memlode.engine.watch import watch_docs

    def report(event: dict[str, Any]) -> None:
        if event.get("initial"):
            if "files" in event:
                _echo_report(event)
            click.echo("watching for changes (Ctrl-C to stop)")
        elif event.get("paths"):
            click.echo(f"changed: {', '.join(Path(p).name for p in event['paths'])}")
            _echo_report(event)
        sys.stdout.flush()  # a long-running command: its lines go out as they happen

    stop_on_interrupt()
    stop = threading.Event()
    code_thread = _start_code_watch(ctx, stop, debounce_ms) if code else None
    with open_engine(ctx) as engine:
        try:
            watch_docs(
                engine,
                stop_event=stop,
                debounce_ms=debounce_ms,
                on_index=report,
                initial_index=not no_initial,
            )
        except KeyboardInterrupt:
            stop.set()
            click.echo("stopped watching", err=True)
        finally:
            stop.set()
            if code_thread is not None:
                code_thread.join(timeout=10)


def _start_code_watch(
    ctx: click.Context, stop: threading.Event, debounce_ms: int
) -> threading.Thread:
    """``engine.code.watch`` on a thread with its own engine (its own SQLite connection)."""
    from memlode.engine.code import watch_code
    from memlode.errors import MemlodeError

    def report(event: dict[str, Any]) -> None:
        if event.get("initial"):
            click.echo(f"watching code in {', '.join(event['roots'])}")
            sys.stdout.flush()
            return
        files = [f for root in event["roots"] for f in root["changed_files"]]
        if files:
            click.echo(f"code re-indexed: {', '.join(files)} ({event['seconds']:.2f} s)")
        elif any(root["walked"] for root in event["roots"]):
            click.echo(f"code re-indexed: {', '.join(r['root'] for r in event['roots'])}")
        sys.stdout.flush()

    def run() -> None:
        try:
            with open_engine(ctx) as engine:
                watch_code(engine, stop_event=stop, debounce_ms=debounce_ms, on_index=report)
        except MemlodeError as exc:
            click.echo(f"not watching code: {exc}", err=True)

    thread = threading.Thread(target=run, name="memlode-watch-code", daemon=True)
    thread.start()
    return thread
