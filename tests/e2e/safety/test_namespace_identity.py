"""A project's namespace is its repository's identity, not its folder's name (issue 16, item 4).

Real git repositories (``git init`` in tmp_path), the CLI as a subprocess, the hooks as
subprocesses fed Claude Code's payloads, the MCP server through the SDK's stdio client, and an
old store (schema before migration 0010, folder-name namespaces from several roots) upgraded in
place."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.project import (
    detect_namespace,
    identity_at,
    is_identity_key,
    make_key,
    normalise_remote,
    origin_url,
    project_identity,
    readable_name,
)
from memlode.storage.migrations import MIGRATIONS, split_statements

Cli = Any


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull},
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def repo(path: Path, remote: str | None = None, commit: bool = False) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    if remote is not None:
        git(path, "remote", "add", "origin", remote)
    if commit:
        git(path, "commit", "-q", "--allow-empty", "-m", "init")
    return path


# ---- identity ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/Acme/App.git",
        "https://user:s3cret@github.com:443/acme/app/",
        "ssh://git@github.com/acme/app.git",
        "ssh://git@github.com:22/acme/app",
        "git@github.com:acme/app.git",
        "git://GitHub.com/acme/app",
        "http://github.com//acme/app.git/",
    ],
)
def test_every_form_of_one_remote_normalises_alike(url: str) -> None:
    assert normalise_remote(url) == "github.com/acme/app"


def test_remote_normalisation_keeps_what_tells_repositories_apart(tmp_path: Path) -> None:
    # elsewhere the path's case counts; hosts, owners and names still differ
    assert normalise_remote("git@git.example.org:Team/Repo.git") == "git.example.org/Team/Repo"
    assert normalise_remote("https://git.example.org/team/repo") != normalise_remote(
        "https://git.example.org/Team/Repo"
    )
    assert normalise_remote("git@github.com:acme/app.git") != normalise_remote(
        "git@gitlab.com:acme/app.git"
    )
    # local paths (a clone of a repository on this machine) resolve, relative to the repo
    source = tmp_path / "src" / "lib"
    source.mkdir(parents=True)
    expected = str(source.resolve())
    assert normalise_remote(str(source) + "/.git") == expected
    assert normalise_remote(f"file://{source}.git") == expected
    assert normalise_remote("../src/lib", str(tmp_path / "clone")) == expected
    assert normalise_remote("") == ""


def test_origin_url_reads_git_config_syntax() -> None:
    config = """
[core]
	repositoryformatversion = 0
# [remote "origin"] in a comment
[remote "upstream"]
	url = https://example.com/upstream/app.git
