"""``memlode search`` reads and writes no text, so it does not import redaction: the rules
(``memlode.redact``) load with the first value a process redacts, at storage's choke point
(``memlode.storage.scrub``), not with the repositories that a search imports beside it."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import run_memlode

SEARCH_THEN_STORE = """
import sys
from memlode.cli import main

def run(*args):
    try:
        main(list(args))
    except SystemExit as exc:
        assert not exc.code, exc.code

run("search", "redis")
print("after search:", "memlode.redact" in sys.modules)
run("store", "the session cache moved to valkey")
print("after store:", "memlode.redact" in sys.modules)
"""


def test_search_loads_no_redaction_and_a_write_does() -> None:
    assert run_memlode("store", "the session cache uses redis").returncode == 0
    proc = subprocess.run(
        [sys.executable, "-c", SEARCH_THEN_STORE], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "the session cache uses redis" in proc.stdout  # the search found the stored memory
    assert "after search: False" in proc.stdout
    assert "after store: True" in proc.stdout
