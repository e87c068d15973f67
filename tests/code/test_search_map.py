"""Symbol search ranking, the repo map (with and without heat), impact and symbol details."""

from __future__ import annotations

import pytest

from memlode.code.indexer import index_project
from memlode.code.navigate import find_symbols, impact, symbol_details
from memlode.code.repomap import CHARS_PER_TOKEN, repo_map
from memlode.code.search import TYPE_INTENT_FACTOR, query_terms, search_symbols
from memlode.errors import NotFound

APP = {
    "core/__init__.py": "",
    "core/users.py": (
        "class UserStore:\n"
        '    """Keeps user accounts in the database."""\n'
        "    def getUserName(self, user_id):\n"
        '        """Return the display name of a user."""\n'
        "        return load_row(user_id)\n"
        "    def get_user(self, user_id):\n        return load_row(user_id)\n\n"
        "def load_row(key):\n"
        '    """Read one row from the table by its primary key."""\n'
        "    return None\n"
    ),
    "core/auth.py": (
        "from core.users import UserStore\n\n"
        "def login(name, password):\n"
        '    """Check a password and open a session."""\n'
        "    store = UserStore()\n    return store.getUserName(name)\n\n"
        "def logout(session):\n    return login(None, None)\n"
    ),
    "web/views.py": (
        "from core.auth import login, logout\n\n"
        "def login_view(request):\n    return login(request, None)\n\n"
        "def logout_view(request):\n    return logout(request)\n"
    ),
    "tools/report.py": "def weekly_report():\n    return 1\n",
    "tests/test_auth.py": "from core.auth import login\n\ndef test_login():\n    login(1, 2)\n",
}


@pytest.fixture
def indexed(tmp_path, db, write):
    root = write(tmp_path / "app", APP)
    index_project(db, root, "app", workers=1)
    return db


def names(hits):
    return [h.qualified_name for h in hits]


def test_query_terms_are_sanitised():
    assert query_terms("getUserName") == ["getusername", "get", "user", "name"]
    assert query_terms('how is the "password" checked? NEAR(a b) OR *') == [
        "password",
        "checked",
        "near",
        "b",
    ]
    assert query_terms("the of and") == []


def test_search_ranks_exact_then_prefix_then_words(indexed):
    assert names(search_symbols(indexed, "login", namespace="app"))[:2] == [
        "core.auth.login",
        "web.views.login_view",
    ]
    # identifier parts: "user name" finds getUserName
    assert names(search_symbols(indexed, "user name", namespace="app"))[0] == (
        "core.users.UserStore.getUserName"
    )
    # words of the doc
    assert names(search_symbols(indexed, "read a row by primary key", namespace="app"))[0] == (
        "core.users.load_row"
    )
    assert names(search_symbols(indexed, "where are accounts stored", namespace="app"))[0] == (
        "core.users.UserStore"
    )
    # kind filter; the test function ranks below the real one
    only = search_symbols(indexed, "login", namespace="app", kind="test")
    assert names(only) == ["tests.test_auth.test_login"]
    # hostile input never reaches FTS syntax
    for text in ['"', "NEAR(", "a* OR b", "-x", "(", "login'--", ""]:
        search_symbols(indexed, text, namespace="app")


def test_a_question_naming_a_kind_of_type_prefers_types(indexed):
    # the same words ("class", "the", "for" are no search terms), once asking for a class
    plain = search_symbols(indexed, "user display name", namespace="app", explain=True)
    typed = search_symbols(
        indexed, "the class for the user display name", namespace="app", explain=True
    )
    before = {h.qualified_name: h for h in plain}
    after = {h.qualified_name: h for h in typed}
    cls, method = "core.users.UserStore", "core.users.UserStore.getUserName"
    assert after[cls].score == before[cls].score
    assert after[method].score == pytest.approx(before[method].score * TYPE_INTENT_FACTOR)
    assert after[method].signals and after[method].signals["factor"] == TYPE_INTENT_FACTOR
    assert before[method].signals and before[method].signals["factor"] == 1.0


def test_repo_map_orders_by_rank_and_fits_the_budget(indexed):
    first = repo_map(indexed, "app", tokens=200)
    assert [f.path for f in first.files][:2] == ["core/users.py", "core/auth.py"]
    assert len(first.text) <= 200 * CHARS_PER_TOKEN
    assert "  class UserStore" in first.text and "    def getUserName(self, user_id)" in first.text
    assert repo_map(indexed, "app", tokens=200).text == first.text  # deterministic
    small = repo_map(indexed, "app", tokens=20)
    assert len(small.text) <= 20 * CHARS_PER_TOKEN


