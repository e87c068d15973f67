"""The transcript ingest a Stop hook leaves running (``handlers.ingest_transcript_detached``):
``memlode ingest transcript`` in a process of its own, whose errors go to the hook log as the
hooks write theirs: one line, with the time, redacted (``memlode.hooks._log.log_line``).

    python -m memlode.hooks.detached LOG PATH [--session ID]

What is written below Python (a C library's own message) still reaches the log through the
process's standard error, which the hook opens on it.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str]) -> int:
    """Run the ingest of ``argv[1:]``; its error output, if any, becomes one line of the log
    ``argv[0]``. Returns the command's exit code."""
    import contextlib
    import io

    from memlode.cli import main as run_command
    from memlode.hooks._log import log_line

    log, args = argv[0], argv[1:]
    said = io.StringIO()
    code = 0
    with contextlib.redirect_stderr(said):
        try:
            run_command(["ingest", "transcript", *args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except Exception:  # a bug: the traceback's last line says what, the rest where
            import traceback

            traceback.print_exc()
            code = 1
    lines = [line.strip() for line in said.getvalue().splitlines() if line.strip()]
    if lines:
        where = f" ({' | '.join(lines[:-1])})" if len(lines) > 1 else ""
        log_line(log, "ingest", lines[-1] + where)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
