"""The code-intelligence and memory-file tools through ``memlode mcp`` over stdio: each with
valid input against a project the test writes, each with one invalid call (an isError result),
and ``search_symbols`` ranking exactly like ``memlode symbols``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memlode.project import detect_namespace

pytestmark = pytest.mark.anyio

CODE_TOOLS = {
    "index_codebase",
    "search_symbols",
    "get_symbol_info",
    "get_dependencies",
    "get_impact",
    "get_clusters",
    "get_cross_repo",
    "get_pagerank",
    "search_code",
    "get_repo_map",
}
DOCS_TOOLS = {"memory_get", "memory_search", "memory_store", "docs_reindex"}

FILES = {
    "shop/__init__.py": "",
    "shop/money.py": '''"""Money amounts."""


def round_cents(amount):
    """Round an amount to whole cents."""
    return round(amount * 100) / 100


def add_tax(amount, rate):
    """Add sales tax to an amount."""
    return round_cents(amount * (1 + rate))
''',
    "shop/cart.py": '''from shop.money import add_tax, round_cents


class Cart:
    """A shopping cart."""

    def __init__(self):
        self.items = []

    def total(self):
        """The cart total with tax."""
        return add_tax(sum(self.items), 0.2)

    def subtotal(self):
        return round_cents(sum(self.items))
''',
    "shop/checkout.py": '''from shop.cart import Cart


def checkout(items):
    """Charge the customer for a cart."""
    cart = Cart()
    cart.items = list(items)
    return cart.total()
''',
    "ui/price.go": """package ui

func FormatPrice(cents int) string {
	return Itoa(cents)
}