[Remote "origin"]
	fetch = +refs/heads/*:refs/remotes/origin/*
	URL = "git@example.com:team/app.git" ; a trailing comment
	url = https://mirror.example.com/app.git
"""
    assert origin_url(config) == "git@example.com:team/app.git"
    assert origin_url("[remote.origin]\n\turl = git@h:x/y.git\n") == "git@h:x/y.git"
    assert origin_url('[remote "origin"] url = https://h/x/y\n') == "https://h/x/y"
    assert origin_url('[remote "Origin"]\n\turl = https://h/x\n') == ""  # subsections: exact
    assert origin_url('[remote "origin"\nurl = x\n') == ""  # a broken header
    assert origin_url("") == ""


def test_two_repositories_called_app_get_two_keys_with_one_name(tmp_path: Path) -> None:
    one = repo(tmp_path / "one" / "app")
    two = repo(tmp_path / "two" / "app", remote="https://example.com/two/app.git")
    (one / "src" / "deep").mkdir(parents=True)
    key_one, key_two = detect_namespace(one / "src" / "deep"), detect_namespace(two)
    assert key_one != key_two
    assert readable_name(key_one) == readable_name(key_two) == "app"
    assert is_identity_key(key_one) and is_identity_key(key_two)
    assert key_one == make_key("app", str(one.resolve()))  # no origin: the resolved path
    assert key_two == make_key("app", "example.com/two/app")  # the normalised origin


def test_clones_of_one_repository_share_a_key(tmp_path: Path) -> None:
    first = repo(tmp_path / "a" / "app", remote="https://example.com/x/app.git")
    renamed = repo(tmp_path / "b" / "app-copy", remote="git@example.com:x/app.git")
    assert detect_namespace(first) == detect_namespace(renamed)
    assert readable_name(detect_namespace(renamed)) == "app"  # the repository's name
    # a real clone of a local repository shares the key of the repository it came from
    source = repo(tmp_path / "c" / "lib", commit=True)
    git(tmp_path, "clone", "-q", str(source), str(tmp_path / "d" / "lib-clone"))
    assert detect_namespace(tmp_path / "d" / "lib-clone") == detect_namespace(source)
    # changing the origin changes the key (it names another repository)
    git(first, "remote", "set-url", "origin", "https://example.com/y/app.git")
    assert detect_namespace(first) != detect_namespace(renamed)


@pytest.mark.parametrize("remote", [None, "https://example.com/x/app.git"])
def test_worktrees_share_their_repository_key(tmp_path: Path, remote: str | None) -> None:
    main = repo(tmp_path / "app", remote=remote, commit=True)
    git(main, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "feature-tree"))
    tree = tmp_path / "feature-tree"
    assert (tree / ".git").is_file()
    assert detect_namespace(tree) == detect_namespace(main)
    found = project_identity(tree)
    assert found is not None and found.root == str(tree.resolve())


def test_a_submodule_is_its_own_project(tmp_path: Path) -> None:
    lib = repo(tmp_path / "lib", commit=True)
    parent = repo(tmp_path / "app", commit=True)
    git(
        parent, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib"
    )
    sub = parent / "vendor" / "lib"
    assert (sub / ".git").is_file()  # gitdir: ../../.git/modules/vendor/lib
    assert detect_namespace(sub) != detect_namespace(parent)
    assert detect_namespace(sub) == detect_namespace(lib)  # its origin is lib's path
    assert detect_namespace(parent / "vendor") == detect_namespace(parent)


def test_marker_folders_and_no_project(tmp_path: Path) -> None:
    marked = tmp_path / "web"
    (marked / "src").mkdir(parents=True)
    (marked / "package.json").write_text("{}")
    key = detect_namespace(marked / "src")
    assert key == make_key("web", str(marked.resolve()))
    moved = tmp_path / "elsewhere" / "web"
    moved.parent.mkdir()
    marked.rename(moved)
    assert detect_namespace(moved) != key  # no repository: the path is the identity
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    assert detect_namespace(lonely) == ""
    assert identity_at(str(tmp_path / "gone" / "app")).key == make_key(
        "app", os.path.realpath(tmp_path / "gone" / "app")
    )


def test_detection_stays_import_light(tmp_path: Path) -> None:
    """Hooks detect the namespace on every event, with this very module."""
    project = repo(tmp_path / "app", remote="git@example.com:x/app.git")
    script = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from memlode.project import detect_namespace\n"
        "key = detect_namespace(sys.argv[1])\n"
        "heavy = {'pathlib', 're', 'hashlib', 'subprocess', 'json'} & (set(sys.modules) - before)\n"
        "print(key, sorted(heavy))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(project)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split(" ", 1) == [detect_namespace(project), "[]\n"]


# ---- two repositories called app, through the CLI and the hooks ------------------------------


def hook(event: str, payload: dict[str, Any], cwd: Path) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "memlode.hooks", event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=cwd,
        timeout=120,
    )
    assert (proc.returncode, proc.stderr) == (0, b"")
    return proc.stdout.decode()


def edit_payload(project: Path, session: str, old: str, new: str) -> dict[str, Any]:
    path = str(project / "billing.py")
    return {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": path, "old_string": old, "new_string": new},
        "tool_response": {
            "filePath": path,
            "structuredPatch": [
                {
                    "oldStart": 3,
                    "oldLines": 1,
                    "newStart": 3,
                    "newLines": 1,
                    "lines": [f"-{old}", f"+{new}"],
                }
            ],
        },
    }


def context_of(output: str) -> str:
    return str(json.loads(output)["hookSpecificOutput"]["additionalContext"]) if output else ""


def ok(result: Any) -> Any:
    assert result.returncode == 0, result.stderr
    return result


def test_two_repositories_called_app_never_mix(
    cli: Cli, tmp_path: Path, memlode_home: Path
) -> None:
    one = repo(tmp_path / "one" / "app", remote="https://example.com/one/app.git")
    two = repo(tmp_path / "two" / "app")
    key_one, key_two = detect_namespace(one), detect_namespace(two)
    (one / "billing.py").write_text("def charge_postgres():\n    return 'postgres'\n")
    (two / "billing.py").write_text("def charge_mysql():\n    return 'mysql'\n")
    ok(cli("store", "Billing stores invoices in Postgres (decided)", "-t", "decision", cwd=one))
    ok(cli("store", "Billing stores invoices in MySQL (decided)", "-t", "decision", cwd=two))
    hook("post-tool", edit_payload(one, "s-one", "db = 'pg9'", "db = 'pg16'"), one)
    hook("post-tool", edit_payload(two, "s-two", "db = 'my5'", "db = 'my8'"), two)

    # each project reads only its own: the CLI, SessionStart and the prompt's recall
    found = ok(cli("search", "billing invoices stored", "--json", cwd=one)).json()
    assert found and all(m["namespace"] == key_one for m in found)
    assert any("Postgres" in m["content"] for m in found)
    assert not any("MySQL" in m["content"] or "my8" in m["content"] for m in found)
    listed = ok(cli("list", "--json", cwd=two)).json()
    assert {m["namespace"] for m in listed} == {key_two} and len(listed) == 2
    start = {"session_id": "s-new", "cwd": str(one), "hook_event_name": "SessionStart"}
    text = context_of(hook("session-start", {**start, "source": "startup"}, one))
    assert "remember about app" in text and "Postgres" in text
    assert "MySQL" not in text and "my8" not in text
    prompt = {**start, "cwd": str(two), "hook_event_name": "UserPromptSubmit"}
    prompt["prompt"] = "where do billing invoices get stored, MySQL or Postgres?"
    injected = context_of(hook("prompt", prompt, two))
    assert "MySQL" in injected and "Postgres" not in injected

    # another project's only when asked: by key, or all with '*'; a shared name is ambiguous
    assert len(ok(cli("list", "-n", key_two, "--json", cwd=one)).json()) == 3  # + the prompt
    assert {m["namespace"] for m in ok(cli("list", "-n", "*", "--json", cwd=one)).json()} == {
        key_one,
        key_two,
    }
    ambiguous = cli("list", "-n", "app", cwd=one)
    assert ambiguous.returncode == 1 and "Traceback" not in ambiguous.stderr
    assert ambiguous.stderr.startswith("memlode: error: namespace 'app' is ambiguous")
    assert key_one in ambiguous.stderr and key_two in ambiguous.stderr

    # code index and map: per project
    ok(cli("index", cwd=one))
    ok(cli("index", cwd=two))
    symbols = ok(cli("symbols", "charge", "--json", cwd=one)).json()
    assert [s["name"] for s in symbols] == ["charge_postgres"]
    two_map = ok(cli("map", cwd=two)).stdout
    assert "charge_mysql" in two_map and "charge_postgres" not in two_map

    listing = ok(cli("namespaces", "--json", cwd=one)).json()
    by_key = {n["namespace"]: n for n in listing}
    assert set(by_key) == {key_one, key_two}
    assert by_key[key_one]["name"] == by_key[key_two]["name"] == "app"
    assert by_key[key_one]["current"] and not by_key[key_two]["current"]
    assert by_key[key_two]["code_files"] == 1 and by_key[key_two]["sessions"] == 1
    text_listing = ok(cli("namespaces", cwd=one)).stdout
    assert f"{key_one}  app" in text_listing and "(this project)" in text_listing

    # deleting: a shared name is refused; a key deletes exactly that project
    refused = cli("namespaces", "--delete", "app", "--yes", cwd=one)
    assert refused.returncode == 1 and "ambiguous" in refused.stderr
    deleted = ok(cli("namespaces", "--delete", key_one, "--yes", "--json", cwd=two)).json()
    assert deleted == {"namespace": key_one, "deleted_memories": 2}
    assert ok(cli("search", "billing invoices", "--json", cwd=one)).json() == []
    assert ok(cli("symbols", "charge", "--json", cwd=one)).json() == []
    code = _column(memlode_home / "memlode.db", "SELECT namespace, count(*) FROM code_files")
    assert code == {key_two: 1}  # its code index went too
    left = ok(cli("list", "-n", "*", "--json", cwd=one)).json()
    assert {m["namespace"] for m in left} == {key_two} and len(left) == 3
    assert [s["name"] for s in ok(cli("symbols", "charge", "--json", cwd=two)).json()] == [
        "charge_mysql"
    ]
    # with one project left, its name alone is enough
    assert len(ok(cli("list", "-n", "app", "--json", cwd=one)).json()) == 3


# ---- MCP ---------------------------------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_reads_its_project_and_deletes_exactly_one(tmp_path: Path) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    one = repo(tmp_path / "one" / "app")
    two = repo(tmp_path / "two" / "app")
    with Engine(Settings.load(), cwd=one) as engine:
        engine.store("Deploys go out on Tuesdays from app one", "decision")
    with Engine(Settings.load(), cwd=two) as engine:
        engine.store("Deploys go out on Fridays from app two", "decision")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memlode", "mcp"],
        env={k: v for k, v in os.environ.items() if k.startswith(("MEMLODE_", "PATH"))},
        cwd=str(one),
    )
    with (tmp_path / "mcp.log").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            recalled = await session.call_tool("recall_memory", {"query": "when do deploys go"})
            assert not recalled.is_error
            contents = [h["content"] for h in (recalled.structured_content or {})["hits"]]
            assert contents == ["Deploys go out on Tuesdays from app one"]
            listed = await session.call_tool("list_namespaces", {})
            out = listed.structured_content or {}
            assert out["current"] == detect_namespace(one)
            assert {n["name"] for n in out["namespaces"]} == {"app"}
            vague = await session.call_tool(
                "delete_namespace", {"namespace": "app", "confirm": True}
            )
            assert vague.is_error and "ambiguous" in vague.content[0].text  # type: ignore[union-attr]
            exact = await session.call_tool(
                "delete_namespace", {"namespace": detect_namespace(two), "confirm": True}
            )
            assert not exact.is_error
            assert (exact.structured_content or {})["deleted_memories"] == 1
    with Engine(Settings.load(), cwd=one) as engine:
        assert [m.content for m in engine.list_memories(namespace="*")] == [
            "Deploys go out on Tuesdays from app one"
        ]


# ---- moving a namespace keeps the vector index right -------------------------------------------


def test_a_moved_namespace_is_found_by_the_vector_index(tmp_path: Path) -> None:
    project = repo(tmp_path / "app")
    key = detect_namespace(project)
    texts = ["Retries back off exponentially", "Cache keys carry the schema version"]
    with Engine(Settings.load({"namespace": "app"})) as engine:  # an old folder-name namespace
        ids = [engine.store(t, "decision").id for t in texts]
        engine.catch_up()  # embeds the rows
        engine.search("retries back off")  # mirrors the index to disk
        index = engine.embeddings.index
        assert index is not None and set(ids) <= set(index.ids)
    with Engine(Settings.load(), cwd=project) as engine:
        assert engine.move_namespace("app")["memories"] == 2
    with Engine(Settings.load(), cwd=project) as engine:
        embedder, index = engine.embeddings.embedder, engine.embeddings.index
        assert embedder is not None and index is not None
        index.refresh(engine.conn)  # a fresh process: loads the mirror, then catches up
        vector = embedder.embed([texts[1]])[0]
        assert ids[1] in [hit[0] for hit in index.search(vector, 5, key)]
        assert index.search(vector, 5, "app") == []


# ---- an old store upgrades in place ------------------------------------------------------------

NOW = "2026-11-01T00:00:00.000000Z"


def _old_store(path: Path) -> sqlite3.Connection:
    """A store as memlode left it before migration 0010 (schema 1-9, nothing newer)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL)"
    )
    conn.execute("BEGIN")
    for version, name, script in MIGRATIONS:
        if version >= 10:
            break
        for statement in split_statements(script):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, NOW))
    return conn


def _memory(
    conn: sqlite3.Connection,
    memory_id: str,
    namespace: str,
    content: str,
    session: str | None = None,
    **meta: str,
) -> None:
    conn.execute(
        "INSERT INTO memories (id, content, content_hash, namespace, metadata, session_id,"
        " source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            memory_id,
            content,
            memory_id,
            namespace,
            json.dumps(meta),
            session,
            "hook" if session else "memory",
            NOW,
            NOW,
        ),
    )


def _session(conn: sqlite3.Connection, session_id: str, namespace: str, cwd: Path) -> None:
    conn.execute(
        "INSERT INTO sessions (id, namespace, source, started_at, metadata) VALUES (?, ?, ?, ?, ?)",
        (session_id, namespace, "claude-code", NOW, json.dumps({"cwd": str(cwd)})),
    )


def _node(
    conn: sqlite3.Connection, node_id: str, kind: str, namespace: str, memory: str | None = None
) -> None:
    conn.execute(
        "INSERT INTO graph_nodes (id, kind, name, namespace, memory_id, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (node_id, kind, node_id[-20:], namespace, memory, NOW, NOW),
    )


def _edge(conn: sqlite3.Connection, source: str, target: str, relationship: str) -> None:
    conn.execute(
        "INSERT INTO graph_edges (source_id, target_id, relationship, created_at)"
        " VALUES (?, ?, ?, ?)",
        (source, target, relationship, NOW),
    )


def _build_old_store(path: Path, one: Path, two: Path, gone: Path, solo: Path) -> None:
    """Folder-name namespaces as the old rule made them: 'app' from three roots (two live
    repositories and a deleted folder), 'solo' from one, 'notes' with no path at all."""
    conn = _old_store(path)
    _session(conn, "s-one", "app", one / "src")
    _session(conn, "s-two", "app", two)
    _session(conn, "s-gone", "app", gone / "lib")
    _session(conn, "s-solo", "solo", solo)
    _memory(
        conn, "m-one-edit", "app", "Edited auth.py: token expiry", "s-one", file=f"{one}/auth.py"
    )
    _memory(conn, "m-one-turn", "app", "User: why 401? Assistant: expiry", cwd=str(one))
    _memory(conn, "m-one-doc", "app", "Project memory: tokens live in SQLite")
    _memory(conn, "m-two-read", "app", "Read main.py; defines run", "s-two", file=f"{two}/main.py")
    _memory(conn, "m-gone", "app", "Ran the old migration script", "s-gone")
    _memory(conn, "m-no-path", "app", "Remember to rotate the signing key")
    _memory(conn, "m-solo", "solo", "Solo decided on SQLite", "s-solo")
    _memory(conn, "m-solo-bare", "solo", "Solo note stored from the CLI")
    _memory(conn, "m-notes", "notes", "A note in a namespace the user named")
    # the doc index of repository one
    conn.execute(
        "INSERT INTO doc_files (id, namespace, path, root, scope, hash, mtime, size, chunks,"
        " indexed_at) VALUES (1, 'app', ?, ?, 'project', 'h', ?, 10, 1, ?)",
        (str(one / "MEMORY.md"), str(one), NOW, NOW),
    )
    conn.execute("INSERT INTO doc_chunks (file_id, chunk, memory_id) VALUES (1, 0, 'm-one-doc')")
    # the graph: memory and file nodes, and repository two's code index
    file_one, file_two = f"file:{one}/auth.py", f"file:{two}/main.py"
    symbol = "sym:app:main.run"
    _node(conn, "m-one-edit", "memory", "app", "m-one-edit")
    _node(conn, file_one, "file", "app")
    _edge(conn, "m-one-edit", file_one, "RELATES_TO")
    _node(conn, file_two, "file", "app")
    _node(conn, symbol, "function", "app")
    _edge(conn, file_two, symbol, "CONTAINS")
    conn.execute(
        "INSERT INTO graph_centrality (node_id, pagerank, computed_at) VALUES (?, 0.5, ?)",
        (symbol, NOW),
    )
    conn.execute(
        "INSERT INTO code_files (id, namespace, root, path, node_id, language, hash, size,"
        " mtime_ns, indexed_at) VALUES (7, 'app', ?, 'main.py', ?, 'python', 'h', 1, 1, ?)",
        (str(two), file_two, NOW),
    )
    conn.execute(
        "INSERT INTO code_symbols (file_id, namespace, node_id, name, qualified_name, kind,"
        " line_start, line_end) VALUES (7, 'app', ?, 'run', 'main.run', 'function', 1, 2)",
        (symbol,),
    )
    conn.execute(
        "INSERT INTO code_refs (file_id, namespace, source_id, kind, name, target_id,"
        " relationship) VALUES (7, 'app', ?, 'call', 'run', ?, 'CALLS')",
        (file_two, symbol),
    )
    for ns in ("app", "solo"):
        conn.execute(
            "INSERT INTO store_settings (key, value) VALUES (?, 'map')", (f"session_map:{ns}",)
        )
    conn.execute("COMMIT")
    conn.close()


def _column(path: Path, sql: str, *params: object) -> dict[str, Any]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute(sql, params).fetchall())
    finally:
        conn.close()


def test_an_old_store_splits_folder_name_namespaces_by_path(cli: Cli, tmp_path: Path) -> None:
    one = repo(tmp_path / "one" / "app", remote="git@example.com:one/app.git")
    two = repo(tmp_path / "two" / "app")
    (one / "src").mkdir()
    gone = tmp_path / "gone" / "app"  # deleted since: keyed by its recorded path
    solo = tmp_path / "solo"
    solo.mkdir()
    (solo / "pyproject.toml").write_text("")
    db = tmp_path / "old.db"
    _build_old_store(db, one, two, gone, solo)
    key_one, key_two = detect_namespace(one), detect_namespace(two)
    key_gone, key_solo = identity_at(str(gone)).key, detect_namespace(solo)
    assert key_one == make_key("app", "example.com/one/app")

    # the first command to open the store upgrades it
    ok(cli("--db", str(db), "stats", cwd=tmp_path))
    memories = _column(db, "SELECT id, namespace FROM memories")
    assert memories == {
        "m-one-edit": key_one,  # its session's cwd
        "m-one-turn": key_one,  # its own cwd (a transcript turn)
        "m-one-doc": key_one,  # its doc file's root
        "m-two-read": key_two,
        "m-gone": key_gone,
        "m-no-path": "app",  # no path, and 'app' was three projects: it stays
        "m-solo": key_solo,
        "m-solo-bare": key_solo,  # 'solo' was one project: all of it moves
        "m-notes": "notes",
    }
    assert _column(db, "SELECT id, namespace FROM sessions") == {
        "s-one": key_one,
        "s-two": key_two,
        "s-gone": key_gone,
        "s-solo": key_solo,
    }
    nodes = _column(db, "SELECT id, namespace FROM graph_nodes")
    symbol = f"sym:{key_two}:main.run"
    assert nodes == {
        "m-one-edit": key_one,
        f"file:{one}/auth.py": key_one,
        f"file:{two}/main.py": key_two,
        symbol: key_two,
    }
    edges = _column(db, "SELECT source_id || ' ' || relationship, target_id FROM graph_edges")
    assert edges == {
        f"file:{two}/main.py CONTAINS": symbol,
        "m-one-edit RELATES_TO": f"file:{one}/auth.py",
    }
    assert _column(db, "SELECT node_id, pagerank FROM graph_centrality") == {symbol: 0.5}
    assert _column(db, "SELECT node_id, namespace FROM code_symbols") == {symbol: key_two}
    assert _column(db, "SELECT source_id, target_id FROM code_refs") == {
        f"file:{two}/main.py": symbol
    }
    assert _column(db, "SELECT path, namespace FROM code_files") == {"main.py": key_two}
    assert _column(db, "SELECT path, namespace FROM doc_files") == {str(one / "MEMORY.md"): key_one}
    assert set(
        _column(db, "SELECT key, value FROM store_settings WHERE key LIKE 'session_map:%'")
    ) == {
        f"session_map:{key_solo}"  # moved with 'solo'; 'app' was split, its map is rebuilt
    }
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        legacy = {
            r[0]: (json.loads(r[1]), r[2])
            for r in conn.execute("SELECT namespace, keys, reason FROM namespace_legacy")
        }
    finally:
        conn.close()
    assert legacy == {
        "app": (sorted([key_one, key_two, key_gone]), "several-projects"),
        "solo": ([key_solo], ""),
        "notes": ([], "no-paths"),
    }

    # moved rows are searchable where they now live; the old name still reads what stayed
    hits = ok(cli("--db", str(db), "search", "token expiry", "--json", cwd=one)).json()
    ids = {h["id"] for h in hits}
    assert {"m-one-edit", "m-one-turn"} <= ids <= {"m-one-edit", "m-one-turn", "m-one-doc"}
    stayed = ok(cli("--db", str(db), "list", "-n", "app", "--json", cwd=tmp_path)).json()
    assert [m["id"] for m in stayed] == ["m-no-path"]

    # doctor says what stayed and how to place it
    problems = cli("--db", str(db), "doctor", "--json", cwd=tmp_path).json()["problems"]
    warned = [p for p in problems if p.startswith("namespace ")]
    assert len(warned) == 2
    assert warned[0].startswith("namespace 'app': 1 memories and 0 sessions stayed")
    assert "memlode namespaces --move app" in warned[0] and key_one in warned[0]
    assert warned[1].startswith("namespace 'notes': 1 memories")
    # ... a namespace the settings pin is a choice, not a leftover
    pinned = cli(
        "--db", str(db), "doctor", "--json", cwd=tmp_path, env={"MEMLODE_NAMESPACE": "notes"}
    )
    assert [p for p in pinned.json()["problems"] if p.startswith("namespace 'notes'")] == []

    # placing them: --move into the project (run inside it), --keep for a chosen name
    moved = ok(
        cli("--db", str(db), "namespaces", "--move", "app", "--yes", "--json", cwd=one)
    ).json()
    assert (moved["from"], moved["to"], moved["memories"]) == ("app", key_one, 1)
    kept = ok(cli("--db", str(db), "namespaces", "--keep", "notes", cwd=tmp_path))
    assert "kept namespace 'notes'" in kept.stdout
    problems = cli("--db", str(db), "doctor", "--json", cwd=tmp_path).json()["problems"]
    assert not [p for p in problems if p.startswith("namespace ")]
    assert _column(
        db, "SELECT id, namespace FROM memories WHERE id IN ('m-no-path', 'm-notes')"
    ) == {
        "m-no-path": key_one,
        "m-notes": "notes",
    }
    again = cli("--db", str(db), "namespaces", "--keep", "notes", cwd=tmp_path)
    assert again.returncode == 3 and again.stderr.startswith("memlode: error: ")


def test_a_move_leaves_duplicates_and_merges_nothing_else(cli: Cli, tmp_path: Path) -> None:
    project = repo(tmp_path / "app")
    key = detect_namespace(project)
    ok(cli("store", "Same words in both", cwd=project))
    ok(cli("store", "Same words in both", "-n", "old", cwd=project))
    ok(cli("store", "Only in old", "-n", "old", cwd=project))
    moved = ok(cli("namespaces", "--move", "old", "--yes", "--json", cwd=project)).json()
    assert (moved["to"], moved["memories"], moved["duplicates"]) == (key, 1, 1)
    by_ns = ok(cli("list", "-n", "*", "--json", cwd=project)).json()
    assert sorted((m["namespace"], m["content"]) for m in by_ns) == [
        (key, "Only in old"),
        (key, "Same words in both"),
        ("old", "Same words in both"),
    ]
    outside = cli("namespaces", "--move", "old", "--yes", cwd=tmp_path)  # no project here
    assert outside.returncode == 1 and "--to" in outside.stderr
    missing = cli("namespaces", "--move", "nothing-here", "--yes", cwd=project)
    assert missing.returncode == 3
