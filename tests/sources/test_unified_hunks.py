"""memlode.sources.patches.unified_hunks: the diffs Codex's rollout, Gemini CLI and OpenCode
report of an edit, as Claude Code's structuredPatch hunks."""

from __future__ import annotations

from memlode.sources.patches import unified_hunks

TWO_FILES = """--- a/schema.sql
+++ b/schema.sql
@@ -1,3 +1,3 @@
 CREATE TABLE t (
--- the old comment
+-- the new comment
 );
\\ No newline at end of file
--- a/calc.py
+++ b/calc.py
@@ -10 +10,2 @@
-LIMIT = 40
+LIMIT = 4096
+
"""


def test_each_hunk_ends_with_its_counts_and_keeps_lines_that_look_like_headers() -> None:
    first, second = unified_hunks(TWO_FILES)
    assert (first["oldStart"], first["oldLines"], first["newStart"], first["newLines"]) == (
        1, 3, 1, 3,
    )  # fmt: skip
    # the removed SQL comment starts with "---" and stays; the next file's header does not
    assert first["lines"] == [
        " CREATE TABLE t (",
        "--- the old comment",
        "+-- the new comment",
        " );",
    ]
    assert (second["oldStart"], second["oldLines"], second["newLines"]) == (10, 1, 2)
    assert second["lines"] == ["-LIMIT = 40", "+LIMIT = 4096", "+"]


def test_no_hunks_in_text_that_is_no_diff() -> None:
    assert unified_hunks("") == []
    assert unified_hunks("@@ not a header\n+x\n") == []
