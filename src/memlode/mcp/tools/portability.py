"""Import and export as JSONL text (the same format as ``memlode export`` / ``memlode import``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from memlode.mcp.context import ToolContext
from memlode.mcp.models import ExportOut, ImportOut
from memlode.mcp.params import IDEMPOTENT_WRITE, READ_ONLY, ReadNamespace
from memlode.mcp.render import respond

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["MAX_EXPORT_CHARS", "MAX_IMPORT_CHARS", "register"]

# A tool result travels through the client into a model's context; past a few MB that is a
# mistake, and the CLI (which streams to a file) is the right tool.
MAX_EXPORT_CHARS = 5_000_000
MAX_IMPORT_CHARS = 20_000_000


def register(server: MCPServer[Any], ctx: ToolContext) -> None:
    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Export memories, sessions and links as JSONL text (default: this project; '*' for "
            "all). For large stores use the CLI: memlode export FILE."
        ),
    )
    def export_memories(namespace: ReadNamespace = None) -> Annotated[CallToolResult, ExportOut]:
        def call(engine: Engine) -> ExportOut:
            from memlode.engine.portability import export_lines

            ns = engine.resolve_namespace(namespace)
            size = 0
            lines: list[str] = []
            for line in export_lines(engine.db, ns):
                size += len(line) + 1
                if size > MAX_EXPORT_CHARS:
                    raise ToolError(
                        f"export is larger than {MAX_EXPORT_CHARS} characters; export one "
                        "namespace at a time, or ask the user to run `memlode export FILE`"
                    )
                lines.append(line)
            return ExportOut(
                namespace="*" if ns is None else ns,
                records=len(lines) - 1,
                jsonl="\n".join(lines) + "\n",
            )

        out = ctx.run(call)
        head = f"exported {out.records} records from namespace {out.namespace}:\n"
        return respond(out, head + out.jsonl)

    @server.tool(
        annotations=IDEMPOTENT_WRITE,
        description=(
            "Import JSONL text as written by export_memories or `memlode export`. All or "
            "nothing: a bad line is reported with its number and nothing is written; ids "
            "already present are skipped, so importing twice changes nothing."
        ),
    )
    def import_memories(
        jsonl: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_IMPORT_CHARS,
                description='JSONL: one JSON object per line, each with "kind" '
                "(memory, edge, session)",
            ),
        ],
    ) -> Annotated[CallToolResult, ImportOut]:
        def call(engine: Engine) -> ImportOut:
            from memlode.engine.portability import import_lines

            report = import_lines(engine.db, jsonl.splitlines())
            return ImportOut.model_validate(report.to_dict())

        out = ctx.run(call, writes=True)
        text = (
            f"imported {out.memories_added} memories ({out.memories_skipped} already present), "
            f"{out.edges_added} links ({out.edges_skipped} skipped), "
            f"{out.sessions_added} sessions"
        )
        return respond(out, text)
