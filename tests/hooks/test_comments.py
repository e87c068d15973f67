"""What a code file's comments say, as a Read or a Write observation keeps it
(``memlode.hooks.comments``), and through the real PostToolUse hook."""

from __future__ import annotations

from pathlib import Path

from memlode.engine import Engine
from memlode.hooks.comments import COMMENTS_CHARS, comments_in

SCRIPT = """#!/bin/bash
# SPDX-License-Identifier: MIT
# Bing Daily Wallpaper for COSMIC
#
# DEPENDENCIES:
#   - python3   (for JSON parsing - more portable than jq)
# ==========================================================
set -euo pipefail
# cp "$SRC" "$DEST";
# Copy the shell script (for timer functionality)
cp bing.sh "$APPDIR/usr/share/"  # trailing comments stay with their code
"""


def test_a_scripts_prose_comments_in_order_without_directives_or_code() -> None:
    said = comments_in(SCRIPT, ".sh")
    assert said == (
        "Bing Daily Wallpaper for COSMIC"
        " - python3   (for JSON parsing - more portable than jq)"
        " Copy the shell script (for timer functionality)"
    )


def test_each_language_by_its_own_markers() -> None:
    rust = (
        "/// Number of days to keep old wallpapers before cleanup.\n"
        "/// Currently informational; cleanup not yet implemented.\n"
        "pub keep_days: u32,\n"
        "// let old = prune(&dir, days);\n"
        "/* the market code used in Bing API requests */\n"
    )
    assert comments_in(rust, ".rs") == (
        "Number of days to keep old wallpapers before cleanup."
        " Currently informational; cleanup not yet implemented."
        " the market code used in Bing API requests"
    )
    python = (
        '"""Parse the daily image metadata Bing returns."""\n'
        "def parse(raw):\n"
        "    '''\n    The API wraps every image in a list,\n    even when it sends one.\n    '''\n"
        "    # keep the first image only: the others are older days\n"
        "    return raw['images'][0]\n"
    )
    assert comments_in(python, ".py") == (
        "Parse the daily image metadata Bing returns. The API wraps every image in a list,"
        " even when it sends one. keep the first image only: the others are older days"
    )
    sql = "-- the rollup runs nightly after the import\nSELECT 1;\n"
    assert comments_in(sql, ".SQL") == "the rollup runs nightly after the import"
    # C's preprocessor lines are no comments; "#" is a comment in Python, not in C
    assert comments_in("#include <stdio.h>\n#define MAX_ITEMS 10 items\n", ".c") == ""


def test_a_file_that_is_not_code_says_nothing_and_a_long_one_is_cut() -> None:
    assert comments_in("# Install\n\nRun the installer script first.\n", ".md") == ""
    assert comments_in("# read the config from the home folder\n", ".json") == ""
    many = "".join(f"# step {i} copies the wallpaper into place\n" for i in range(200))
    said = comments_in(many, ".sh")
    assert len(said) == COMMENTS_CHARS and said.endswith("…")
    assert said.startswith("step 0 copies the wallpaper into place step 1")


def test_a_read_code_file_keeps_its_comments(
    hook, read_payload, project: Path, proj_engine: Engine
) -> None:
    """Through the PostToolUse hook: a read script's observation holds why it does what it
    does, after the names it defines; a markdown file's headings are not comments."""
    hook("post", read_payload(str(project / "bing-wallpaper.sh"), SCRIPT))
    hook("post", read_payload(str(project / "README.md"), "# Install\n\nRun it.\n"))
    rows = proj_engine.list_memories(sources=["hook"], limit=None)
    texts = {m.content.split(" lines ")[0]: m.content for m in rows}
    script = texts["Read bing-wallpaper.sh"]
    assert script.splitlines()[1] == "Comments: " + comments_in(SCRIPT, ".sh")
    assert "Comments" not in texts["Read README.md"]
