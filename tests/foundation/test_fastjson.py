"""``memlode.fastjson`` against ``json``: the same text out, the same values and errors in."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from memlode import fastjson

JSON_VALUES = [
    {"b": 1, "a": ["é", 1.5, None, True, False, -3], "c": {"z": '\u2028 " \\ \n'}},
    ["x", "y"],
    "plain",
    {},
    [],
    123456789012345678901234567890,
    0.1,
]


@pytest.mark.parametrize("value", JSON_VALUES)
def test_dumps_and_loads_match_json(value: object) -> None:
    for sort_keys in (True, False):
        for ensure_ascii in (True, False):
            expected = json.dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
            got = fastjson.dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
            assert got == expected
            assert fastjson.loads(" \n" + expected + "\t ") == json.loads(expected)


@pytest.mark.parametrize("text", ["", "not json", "{1", "[1] x", '{"a": }', "\ufeff{}", "nul"])
def test_loads_rejects_what_json_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        fastjson.loads(text)


def test_loads_errors_in_a_fresh_interpreter() -> None:
    """In a hook process json.decoder is not imported; syntax errors must still be ValueErrors."""
    script = (
        "from memlode.fastjson import loads\n"
        "for bad in ['{truncated', '{\"a\": }', 'nul', '[1,', '\"abc', 'x']:\n"
        "    try:\n"
        "        loads(bad)\n"
        "    except ValueError:\n"
        "        continue\n"
        "    raise SystemExit('parsed ' + bad)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")
