"""Import and export as JSONL text (the same format as ``memlode export`` / ``memlode import``)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from memlode.mcp.models import ExportOut, ImportOut
from memlode.mcp.params import IDEMPOTENT_WRITE, READ_ONLY, ReadNamespace
from memlode.mcp.tooling import ToolCall, mcp_tool

__all__ = ["MAX_EXPORT_CHARS", "MAX_IMPORT_CHARS", "export_memories", "import_memories"]

# A tool result travels through the client into a model's context; past a few MB that is a
# mistake, and the CLI (which streams to a file) is the right tool.
MAX_EXPORT_CHARS = 5_000_000
MAX_IMPORT_CHARS = 20_000_000


@mcp_tool(
    READ_ONLY,
    "Export memories, sessions and links as JSONL text (default: this project; '*' for "
    "all). For large stores use the CLI: memlode export FILE.",
    text=lambda out: (
        f"exported {out.records} records from namespace {out.namespace}:\n" + out.jsonl
    ),
)
def export_memories(call: ToolCall, namespace: ReadNamespace = None) -> ExportOut:
    from memlode.engine.portability import export_lines

    ns = call.engine.resolve_namespace(namespace)
    size = 0
    lines: list[str] = []
    for line in export_lines(call.engine.db, ns):
        size += len(line) + 1
        if size > MAX_EXPORT_CHARS:
            raise ToolError(
                f"export is larger than {MAX_EXPORT_CHARS} characters; export one "
                "namespace at a time, or ask the user to run `memlode export FILE`"
            )
        lines.append(line)
    return ExportOut(
        namespace="*" if ns is None else ns, records=len(lines) - 1, jsonl="\n".join(lines) + "\n"
    )


def _import_text(out: ImportOut) -> str:
    return (
        f"imported {out.memories_added} memories ({out.memories_skipped} already present), "
        f"{out.edges_added} links ({out.edges_skipped} skipped), "
        f"{out.sessions_added} sessions"
    )


@mcp_tool(
    IDEMPOTENT_WRITE,
    "Import JSONL text as written by export_memories or `memlode export`. All or "
    "nothing: a bad line is reported with its number and nothing is written; ids "
    "already present are skipped, so importing twice changes nothing.",
    text=_import_text,
    writes=True,
)
def import_memories(
    call: ToolCall,
    jsonl: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_IMPORT_CHARS,
            description='JSONL: one JSON object per line, each with "kind" (memory, edge, session)',
        ),
    ],
) -> ImportOut:
    from memlode.engine.portability import import_lines

    report = import_lines(call.engine.db, jsonl.splitlines())
    return ImportOut.model_validate(report.to_dict())
