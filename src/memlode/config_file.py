"""Where settings come from, for every reader: the home folder, its ``config.toml``, and the
environment names of the store's location and namespace.

L0, import-light (``os``, and ``tomllib`` only when a config file exists). Both readers of
settings go through these functions, so they cannot disagree on where the store is:
``memlode.config.Settings`` (every command; it turns a bad file into ``InvalidInput``) and
``memlode.hook_settings.HookSettings`` (every hook, which cannot afford ``dataclasses`` and
must never fail on a bad file).

A hook cannot afford ``tomllib`` either: importing it imports ``re`` and ``datetime`` and
compiles its patterns, ~12 ms in a fresh interpreter, half of a hook. It reads the file through
``read_config_cached``: the parsed values are kept as JSON beside the file
(``config.toml.json``, owner-only like the rest of the home) with the file's identity, and
parsed again whenever that changes.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "CONFIG_NAME",
    "DATABASE_NAME",
    "ENV_DB",
    "ENV_HOME",
    "ENV_NAMESPACE",
    "HOOK_KEYS",
    "KNOWN_KEYS",
    "PARSED_SUFFIX",
    "SETTLED_NS",
    "database_path",
    "default_home",
    "home_dir",
    "is_server_url",
    "namespace",
    "read_config",
    "read_config_cached",
    "unknown_keys",
]

ENV_HOME = "MEMLODE_HOME"
ENV_DB = "MEMLODE_DB"
ENV_NAMESPACE = "MEMLODE_NAMESPACE"
CONFIG_NAME = "config.toml"
DATABASE_NAME = "memlode.db"

# The keys of the ``[hooks]`` table (read by ``memlode.hook_settings``).
HOOK_KEYS = frozenset(
    {
        "enabled",
        "capture",
        "inject",
        "capture_prompts",
        "ingest_transcripts",
        "tools",
        "session_budget_tokens",
        "prompt_budget_tokens",
        "prompt_max_memories",
        "question_budget_tokens",
        "question_max_memories",
        "bash_output_chars",
        "resident_timeout_ms",
        "resident_start_wait_ms",
        "spool_max_mb",
    }
)
# Every key config.toml may hold, by table ("" is the top level; ``memlode.config.Settings``
# reads the rest). ``[weights]`` is checked by ``memlode.config.normalise_weights``, and
# ``[consolidation] <cycle>_every_hours`` by memlode.engine.consolidation.schedule.
_TABLES = ("embed", "weights", "memory_files", "resident", "consolidation", "llm", "recall")
KNOWN_KEYS: dict[str, frozenset[str]] = {
    "": frozenset({"db_path", "namespace", "log_level", "created_by", "hooks", *_TABLES}),
    "embed": frozenset({"provider", "model", "url", "api_key", "dimensions"}),
    "memory_files": frozenset({"write_compactions"}),
    "resident": frozenset({"autostart", "idle_seconds"}),
    "consolidation": frozenset({"every_hours", "reflect_check_seconds"}),
    "llm": frozenset({"provider", "model", "url", "api_key", "daily_tokens"}),
    "recall": frozenset({"half_life_days", "mmr_lambda", "min_score", "evergreen"}),
    "hooks": HOOK_KEYS,
}

# A store on a PostgreSQL server (team memory, issue #21) is named by its URL, never taken for a
# file path (``postgresql://h/db`` would quietly be a SQLite file ``postgresql:/h/db`` under the
# working directory): the commands and the MCP server open it (``memlode.config.Settings.db_url``),
# and the hooks hand their events to the store's resident (``memlode.hooks.handoff``).


def default_home() -> str:
    return os.path.join(os.path.expanduser("~"), ".memlode")


def home_dir(env: Mapping[str, str], override: object = None) -> str:
    """The home folder: a flag's value, else ``MEMLODE_HOME``, else ``~/.memlode``."""
    raw = override or env.get(ENV_HOME)
    return os.path.expanduser(str(raw)) if raw else default_home()