func Itoa(n int) string {
	return ""
}
""",
}

# (tool, arguments, text the error must contain): one invalid call per tool that takes
# arguments (docs_reindex takes none, and the SDK ignores arguments a tool does not declare)
BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("index_codebase", {"path": "does/not/exist"}, "not a folder"),
    ("search_symbols", {"query": "cart", "limit": 0}, "limit"),
    ("get_symbol_info", {"symbol": "no_such_symbol"}, "no_such_symbol"),
    ("get_dependencies", {"symbol": "checkout", "depth": 0}, "depth"),
    ("get_impact", {"symbol": "nothing_like_this"}, "nothing_like_this"),
    ("get_clusters", {"limit": 0}, "limit"),
    ("get_cross_repo", {"namespace": ""}, "namespace"),
    ("get_pagerank", {"kind": "gizmo"}, "kind"),
    ("search_code", {"query": ""}, "query"),
    ("get_repo_map", {"focus": ["no/such/file.py"]}, "no/such/file.py"),
    ("memory_get", {"path": "../../etc/passwd"}, "memory"),
    ("memory_search", {"query": "x", "k": 0}, "k"),
    ("memory_store", {"name": "auth", "text": "x", "mode": "overwrite"}, "mode"),
]


@pytest.fixture
def project(workdir: Path) -> Path:
    for rel, text in FILES.items():
        path = workdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return workdir


async def test_code_tools(harness, project: Path, cli: Any) -> None:
    key = detect_namespace(project)  # the project's identity key, e.g. proj-1a2b3c4d
    async with harness.session() as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert names >= CODE_TOOLS | DOCS_TOOLS

        # nothing indexed yet: a clear error that names the fix
        early = await session.call_tool("get_impact", {"symbol": "round_cents"})
        assert "index" in harness.error_text(early)

        # wait: the vectors too, for the search by meaning below
        stats = harness.ok(await session.call_tool("index_codebase", {"wait": True}))
        assert stats["namespace"] == key and stats["parsed"] == len(FILES) + 1
        assert stats["symbols"] >= 9
        again = harness.ok(await session.call_tool("index_codebase", {"path": str(project)}))
        assert again["parsed"] == 0 and again["unchanged"] == stats["files"]

        found = harness.ok(await session.call_tool("search_symbols", {"query": "round_cents"}))
        assert found["namespace"] == key
        assert found["hits"][0]["qualified_name"] == "shop.money.round_cents"
        go = harness.ok(
            await session.call_tool("search_symbols", {"query": "FormatPrice", "kind": "function"})
        )
        assert go["hits"][0]["path"] == "ui/price.go"

        code = harness.ok(await session.call_tool("search_code", {"query": "sales tax"}))
        assert code["hits"][0]["name"] == "add_tax"
        assert "return round_cents(amount * (1 + rate))" in code["hits"][0]["code"]

        info = harness.ok(await session.call_tool("get_symbol_info", {"symbol": "Cart"}))
        assert info["kind"] == "class" and info["path"] == "shop/cart.py"
        assert {"total", "subtotal"} <= {m["name"] for m in info["members"]}
        assert "checkout" in {c["name"] for c in info["callers"]}

        deps = harness.ok(
            await session.call_tool("get_dependencies", {"symbol": "Cart.total", "depth": 2})
        )
        by_depth = {(h["name"], h["depth"]) for h in deps["hits"]}
        assert ("add_tax", 1) in by_depth and ("round_cents", 2) in by_depth

        impact = harness.ok(await session.call_tool("get_impact", {"symbol": "round_cents"}))
        assert impact["symbol"]["qualified_name"] == "shop.money.round_cents"
        hit_names = {h["name"] for h in impact["hits"]}
        assert {"add_tax", "subtotal", "total", "checkout"} <= hit_names

        # a function described in words: resolved by symbol search, its dependants first
        described = harness.ok(
            await session.call_tool(
                "get_impact", {"symbol": "round an amount to whole cents", "depth": 1}
            )
        )
        assert described["symbol"]["qualified_name"] == "shop.money.round_cents"
        assert described["resolved"]["candidates"][0]["qualified_name"] == (
            "shop.money.round_cents"
        )
        first = described["hits"][0]
        assert first["via"] == "shop.money.round_cents"
        assert first["name"] in {"add_tax", "subtotal"}

        explained = harness.ok(
            await session.call_tool("search_symbols", {"query": "whole cents", "explain": True})
        )
        top = explained["hits"][0]
        assert top["name"] == "round_cents"
        assert {"name", "words", "body", "vector", "factor"} <= set(top["signals"])
        shown = cli("symbols", "whole cents", "--explain", "--json", cwd=project).json()
        assert shown[0]["signals"] == top["signals"]

        ranked = harness.ok(await session.call_tool("get_pagerank", {"kind": "function"}))
        assert ranked["nodes"][0]["name"] == "round_cents"
        assert {n["kind"] for n in ranked["nodes"]} == {"function"}

        groups = harness.ok(await session.call_tool("get_clusters", {}))
        assert groups["namespace"] == key and groups["clusters"]
        go_group = next(
            g for g in groups["clusters"] if any(m["name"] == "FormatPrice" for m in g["members"])
        )
        assert not any(m["name"] == "round_cents" for m in go_group["members"])

        links = harness.ok(await session.call_tool("get_cross_repo", {}))
        assert links["links"] == []

        repo_map = harness.ok(await session.call_tool("get_repo_map", {"tokens": 512}))
        assert repo_map["files"][0]["path"] == "shop/money.py"
        assert "def round_cents(amount)" in repo_map["text"]
        focused = harness.ok(
            await session.call_tool("get_repo_map", {"focus": ["ui/price.go"], "tokens": 512})
        )
        assert focused["files"][0]["path"] == "ui/price.go"
        assert focused["focus"] == ["ui/price.go"]

        # the MCP tool and the CLI rank through the same engine call
        for query in ("cart total", "round", "tax"):
            mcp_hits = harness.ok(
                await session.call_tool("search_symbols", {"query": query, "limit": 20})
            )["hits"]
            shell = cli("symbols", query, "--limit", "20", "--json", cwd=project)
            assert shell.returncode == 0, shell.stderr
            cli_hits = shell.json()
            assert [h["node_id"] for h in mcp_hits] == [h["node_id"] for h in cli_hits]
            assert [h["score"] for h in mcp_hits] == [h["score"] for h in cli_hits]

        for name, args, expected in BAD_CALLS:
            if name.startswith("memory") or name == "docs_reindex":
                continue
            text = harness.error_text(await session.call_tool(name, args))
            assert expected.lower() in text.lower(), (name, args, text)
            assert "internal error" not in text, (name, text)
        assert "Traceback" not in harness.server_stderr()


async def test_memory_file_tools(harness, workdir: Path) -> None:
    (workdir / "MEMORY.md").write_text(
        "# Project memory\n\nWe deploy on Fridays only after the canary passes.\n",
        encoding="utf-8",
    )
    async with harness.session() as session:
        report = harness.ok(await session.call_tool("docs_reindex", {}))
        assert report["docs_only"] is False and report["indexed"] == 1
        assert harness.ok(await session.call_tool("docs_reindex", {}))["skipped"] == 1

        got = harness.ok(await session.call_tool("memory_get", {"path": "MEMORY.md"}))
        assert "canary passes" in got["content"] and got["scope"] == "project"

        stored = harness.ok(
            await session.call_tool(
                "memory_store",
                {"name": "auth", "text": "Tokens are rotated every 24 hours by the auth worker."},
            )
        )
        assert stored["ref"] == "memory/auth.md" and stored["chunks_added"] >= 1
        assert (workdir / "memory" / "auth.md").read_text(encoding="utf-8").startswith("Tokens")
        harness.ok(
            await session.call_tool(
                "memory_store", {"name": "auth", "text": "Refresh tokens last 30 days."}
            )
        )
        note = harness.ok(await session.call_tool("memory_get", {"path": "memory/auth.md"}))
        assert "rotated every 24 hours" in note["content"] and "30 days" in note["content"]

        found = harness.ok(
            await session.call_tool("memory_search", {"query": "token rotation", "k": 3})
        )
        assert found["results"][0]["ref"] == "memory/auth.md"
        deploy = harness.ok(await session.call_tool("memory_search", {"query": "canary deploy"}))
        assert deploy["results"][0]["ref"] == "MEMORY.md"

        for name, args, expected in BAD_CALLS:
            if not (name.startswith("memory") or name == "docs_reindex"):
                continue
            text = harness.error_text(await session.call_tool(name, args))
            assert expected.lower() in text.lower(), (name, args, text)
            assert "internal error" not in text, (name, text)


async def test_recall_with_impact_names_what_depends_on_a_memorys_code(
    harness, project: Path
) -> None:
    async with harness.session() as session:
        bare = harness.ok(
            await session.call_tool("recall_with_impact", {"query": "anything at all"})
        )
        assert bare["code_indexed"] is False and bare["hits"] == []
        harness.ok(await session.call_tool("index_codebase", {}))
        for content, metadata in [
            ("Edited shop/money.py: round_cents rounds half up now", {}),
            ("Tax is added per cart, never per item", {"diff": {"symbols": ["add_tax"]}}),
            ("Read the checkout flow", {"file": str(project / "shop" / "checkout.py")}),
        ]:
            stored = await session.call_tool(
                "store_memory", {"content": content, "metadata": metadata}
            )
            harness.ok(stored)
        found = harness.ok(
            await session.call_tool(
                "recall_with_impact", {"query": "round_cents rounds half up", "k": 1}
            )
        )
        [hit] = found["hits"]
        [code] = hit["code"]
        assert code["kind"] == "file" and code["path"] == "shop/money.py"
        dependents = {(d["name"], d["depth"]) for d in code["dependents"]}
        assert ("cart.py", 1) in dependents  # imports the file
        assert {"total", "subtotal"} <= {name for name, _ in dependents}
        assert "shop/checkout.py" in found["files_affected"]  # two hops: checkout -> Cart.total

        tax = harness.ok(
            await session.call_tool("recall_with_impact", {"query": "tax per cart", "k": 1})
        )
        [symbol] = tax["hits"][0]["code"]
        assert symbol["name"] == "add_tax" and "total" in {d["name"] for d in symbol["dependents"]}
        read = harness.ok(
            await session.call_tool("recall_with_impact", {"query": "checkout flow", "k": 1})
        )
        assert read["hits"][0]["code"][0]["path"] == "shop/checkout.py"

        bad = await session.call_tool("recall_with_impact", {"query": "tax", "depth": 0})
        assert "depth" in harness.error_text(bad)


async def test_graph_path_components_and_layers_through_the_tools(harness, project: Path) -> None:
    async with harness.session() as session:
        harness.ok(await session.call_tool("index_codebase", {}))
        chain = harness.ok(
            await session.call_tool("get_path", {"source": "checkout", "target": "round_cents"})
        )
        assert chain["reachable"] and chain["path"][0]["name"] == "checkout"
        assert chain["path"][-1]["name"] == "round_cents" and chain["hops"] >= 2
        files = harness.ok(
            await session.call_tool(
                "get_path", {"source": "shop/checkout.py", "target": "shop/money.py"}
            )
        )
        assert [s["path"] for s in files["path"]] == [
            "shop/checkout.py",
            "shop/cart.py",
            "shop/money.py",
        ]
        layers = harness.ok(await session.call_tool("get_layers", {}))["layers"]
        where = {m["path"]: layer["layer"] for layer in layers for m in layer["members"]}
        assert where["shop/money.py"] < where["shop/cart.py"] < where["shop/checkout.py"]
        cycles = harness.ok(await session.call_tool("get_components", {"strong": True}))
        assert cycles["total"] == 0
        symbols = harness.ok(
            await session.call_tool("get_components", {"level": "symbol", "limit": 1})
        )
        assert {"checkout", "Cart", "round_cents"} <= {
            m["name"] for m in symbols["components"][0]["members"]
        }
        bad = await session.call_tool("get_path", {"source": "checkout", "target": "nowhere"})
        assert "nowhere" in harness.error_text(bad)
        worse = await session.call_tool("get_components", {"level": "galaxy"})
        assert "level" in harness.error_text(worse)
