"""Shared CLI plumbing: settings from the global flags, the engine, output, and error exits.

``run_cli`` is the one place where an error becomes an exit: every expected failure, and every
condition of the machine (a full disk, a read-only or damaged database, text that is not UTF-8,
output that cannot be written), ends as one line ``memlode: error: ...`` on stderr and the exit
code of the README (1 error, 2 usage, 3 not found, 130 aborted), never a traceback.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memlode import validate
from memlode.config import Settings
from memlode.errors import InvalidInput, MemlodeError, NotFound, StorageError

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = [
    "EXIT_ABORTED",
    "EXIT_ERROR",
    "EXIT_NOT_FOUND",
    "Count",
    "echo_json",
    "interface",
    "json_option",
    "namespace_option",
    "open_engine",
    "read_stdin_text",
    "run_cli",
    "settings_from",
    "sqlite_only",
    "stop_on_interrupt",
    "store_wide_namespace_option",
]

EXIT_ERROR = 1
EXIT_NOT_FOUND = 3
EXIT_ABORTED = 130

F = TypeVar("F", bound=Callable[..., Any])

# The attribute a SQLite-only command carries (``sqlite_only``): what it says on a PostgreSQL store.
_SQLITE_ONLY = "memlode_sqlite_only"

C = TypeVar("C", bound=click.Command)


def stop_on_interrupt() -> None:
    """A long-running command stops as on Ctrl-C (``KeyboardInterrupt``, its cleanup runs) on
    SIGINT and on SIGTERM, however it was started: a shell script's ``cmd &`` and some CI
    runners start it with SIGINT ignored, which Python keeps, and then nothing stopped it but
    SIGKILL (the cleanup lost: a watcher's threads, an evaluation's temporary schema)."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.default_int_handler)


def sqlite_only(why: str) -> Callable[[C], C]:
    """Declare a command SQLite-only (issue #21: every other command runs on a PostgreSQL store
    as on a SQLite one). On a PostgreSQL store ``settings_from`` refuses it, and any subcommand
    of a group so declared, in one line: "`memlode <command>` <why>"; ``why`` says what to do
    instead. Put it above ``@click.command``."""

    def declare(command: C) -> C:
        setattr(command, _SQLITE_ONLY, why)
        return command

    return declare


def interface(name: str) -> Callable[..., Any]:
    """Another interface's entry point (``memlode.interfaces``): the CLI starts the resident and
    the MCP server through these, never by importing their modules."""
    from memlode import interfaces

    loaded: Callable[..., Any] = interfaces.load(name)
    return loaded


def settings_from(ctx: click.Context, **extra: Any) -> Settings:
    overrides = dict(ctx.find_root().obj or {})
    overrides.update({k: v for k, v in extra.items() if v is not None})
    settings = Settings.load(overrides)
    if settings.db_url is not None:
        why = _sqlite_only(ctx)
        if why is not None:
            raise StorageError(f"`memlode {_command_path(ctx)}` {why}")
    return settings


def _sqlite_only(ctx: click.Context) -> str | None:
    """What the running command, or a group it belongs to, says on a PostgreSQL store (None:
    it runs there)."""
    here: click.Context | None = ctx
    while here is not None:
        why = getattr(here.command, _SQLITE_ONLY, None)
        if isinstance(why, str):
            return why
        here = here.parent
    return None


def _command_path(ctx: click.Context) -> str:
    """The command being run below ``memlode``: "store", "eval locomo"."""
    names: list[str] = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(reversed(names)) or ctx.invoked_subcommand or ctx.info_name or ""


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


def _namespace(help_text: str) -> Callable[[F], F]:
    return click.option("-n", "--namespace", default=None, help=help_text)


# ``--namespace`` of most commands, and of a command that reads the whole store unless told
namespace_option = _namespace(
    "Namespace (default: the current project; '*' for all on read commands)."
)
store_wide_namespace_option = _namespace(
    "Only this namespace (a key or a project's name; default: every namespace)."
)


class Count(click.ParamType[int, Any]):
    """A whole number option in ``minimum..maximum`` (default: SQLite's largest integer).

    Text that is no number is a usage error (exit 2, as for click's INT); a number out of range
    is bad input with the option's name (exit 1), as the engine reports it.
    """

    name = "integer"

    def __init__(self, minimum: int, maximum: int = validate.SQLITE_MAX_INT) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a whole number", param, ctx)
        name = (param.name or "value") if param is not None else "value"
        return validate.whole_number(number, name.replace("_", " "), self.minimum, self.maximum)


