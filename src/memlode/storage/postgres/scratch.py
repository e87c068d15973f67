"""Throw-away stores on a PostgreSQL server: a schema of their own, dropped afterwards.

``memlode --db postgresql://... eval locomo`` stores each conversation in a fresh store, as it
does in a fresh SQLite file; on a server that store is a new schema (``memlode_<label>_<hex>``)
next to whatever the URL names, reached by the same URL with ``options=-csearch_path=<schema>,
<the schema of the vector extension>`` (any other option of the URL is kept). Nothing of the
user's own store is read or migrated, and the schema is dropped with everything in it when the
block ends, by an error or an interrupt too; one the process could not drop (the server went
away) is named in a warning, and a killed process leaves its schema, named as above.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from urllib.parse import quote, unquote, urlsplit, urlunsplit

# Bare connections: no migration of the URL's own store, no vector types (the server may not
# have the extension yet).
from memlode.storage.postgres.connection import _connect_raw

__all__ = ["PREFIX", "scratch_store", "with_search_path"]

log = logging.getLogger(__name__)

PREFIX = "memlode_"
# Where the ``vector`` extension lives when the server has none yet (the store's first
# migration creates it there, in the new schema: dropped with it).
_DEFAULT_PATH_TAIL = "public"


def with_search_path(url: str, *schemas: str) -> str:
    """``url`` (a ``postgresql://`` URL) whose connections search ``schemas`` in this order:
    its ``options`` get ``-csearch_path=...`` in place of any search path they set."""
    parts = urlsplit(url)
    pairs = [p.partition("=") for p in parts.query.split("&") if p]
    options = next((unquote(v) for k, _, v in pairs if k == "options"), "")
    kept = [*_other_options(options), f"-csearch_path={','.join(schemas)}"]
    query = [f"{k}={v}" for k, _, v in pairs if k != "options"]
    query.append("options=" + quote(" ".join(kept), safe=""))
    return urlunsplit(parts._replace(query="&".join(query)))


def _other_options(options: str) -> list[str]:
    """The command-line options of ``options`` (libpq's) that do not set the search path."""
    tokens, kept, i = options.split(), [], 0
    while i < len(tokens):
        if tokens[i] == "-c" and i + 1 < len(tokens):  # "-c name=value"
            setting, i = tokens[i + 1], i + 2
            if not _sets_search_path(setting):
                kept += ["-c", setting]
            continue
        token, i = tokens[i], i + 1
        if not _sets_search_path(token.removeprefix("-c").removeprefix("--")):
            kept.append(token)
    return kept


def _sets_search_path(setting: str) -> bool:
    return setting.replace("-", "_").lower().startswith("search_path=")


@contextmanager
def scratch_store(url: str, label: str, *, created_by: str = "") -> Iterator[str]:
    """A new empty schema on the server (and database) of ``url``, as the URL of a store in it;
    dropped with all it holds when the block ends. ``label`` (lowercase letters, digits and
    ``_``) names what it is for: ``memlode_<label>_<12 hex digits>``."""
    schema = f"{PREFIX}{label}_{uuid.uuid4().hex[:12]}"
    # Whether the schema may exist: from just before its CREATE, since an interrupt can land
    # after the server made it and before this frame hears so (the drop is IF EXISTS).
    asked = False
    try:
        with closing(_connect_raw(url, created_by)) as conn:
            row = conn.execute(
                "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n"
                " ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
            ).fetchone()
            asked = True
            conn.execute(f'CREATE SCHEMA "{schema}"')
        tail = str(row[0]) if row is not None else _DEFAULT_PATH_TAIL
        yield with_search_path(url, schema, tail)
    finally:
        if asked:
            _drop(url, schema)


def _drop(url: str, schema: str) -> None:
    try:
        with closing(_connect_raw(url, "")) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    except Exception as exc:  # the server went away: say what is left behind
        log.warning("could not drop the scratch schema %s (%s); drop it by hand", schema, exc)