def read_config(path: str) -> dict[str, Any]:
    """The parsed ``config.toml`` at ``path``; {} when there is none; ``ConfigFileError`` (an
    ``InvalidInput``) when it cannot be read or is not TOML."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except (FileNotFoundError, NotADirectoryError):
        # No config file; a home that cannot exist is reported where the database is opened.
        return {}
    except OSError as exc:
        raise _error(f"cannot read config file {path}: {exc.strerror}") from None
    import tomllib

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise _error(f"config file {path} is not valid TOML: {exc}") from None


# The parsed copy of a config file (``read_config_cached``): its path plus this suffix.
PARSED_SUFFIX = ".json"
# A file modified less than this long ago gets no copy: a write in the same tick of the file
# system's clock (a few milliseconds), with the same size, would leave its identity unchanged.
SETTLED_NS = 2_000_000_000


def read_config_cached(path: str) -> dict[str, Any]:
    """``read_config`` for a short-lived process (a hook): the values from the parsed copy
    beside the file when it was made from the file as it is now (same inode, size, modification
    and change times), else parsed again and the copy replaced (atomically; a process that cannot
    write it only parses). A file JSON cannot hold (a TOML date), or modified within
    ``SETTLED_NS``, gets no copy."""
    try:
        stat = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except OSError:
        return read_config(path)  # its error message
    from memlode.fastjson import dumps, loads

    identity = [stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]
    parsed = path + PARSED_SUFFIX
    try:
        with open(parsed, "rb") as fh:
            kept = loads(fh.read().decode("utf-8"))
        if isinstance(kept, dict) and kept.get("file") == identity:
            values = kept.get("values")
            if isinstance(values, dict):
                return values
    except (OSError, ValueError):
        pass
    data = read_config(path)  # stat first: a file changed meanwhile is parsed again next time
    import time

    if time.time_ns() - stat.st_mtime_ns < SETTLED_NS:
        return data
    try:
        text = dumps({"file": identity, "values": data})
    except (TypeError, ValueError):
        return data
    from memlode.owner_only import write_private

    try:  # noqa: SIM105 - contextlib costs a hook process milliseconds to import
        write_private(parsed, text.encode("utf-8"))
    except OSError:
        pass  # a process that cannot write the copy only parses
    return data


def unknown_keys(data: Mapping[str, Any]) -> list[str]:
    """The keys of a parsed ``config.toml`` that no reader knows (``table.key`` in a table)."""
    out = [str(key) for key in data if key not in KNOWN_KEYS[""]]
    for table, known in KNOWN_KEYS.items():
        section = data.get(table) if table else None
        if isinstance(section, dict):
            out += [
                f"{table}.{key}"
                for key in section
                if key not in known
                and not (table == "consolidation" and str(key).endswith("_every_hours"))
            ]
    return out


def _error(message: str) -> Exception:
    # memlode.errors is imported only on this path: a hook reads settings on every event.
    from memlode.errors import ConfigFileError

    return ConfigFileError(message)


def is_server_url(value: str) -> bool:
    """Whether a ``--db`` / ``MEMLODE_DB`` / ``db_path`` value names a PostgreSQL server."""
    return value.strip().lower().startswith(("postgresql://", "postgres://"))


def database_path(home: str, env: Mapping[str, str], config: Mapping[str, Any]) -> str:
    """The store: ``MEMLODE_DB``, else the config's ``db_path``, else ``<home>/memlode.db``."""
    raw = env.get(ENV_DB) or config.get("db_path")
    return os.path.expanduser(str(raw)) if raw else os.path.join(home, DATABASE_NAME)


def namespace(env: Mapping[str, str], config: Mapping[str, Any]) -> str | None:
    """A namespace set by ``MEMLODE_NAMESPACE`` or the config; None: detect from the project."""
    value = env.get(ENV_NAMESPACE) or config.get("namespace")
    return str(value) if value else None
