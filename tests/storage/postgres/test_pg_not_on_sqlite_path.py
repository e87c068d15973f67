"""Nothing about PostgreSQL is imported on the SQLite path: not by the CLI, the engine, the MCP
server, the hooks or the resident, nor by ``memlode.storage.postgres`` itself (its package only
answers whether a value is a PostgreSQL URL)."""

from __future__ import annotations

import subprocess
import sys

DRIVER_PACKAGES = ("psycopg", "psycopg_pool", "pgvector", "psycopg_binary")


def test_the_sqlite_path_imports_no_postgres_driver() -> None:
    code = (
        "import sys\n"
        "import memlode, memlode.cli, memlode.engine, memlode.storage.sql\n"
        "import memlode.storage.db, memlode.mcp.server, memlode.hooks.run\n"
        "import memlode.resident.server, memlode.storage.postgres\n"
        "from memlode.engine import Engine\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {DRIVER_PACKAGES!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""
