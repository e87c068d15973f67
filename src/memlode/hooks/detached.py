"""The transcript ingest a Stop hook leaves running (``handlers.ingest_transcript_detached``):
``memlode ingest transcript`` as a process of its own (interfaces start each other as
processes), whose error output goes to the hook log as the hooks write theirs: one line, with
the time, redacted (``memlode.hooks._log.log_line``).

    python -m memlode.hooks.detached LOG PATH [--session ID]

What this process itself writes to its standard error (it should write nothing) still
reaches the log, which the hook opens it on.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str]) -> int:
    """Run the ingest of ``argv[1:]``; what it says on its standard error, if anything,
    becomes one line of the log ``argv[0]``. Returns the command's exit code."""
    import subprocess

    from memlode.hooks._log import log_line

    log, args = argv[0], argv[1:]
    command = [sys.executable, "-m", "memlode", "ingest", "transcript", *args]
    done = subprocess.run(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    said = done.stderr.decode("utf-8", errors="replace")
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    if lines:  # a traceback's last line says what failed, the rest where
        where = f" ({' | '.join(lines[:-1])})" if len(lines) > 1 else ""
        log_line(log, "ingest", lines[-1] + where)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
