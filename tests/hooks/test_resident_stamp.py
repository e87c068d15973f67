"""The start stamp a hook writes beside the resident's lock (``memlode.hooks._resident``): the
pid it started; whatever else a damaged or foreign stamp holds is read as no pid, never as an
error or as a process group ("0") or init ("1")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memlode.hooks import _resident
from memlode.resident_client.paths import database_path, lock_path


@pytest.mark.parametrize("content", [b"garbage", b"", b"9" * 40, b"-5", b"0", b"1", b"12 34"])
def test_a_stamp_without_a_pid_of_ours_is_read_as_no_pid(tmp_path: Path, content: bytes) -> None:
    home, db = str(tmp_path), str(tmp_path / "memlode.db")
    lock = lock_path(home, database_path(home, db))
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    Path(lock + ".started").write_bytes(content)
    age, pid = _resident._started(lock)
    assert pid is None and 0 <= age < 5
    assert _resident.starting(home, db)  # a stamp this fresh: a start may be under way


def test_a_stamp_names_a_live_process_or_a_gone_one(tmp_path: Path) -> None:
    home, db = str(tmp_path), str(tmp_path / "memlode.db")
    lock = lock_path(home, database_path(home, db))
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    stamp = Path(lock + ".started")
    stamp.write_text(str(os.getpid()))
    assert _resident._started(lock)[1] == os.getpid() and _resident.starting(home, db)
    stamp.write_text("4194305")  # above Linux's largest pid: no such process
    assert not _resident.starting(home, db)
