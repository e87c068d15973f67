"""Re-indexing named files: the same tables as a full index of the same tree, without a walk;
the walker's rules (ignore files, skipped folders) hold for the named files too."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from bench.realcode import real_code
from tests.code.test_indexer import PROJECT

from memlode.code.indexer import index_project
from memlode.code.reindex import reindex_paths, roots_containing
from memlode.code.walk import sources_at, walk_project
from memlode.storage.db import Database

TABLES = {
    "files": "SELECT path, language, module, prefix, hash, size, lines, status FROM code_files",
    "symbols": "SELECT node_id, name, qualified_name, kind, parent, container, signature,"
    " doc, line_start, line_end, properties FROM code_symbols",
    "refs": "SELECT f.path, r.kind, r.name, r.qualifier, r.alias, r.line, r.count, r.source_id,"
    " r.target_id, t.path FROM code_refs r JOIN code_files f ON f.id = r.file_id"
    " LEFT JOIN code_files t ON t.id = r.target_file",
    "nodes": "SELECT id, kind, name, properties FROM graph_nodes",
    "edges": "SELECT source_id, target_id, relationship, weight, properties FROM graph_edges",
    "packages": "SELECT p.node_id, p.name, p.ecosystem, f.path FROM code_packages p"
    " JOIN code_files f ON f.id = p.file_id",
}


def tables(db: Database) -> dict[str, list[tuple[object, ...]]]:
    """Each table's rows, sorted; JSON text as its value (a first index and a later one write
    the same properties with different spacing)."""
    return {
        name: sorted(tuple(_value(v) for v in r) for r in db.query(sql))
        for name, sql in TABLES.items()
    }


def _value(value: object) -> object:
    if isinstance(value, str) and value.startswith("{"):
        return json.dumps(json.loads(value), sort_keys=True)
    return value


def same_as_full(db: Database, root: Path, tmp_path: Path, namespace: str) -> None:
    """The store holds exactly what a fresh full index of the tree as it is now holds."""
    fresh = Database(tmp_path / f"fresh-{namespace}.db")
    try:
        index_project(fresh, root, namespace, workers=1, centrality=False)
        got, want = tables(db), tables(fresh)
        for name in TABLES:
            assert got[name] == want[name], name
    finally:
        fresh.close()


def test_a_renamed_function_an_added_and_a_deleted_file(tmp_path, db, write):
    root = write(tmp_path / "shop", PROJECT)
    index_project(db, root, "shop", workers=1, centrality=False)
    cart = root / "shop/cart.py"
    cart.write_text(cart.read_text().replace("sum_prices", "add_prices"))
    (root / "shop/discount.py").write_text("def apply_discount(cart):\n    return validate(cart)\n")
    (root / "shop/base.py").unlink()
    runs = reindex_paths(db, [cart, root / "shop/discount.py", root / "shop/base.py"])
    assert [(r.parsed, r.deleted, r.walked) for r in runs] == [(2, 1, False)]
    assert runs[0].changed_files == ["shop/base.py", "shop/cart.py", "shop/discount.py"]
    names = {r[0] for r in db.query("SELECT name FROM code_symbols")}
    assert "add_prices" in names and "sum_prices" not in names and "Model" not in names
    same_as_full(db, root, tmp_path, "shop")
    # base.py comes back: what pointed at it resolves again, as in a full run
    (root / "shop/base.py").write_text(PROJECT["shop/base.py"])
    reindex_paths(db, [root / "shop/base.py"])
    same_as_full(db, root, tmp_path, "shop")


def test_an_unchanged_file_is_not_parsed(tmp_path, db, write):
    root = write(tmp_path / "shop", PROJECT)
    index_project(db, root, "shop", workers=1, centrality=False)
    before = tables(db)
    (runs,) = reindex_paths(db, [root / "app.py"])
    assert (runs.parsed, runs.unchanged, runs.changed_files) == (0, 1, [])
    assert tables(db) == before


def test_a_new_package_init_renames_the_modules_beside_it(tmp_path, db, write):
    root = write(tmp_path / "p", {"src/lib/util.py": "def helper():\n    pass\n", "x.py": ""})
    index_project(db, root, "p", workers=1, centrality=False)
    (root / "src/lib/__init__.py").write_text("")
    reindex_paths(db, [root / "src/lib/__init__.py"])
    names = {r[0] for r in db.query("SELECT qualified_name FROM code_symbols")}
    assert names == {"lib.util.helper"}
    same_as_full(db, root, tmp_path, "p")


def test_ignored_skipped_and_outside_files_are_left_alone(tmp_path, db, write):
    root = write(tmp_path / "shop", {**PROJECT, ".gitignore": "generated/\n*_local.py\n"})
    index_project(db, root, "shop", workers=1, centrality=False)
    before = tables(db)
    write(root, {
        "generated/api.py": "def generated_api():\n    pass\n",
        "shop/secret_local.py": "def local_only():\n    pass\n",
        "node_modules/lib/index.js": "function vendored() {}\n",
        ".hidden/tool.py": "def hidden_tool():\n    pass\n",
    })  # fmt: skip
    outside = write(tmp_path / "elsewhere", {"other.py": "def outsider():\n    pass\n"})
    given = [
        root / "generated/api.py",
        root / "shop/secret_local.py",
        root / "node_modules/lib/index.js",
        root / ".hidden/tool.py",
        outside / "other.py",
    ]
    runs = reindex_paths(db, given)
    assert [r.changed_files for r in runs] == [[]]  # only the root's four, none indexed
    assert tables(db) == before
    same_as_full(db, root, tmp_path, "shop")


def test_a_file_that_becomes_ignored_is_removed_and_an_ignore_file_walks_the_root(
    tmp_path, db, write
):
    root = write(tmp_path / "shop", PROJECT)
    index_project(db, root, "shop", workers=1, centrality=False)
    (root / ".gitignore").write_text("app.py\n")
    (runs,) = reindex_paths(db, [root / ".gitignore"])
    assert runs.walked and runs.deleted == 1
    assert db.one("SELECT count(*) FROM code_files WHERE path = 'app.py'")[0] == 0
    same_as_full(db, root, tmp_path, "shop")


def test_a_deleted_folder_removes_its_files(tmp_path, db, write):
    root = write(tmp_path / "shop", PROJECT)
    index_project(db, root, "shop", workers=1, centrality=False)
    shutil.rmtree(root / "shop")
    (runs,) = reindex_paths(db, [root / "shop"])
    assert runs.deleted == 3 and not runs.walked
    same_as_full(db, root, tmp_path, "shop")


def test_named_files_follow_the_walk_on_real_code(tmp_path, db):
    """Every file under a real project, named one by one, is what the walk lists."""
    root = real_code("flask")
    listed = {s.path: s for s in walk_project(root)}
    everything = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    found = {k: v for k, v in sources_at(root, everything).items() if v is not None}
    assert found == listed and len(listed) > 50


def test_real_code_edits_match_a_full_index(tmp_path, db):
    root = tmp_path / "flask"
    shutil.copytree(real_code("flask"), root)
    index_project(db, root, "flask", workers=1, centrality=False)
    app = root / "src/flask/app.py"
    text = app.read_text()
    assert re.search(r"^    def make_response\(", text, re.M)
    app.write_text(text.replace("def make_response(", "def build_response(", 1))
    helpers = root / "src/flask/helpers.py"
    extra = "\n\ndef fresh_helper():\n    return make_response()\n"
    helpers.write_text(helpers.read_text() + extra)
    (root / "src/flask/signals.py").unlink()
    runs = reindex_paths(db, [app, helpers, root / "src/flask/signals.py"])
    assert [r.changed_files for r in runs] == [
        ["src/flask/app.py", "src/flask/helpers.py", "src/flask/signals.py"]
    ]
    same_as_full(db, root, tmp_path, "flask")


def test_a_path_belongs_to_every_root_that_contains_it(tmp_path):
    roots = [("a", "/w/proj"), ("b", "/w/proj/sub"), ("c", "/w/project")]
    found = roots_containing(roots, ["/w/proj/sub/x.py", "/w/project/y.py", "/w/other.py"])
    assert found == {
        ("a", "/w/proj"): ["sub/x.py"],
        ("b", "/w/proj/sub"): ["x.py"],
        ("c", "/w/project"): ["y.py"],
    }
