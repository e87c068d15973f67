"""``memlode demo`` (and ``make run``): a coding session replayed through the real hooks, then
what the assistant gets; in a home of its own, never the user's store."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import run_memlode

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first


def test_demo_shows_the_product_on_a_replayed_session(memlode_home: Path) -> None:
    done = run_memlode("demo")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = done.stdout
    # the session went through the hooks, one process per event
    assert "9 hook events of one session" in out
    # what SessionStart hands the assistant: the session's outcome and the edit it made
    start = out.split("== 1.")[1].split("== 2.")[0]
    assert "what I remember about shop" in start
    assert "Edited shop/auth.py" in start and "hash_password" in start
    assert "UnicodeEncodeError" in start
    # the follow-up question gets the decision the user stated
    injected = out.split("== 2.")[1].split("== 3.")[0]
    assert "possibly relevant memories" in injected and "NFKC" in injected
    # a hybrid search with its signals, the repo map of memlode's own code, the stats
    search = out.split("== 3.")[1].split("== 4.")[0]
    assert "1. " in search and "bm25 " in search and "vector " in search
    assert "src/memlode/" in out.split("== 4.")[1].split("== 5.")[0]
    assert "memories " in out.split("== 5.")[1]
    assert "Done in" in out
    assert not (memlode_home / "memlode.db").exists()  # the user's store is left alone


def test_demo_keeps_its_home_when_asked(tmp_path: Path) -> None:
    keep = tmp_path / "kept"
    done = run_memlode("demo", "--keep", str(keep))
    assert done.returncode == 0, done.stderr
    assert (keep / "memlode-home" / "memlode.db").is_file()
    assert (keep / "shop" / "shop" / "auth.py").read_text().count("NFKC") == 1  # the fix
    again = run_memlode("demo", "--keep", str(keep))
    assert again.returncode == 1
    assert again.stderr.strip().splitlines() == [
        f"memlode: error: {keep} is not empty; give a new or empty folder to keep"
    ]
