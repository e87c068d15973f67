"""Shared CLI plumbing: settings from the global flags, the engine, output, and error exits."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memlode.config import Settings
from memlode.errors import InvalidInput, MemlodeError, NotFound

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = [
    "EXIT_ERROR",
    "EXIT_NOT_FOUND",
    "echo_json",
    "json_option",
    "namespace_option",
    "open_engine",
    "run_cli",
    "settings_from",
]

EXIT_ERROR = 1
EXIT_NOT_FOUND = 3

F = TypeVar("F", bound=Callable[..., Any])


def settings_from(ctx: click.Context, **extra: Any) -> Settings:
    overrides = dict(ctx.find_root().obj or {})
    overrides.update({k: v for k, v in extra.items() if v is not None})
    return Settings.load(overrides)


@contextmanager
def open_engine(ctx: click.Context, **extra: Any) -> Iterator[Engine]:
    from memlode.engine import Engine

    engine = Engine(settings_from(ctx, **extra))
    try:
        yield engine
    finally:
        engine.close()


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False, indent=2, default=str))


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(fn)


def namespace_option(fn: F) -> F:
    return click.option(
        "-n",
        "--namespace",
        default=None,
        help="Namespace (default: the current project; '*' for all on read commands).",
    )(fn)


def run_cli(group: click.Group, argv: list[str] | None) -> None:
    try:
        result = group.main(args=argv, prog_name="memlode", standalone_mode=False)
        if isinstance(result, int) and not isinstance(result, bool):
            sys.exit(result)  # click returns the code of ctx.exit() in this mode
    except click.exceptions.Abort:
        click.echo("memlode: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except NotFound as exc:
        click.echo(f"memlode: error: {exc}", err=True)
        sys.exit(EXIT_NOT_FOUND)
    except (MemlodeError, InvalidInput) as exc:
        click.echo(f"memlode: error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    except sqlite3.Error as exc:
        click.echo(f"memlode: error: database error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        click.echo("memlode: interrupted", err=True)
        sys.exit(130)
