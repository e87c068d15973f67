"""The session every real-client test scripts (Claude Code, Gemini CLI, OpenCode): its prompts,
the project's two files, the error the first check prints and the finding the model reports.
The same words in every client, so that what one stores and recalls compares with another."""

from __future__ import annotations

__all__ = [
    "BUILD",
    "BUILD_OUTCOME",
    "BUILD_VERDICT",
    "CALC",
    "CHECK",
    "ERROR_MARK",
    "FINDING",
    "FINDING_MARK",
    "FOLLOW_UP",
    "PROMPT",
    "RECALLED_TEXT",
    "RECALL_QUERY",
    "UNRELATED",
    "UNRELATED_ANSWER",
]

PROMPT = "Fix the add function in calc.py so the checks pass"
ERROR_MARK = "ZEBRA-4471"
FINDING_MARK = "QUOKKA-3"
FINDING = (
    f"Finding {FINDING_MARK}: add() in calc.py subtracted its arguments (a sign bug); "
    "it now returns a + b and the checks pass."
)
FOLLOW_UP = "Remind me what the sign bug in the calc.py add function was"
RECALL_QUERY = "sign bug in calc.py add"
RECALLED_TEXT = "Recalled it."
UNRELATED = "What is the weather usually like in Lisbon in April?"
UNRELATED_ANSWER = "Mild and showery."

CALC = "def add(a, b):\n    return a - b\n"
CHECK = (
    'if [ "$1" = first ]; then\n'
    f'  echo "AssertionError: {ERROR_MARK} add(2, 2) returned 0" >&2\n'
    "  exit 1\n"
    "fi\n"
    'echo "all checks passed"\n'
)

# A build whose log runs past what a client hands a hook (Claude Code: 30,000 characters; it
# keeps the whole output in a file, as OpenCode does), its verdict on the last line, and the
# outcome memlode reads from it.
BUILD_VERDICT = "Build complete! (12.34s)"
BUILD = (
    'i=0; while [ "$i" -lt 1500 ]; do echo "[$i/1500] Compiling module $i of the calc build"; '
    f'i=$((i + 1)); done\necho "{BUILD_VERDICT}"\n'
)
BUILD_OUTCOME = "Outcome: build: succeeded in 12.34s"
