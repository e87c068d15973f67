"""Indexing into a real store: graph rows, incremental re-index, equivalence with a full index."""

from __future__ import annotations

import gc
import os
import sqlite3
from pathlib import Path

import pytest

from memlode.code.indexer import index_project, remove_index
from memlode.storage.code_repo import CodeRepo, RefRow
from memlode.storage.db import Database

PROJECT = {
    "pyproject.toml": "[project]\nname = 'shop'\ndependencies = ['requests>=2']\n",
    "shop/__init__.py": "from .cart import Cart\n",
    "shop/base.py": "class Model:\n    def save(self):\n        return validate(self)\n\n"
    "def validate(obj):\n    return True\n",
    "shop/cart.py": (
        "from shop.base import Model\n\n"
        "class Cart(Model):\n"
        "    def total(self):\n        return sum_prices(self)\n"
        "    def checkout(self):\n        self.save()\n        return self.total()\n\n"
        "def sum_prices(cart):\n    return 0\n"
    ),
    "app.py": "from shop import Cart\n\ndef main():\n    return Cart().checkout()\n",
}


def edges(db: Database, namespace: str = "shop") -> set[tuple[str, str, str]]:
    rows = db.conn.execute(
        "SELECT e.source_id, e.target_id, e.relationship FROM graph_edges e"
        " JOIN graph_nodes n ON n.id = e.source_id WHERE n.namespace = ?",
        (namespace,),
    )
    return {(a, b, r) for a, b, r in rows}


def short(edge_set: set[tuple[str, str, str]], root: Path) -> set[tuple[str, str, str]]:
    """Node ids without the namespace and root, for readable assertions."""

    def cut(node: str) -> str:
        return node.replace("sym:shop:", "").replace(f"file:{root.as_posix()}/", "")

    return {(cut(a), cut(b), r) for a, b, r in edge_set}


def test_index_builds_symbols_nodes_and_edges(tmp_path, db, write):
    root = write(tmp_path / "shop", PROJECT)
    stats = index_project(db, root, "shop", workers=1)
    assert (stats.files, stats.parsed, stats.skipped, stats.packages) == (5, 5, 0, 1)
    assert stats.symbols == 8
    got = short(edges(db), root.resolve())
    assert {
        ("shop.cart.Cart.checkout", "shop.base.Model.save", "CALLS"),
        ("shop.cart.Cart.checkout", "shop.cart.Cart.total", "CALLS"),
        ("shop.cart.Cart.total", "shop.cart.sum_prices", "CALLS"),
        ("shop.base.Model.save", "shop.base.validate", "CALLS"),
        ("shop.cart.Cart", "shop.base.Model", "INHERITS"),
        ("shop/cart.py", "shop.base.Model", "IMPORTS"),
        ("app.py", "shop.cart.Cart", "IMPORTS"),
        ("app.main", "shop.cart.Cart", "CALLS"),
        ("app.main", "shop.cart.Cart.checkout", "CALLS"),
        ("shop/cart.py", "shop.cart.Cart", "CONTAINS"),
        ("shop.cart.Cart", "shop.cart.Cart.total", "CONTAINS"),
        ("pkg:pypi:shop", "pkg:pypi:requests", "DEPENDS_ON"),
    } <= got
    kinds = dict(db.conn.execute("SELECT id, kind FROM graph_nodes WHERE namespace = 'shop'"))
    assert kinds["sym:shop:shop.cart.Cart"] == "class"
    assert kinds["sym:shop:shop.cart.Cart.total"] == "method"
    assert kinds[f"file:{root.resolve().as_posix()}/app.py"] == "file"
    assert kinds["pkg:pypi:shop"] == "package"
    # centrality was computed for the new graph
    assert db.one("SELECT count(*) FROM graph_centrality")[0] == len(kinds)


def test_unchanged_reindex_parses_nothing(tmp_path, db, write):
    root = write(tmp_path / "shop", PROJECT)
    index_project(db, root, "shop", workers=1)
    before = edges(db)
    again = index_project(db, root, "shop", workers=1)
    assert (again.parsed, again.unchanged, again.deleted) == (0, 5, 0)
    # a touched file is hashed, found equal, and not parsed again
    os.utime(root / "app.py", ns=(1, 1))
    touched = index_project(db, root, "shop", workers=1)
    assert touched.parsed == 0 and edges(db) == before


def test_incremental_edits_match_a_full_index(tmp_path, db, write):
    root = write(tmp_path / "shop", PROJECT)
    index_project(db, root, "shop", workers=1)
    # edit: total() no longer calls sum_prices, and a new function appears
    (root / "shop/cart.py").write_text(
        "from shop.base import Model\nfrom shop.discount import apply_discount\n\n"
        "class Cart(Model):\n"
        "    def total(self):\n        return 0\n"
        "    def checkout(self):\n        self.save()\n        return apply_discount(self)\n\n"
        "def sum_prices(cart):\n    return 0\n"
    )
    # add: a file defining what cart.py now calls
    (root / "shop/discount.py").write_text("def apply_discount(cart):\n    return validate(cart)\n")
    # delete: base.py goes away, so Model, save and validate vanish
    (root / "shop/base.py").unlink()
    stats = index_project(db, root, "shop", workers=1)
    assert (stats.parsed, stats.deleted) == (2, 1)
    got = short(edges(db), root.resolve())
    assert ("shop.cart.Cart.total", "shop.cart.sum_prices", "CALLS") not in got
    assert ("shop.cart.Cart.checkout", "shop.discount.apply_discount", "CALLS") in got
    assert not any("shop.base" in a or "shop.base" in b for a, b, _ in got)
    assert db.one("SELECT count(*) FROM graph_nodes WHERE id LIKE 'sym:shop:shop.base%'")[0] == 0
    # the same tree indexed from scratch gives the same graph
    fresh = Database(tmp_path / "fresh.db")
    index_project(fresh, root, "shop", workers=1)
    assert edges(db) == edges(fresh)
    refs = "SELECT kind, name, qualifier, target_id FROM code_refs ORDER BY 1, 2, 3, 4"
    assert [tuple(r) for r in db.query(refs)] == [tuple(r) for r in fresh.query(refs)]
    # and bringing base.py back restores what pointed at it
    (root / "shop/base.py").write_text(PROJECT["shop/base.py"])
    index_project(db, root, "shop", workers=1)
    assert ("shop.cart.Cart", "shop.base.Model", "INHERITS") in short(edges(db), root.resolve())
    fresh.close()