# Standard input larger than this is refused rather than read whole (a memory holds at most
# MAX_CONTENT_CHARS characters, each at most 4 bytes of UTF-8).
MAX_STDIN_BYTES = 4 * validate.MAX_CONTENT_CHARS + 4


def read_stdin_text(what: str = "standard input") -> str:
    """All of stdin as UTF-8 text (a UTF-8 byte order mark is dropped), or InvalidInput.

    The bytes are decoded here, strictly, rather than by the interpreter, whose decoding
    depends on the locale (the C locale hands bad bytes over as surrogate escapes).
    """
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # stdin replaced by a text-only stream
        return validate.utf8_text(sys.stdin.read(), what)
    data: bytes = stream.read(MAX_STDIN_BYTES + 1)
    if len(data) > MAX_STDIN_BYTES:
        raise InvalidInput(f"{what} is larger than {MAX_STDIN_BYTES} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert it first, e.g. with iconv -t UTF-8"
        ) from None


def _error(message: str, code: int = EXIT_ERROR) -> None:
    """One line on stderr (newlines in a message would break the one-line rule), then exit."""
    line = " ".join(message.split())
    click.echo(f"memlode: error: {line}", err=True)
    sys.exit(code)


def _unicode_message(exc: UnicodeError) -> str:
    if isinstance(exc, UnicodeEncodeError):  # a lone surrogate: an undecodable byte of argv
        try:
            validate.utf8_text(exc.object, "an argument")
        except InvalidInput as detail:
            return str(detail)
    return f"text is not valid UTF-8 ({getattr(exc, 'reason', exc)})"


def _os_message(exc: OSError) -> str:
    where = f" {exc.filename}" if exc.filename else " the output"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full: cannot write{where}; free some space"
    if exc.errno == errno.EROFS:
        return f"cannot write{where}: the file system is read-only"
    return f"cannot use{where}: {exc.strerror or exc}"


def _flush_or_silence() -> None:
    try:
        sys.stdout.flush()
    except OSError:
        _silence_stdout()


def _silence_stdout() -> None:
    """After stdout failed, point it at /dev/null so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real descriptor (a test's stream)
        pass


def _aborted_if_interrupted(exc: BaseException) -> None:
    """An error raised while an interrupt unwound (a PostgreSQL connection cut mid-command by
    Ctrl-C or SIGTERM fails its rollback) is the interrupt's: report the abort, not the error."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, KeyboardInterrupt | click.exceptions.Abort):
            click.echo("memlode: aborted", err=True)
            sys.exit(EXIT_ABORTED)
        cause = cause.__context__ or cause.__cause__


def run_cli(group: click.Group, argv: list[str] | None) -> None:
    try:
        result = group.main(args=argv, prog_name="memlode", standalone_mode=False)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at interpreter exit
        if isinstance(result, int) and not isinstance(result, bool):
            sys.exit(result)  # click returns the code of ctx.exit() in this mode
    except click.exceptions.Abort:
        click.echo("memlode: aborted", err=True)
        sys.exit(EXIT_ABORTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except NotFound as exc:
        _error(str(exc), EXIT_NOT_FOUND)
    except (MemlodeError, InvalidInput) as exc:
        _aborted_if_interrupted(exc)
        _error(str(exc))
    except sqlite3.Error as exc:
        # imported here: it reads the migrations, ~10 ms of every command's start
        from memlode.storage.db import explain

        _error(explain(exc, "the database"))
    except BrokenPipeError:  # the reader went away (`memlode list | head`): nothing to say
        _silence_stdout()
        sys.exit(EXIT_ERROR)
    except UnicodeError as exc:
        _error(_unicode_message(exc))
    except OSError as exc:
        _flush_or_silence()
        _error(_os_message(exc))
    except RecursionError:
        _error("the input nests too deeply to read")
    except ValueError as exc:
        if "null byte" not in str(exc):  # os.stat of a path with a NUL in it (click's Path)
            raise
        _error("a path or value contains a NUL byte")
    except (OverflowError, MemoryError) as exc:
        _error(f"a value is too large: {exc or type(exc).__name__}")
    except Exception as exc:
        from memlode.storage.sql import is_server_error

        _aborted_if_interrupted(exc)
        if not is_server_error(exc):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        _error(f"PostgreSQL error: {first}")
    except KeyboardInterrupt:
        click.echo("memlode: interrupted", err=True)
        sys.exit(EXIT_ABORTED)
