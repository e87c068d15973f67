"""The session every real-client test scripts (Claude Code, Gemini CLI, OpenCode): its prompts,
the project's two files, the error the first check prints and the finding the model reports.
The same words in every client, so that what one stores and recalls compares with another."""

from __future__ import annotations

__all__ = [
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