def test_new_package_folder_renames_modules(tmp_path, db, write):
    root = write(tmp_path / "p", {"src/lib/util.py": "def helper():\n    pass\n"})
    index_project(db, root, "p", workers=1)
    names = {r[0] for r in db.query("SELECT qualified_name FROM code_symbols")}
    assert names == {"src.lib.util.helper"}
    (root / "src/lib/__init__.py").write_text("")
    index_project(db, root, "p", workers=1)
    names = {r[0] for r in db.query("SELECT qualified_name FROM code_symbols")}
    assert names == {"lib.util.helper"}


def test_remove_index(tmp_path, db, write):
    root = write(tmp_path / "shop", PROJECT)
    index_project(db, root, "shop", workers=1)
    assert remove_index(db, "shop") == 5
    assert db.one("SELECT count(*) FROM code_symbols")[0] == 0
    assert db.one("SELECT count(*) FROM graph_nodes WHERE namespace = 'shop'")[0] == 0


def test_a_first_index_leaves_the_connection_as_it_found_it(tmp_path, db, write):
    root = write(tmp_path / "shop", PROJECT)
    index_project(db, root, "shop", workers=1)
    assert db.one("PRAGMA ignore_check_constraints")[0] == 0
    assert db.one("PRAGMA foreign_keys")[0] == 1  # off for the first index's transaction only
    assert gc.isenabled()
    # the bulk insert checks relationships itself, and the schema's CHECK still holds after it
    a, b = db.query("SELECT id FROM graph_nodes WHERE kind = 'file' ORDER BY id LIMIT 2")
    with pytest.raises(ValueError, match="LIKES"), db.write() as conn:
        CodeRepo(db).insert_edges(conn, {(a[0], b[0], "LIKES"): 1.0})
    with pytest.raises(sqlite3.IntegrityError), db.write() as conn:
        conn.execute(
            "INSERT INTO graph_edges (source_id, target_id, relationship, weight, created_at)"
            " VALUES (?, ?, 'LIKES', 1, 'now')",
            (a[0], b[0]),
        )


def test_bulk_inserts_check_references_when_sqlite_does_not(tmp_path, db, write):
    """A first index writes with foreign keys off; CodeRepo then checks what SQLite would."""
    root = write(tmp_path / "shop", PROJECT)
    index_project(db, root, "shop", workers=1)
    repo = CodeRepo(db)
    (node,) = db.query("SELECT id FROM graph_nodes WHERE kind = 'file' LIMIT 1")
    (file_id,) = db.query("SELECT id FROM code_files LIMIT 1")
    bad_ref = RefRow("file:x", "call", "f", file_id=10_000)
    good_ref = RefRow(node[0], "call", "f", file_id=file_id[0])
    for foreign_keys in (False, True):  # the same error either way
        with pytest.raises(sqlite3.IntegrityError), db.write(foreign_keys=foreign_keys) as conn:
            repo.insert_edges(conn, {(node[0], "sym:shop:nowhere", "CALLS"): 1.0})
        with pytest.raises(sqlite3.IntegrityError), db.write(foreign_keys=foreign_keys) as conn:
            repo.insert_refs(conn, "shop", [good_ref, bad_ref])
        assert db.one("PRAGMA foreign_keys")[0] == 1  # back on after a failed write
    with db.write(foreign_keys=False) as conn:
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 0
        repo.insert_refs(conn, "shop", [good_ref])
    assert db.one("SELECT count(*) FROM code_refs WHERE source_id = ?", (node[0],))[0] >= 1


def test_two_roots_in_one_namespace_keep_apart(tmp_path, db, write):
    # the same module in two roots of one namespace: the second root's symbol gets its own id
    one = write(tmp_path / "one", {"util.py": "def helper():\n    return 1\n"})
    two = write(tmp_path / "two", {"util.py": "def helper():\n    return 2\n", "app.py": (
        "from util import helper\n\ndef main():\n    return helper()\n"
    )})  # fmt: skip
    index_project(db, one, "shared", workers=1)
    stats = index_project(db, two, "shared", workers=1)
    assert stats.symbols == 2
    ids = {r[0].removeprefix("sym:shared:") for r in db.query("SELECT node_id FROM code_symbols")}
    assert ids == {"util.helper", "util.helper~util.py", "app.main"}
    got = edges(db, "shared")
    assert ("sym:shared:app.main", "sym:shared:util.helper~util.py", "CALLS") in got
    assert (f"file:{two.resolve().as_posix()}/util.py", "sym:shared:util.helper~util.py",
            "CONTAINS") in got  # fmt: skip