def test_heat_moves_a_cold_file_to_the_top(indexed):
    cold = repo_map(indexed, "app", tokens=400)
    assert "tools/report.py" not in [f.path for f in cold.files][:1]
    hot = repo_map(indexed, "app", tokens=400, heat={"tools/report.py": 5.0, "web/views.py": 1.0})
    assert hot.files[0].path == "tools/report.py"
    focused = repo_map(indexed, "app", tokens=400, focus=["web/views.py"])
    assert focused.files[0].path == "web/views.py"


TINY = {
    "core.py": (
        "def connect(url):\n    return url\n\n\ndef query(conn, sql):\n    return [conn, sql]\n"
    ),
    "cli.py": (
        "from core import connect, query\n\n\n"
        "def run(args):\n    return query(connect(args[0]), args[1])\n"
    ),
    "app.py": (
        "from core import connect, query\n\n\n"
        "def index():\n    return query(connect('db'), 'select 1')\n\n\n"
        "def health():\n    return 'ok'\n\n\ndef version():\n    return '1'\n"
    ),
}


def test_an_entry_file_does_not_outrank_what_it_uses(tmp_path, db, write):
    # app.py teleports ENTRY_BOOST times more, so that rank flows from it into core.py; that
    # boost once also kept app.py itself above core.py, which both other files use
    index_project(db, write(tmp_path / "tiny", TINY), "tiny", workers=1)
    the_map = repo_map(db, "tiny", tokens=400)
    ranks = {f.path: f.rank for f in the_map.files}
    assert the_map.files[0].path == "core.py"
    assert ranks["core.py"] > ranks["app.py"] > ranks["cli.py"]  # app.py: three definitions
    # the boost still steers the symbols: what app.py uses ranks above app.py's own functions
    rank_of = {s.name: s.rank for f in the_map.files for s in f.symbols}
    assert min(rank_of["connect"], rank_of["query"]) > rank_of["index"]


def test_impact_follows_reverse_calls_with_depth(indexed):
    result = impact(indexed, "app", "load_row", depth=3)
    got = {(h.node_id.removeprefix("sym:app:"), h.depth, h.relationship) for h in result.hits}
    assert {
        ("core.users.UserStore.getUserName", 1, "CALLS"),
        ("core.users.UserStore.get_user", 1, "CALLS"),
        ("core.auth.login", 2, "CALLS"),
        ("core.auth.logout", 3, "CALLS"),
        ("web.views.login_view", 3, "CALLS"),
        ("tests.test_auth.test_login", 3, "CALLS"),
    } <= got
    assert all(h.depth <= 3 for h in result.hits)
    # nearest first; in a hop callers before importers, code before tests, then by PageRank
    order = {"CALLS": 0, "INHERITS": 1, "IMPORTS": 2}
    assert result.hits == sorted(
        result.hits,
        key=lambda h: (
            h.depth,
            order.get(h.relationship, 3),
            h.path.startswith("tests/"),
            -h.pagerank,
            h.node_id,
        ),
    )
    # a class counts with its methods
    by_class = impact(indexed, "app", "UserStore", depth=1)
    assert "sym:app:core.auth.login" in {h.node_id for h in by_class.hits}
    with pytest.raises(NotFound):
        impact(indexed, "app", "no_such_thing")


def test_find_and_describe_symbols(indexed):
    assert [s.qualified_name for s in find_symbols(indexed, "app", "UserStore.get_user")] == [
        "core.users.UserStore.get_user"
    ]
    assert [s.qualified_name for s in find_symbols(indexed, "app", "login")] == ["core.auth.login"]
    details = symbol_details(indexed, "app", "core.auth.login")
    assert {c[0].removeprefix("sym:app:") for c in details.callers} >= {
        "core.auth.logout",
        "web.views.login_view",
    }
    assert {c[0].removeprefix("sym:app:") for c in details.callees} == {
        "core.users.UserStore",
        "core.users.UserStore.getUserName",
    }


def test_dependencies_centrality_and_clusters(indexed):
    from memlode.code.navigate import clusters, dependencies, top_central

    deps = dependencies(indexed, "app", "core.auth.logout", depth=2)
    got = {(h.node_id.removeprefix("sym:app:"), h.depth) for h in deps.hits}
    assert ("core.auth.login", 1) in got and ("core.users.UserStore.getUserName", 2) in got
    central = top_central(indexed, "app", kinds=["function", "method"], limit=3)
    assert len(central) == 3
    assert central == sorted(central, key=lambda c: (-c.pagerank, c.node_id))
    groups = clusters(indexed, "app", limit=5)
    assert groups and all(len({n.cluster for n in g}) == 1 for g in groups)
