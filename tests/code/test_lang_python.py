"""Python extraction: kinds, parents, docstrings, visibility, routes, tests, imports."""

from __future__ import annotations

SAMPLE = '''\
"""Module doc."""
import os.path
import json as j
from . import sibling
from .models import Model, Base as B
from ..util import *

MAX_RETRIES = 3
logger = None


class Color(Enum):
    RED = 1
    green = 2


class Session(B, metaclass=Meta):
    """A user session.

    Keeps cookies.
    """

    TIMEOUT = 30

    def request(self, method: str, url: str) -> Response:
        """Send a request."""
        prepared = self.prepare(method)
        return send(prepared)

    def _prepare(self):
        def inner():
            return helper()
        return inner()

    @property
    def cookies(self):
        return j.dumps({})


def send(request):
    return os.path.join("a", request)


@app.route("/users/<id>", methods=["GET", "POST"])
def user(id):
    return Model.load(id)
'''


def test_python_symbols_kinds_and_parents(extract, symbols):
    ex = extract("pkg/api.py", SAMPLE, "pkg.api")
    assert symbols(ex) == [
        ("constant", "pkg.api.MAX_RETRIES", None),
        ("class", "pkg.api.Color", None),
        ("constant", "pkg.api.Color.RED", "pkg.api.Color"),
        ("constant", "pkg.api.Color.green", "pkg.api.Color"),
        ("class", "pkg.api.Session", None),
        ("constant", "pkg.api.Session.TIMEOUT", "pkg.api.Session"),
        ("method", "pkg.api.Session.request", "pkg.api.Session"),
        ("method", "pkg.api.Session._prepare", "pkg.api.Session"),
        ("method", "pkg.api.Session.cookies", "pkg.api.Session"),
        ("function", "pkg.api.send", None),
        ("endpoint", "pkg.api.user", None),
    ]


def test_python_details(extract):
    ex = extract("pkg/api.py", SAMPLE, "pkg.api")
    by = {s.qualified: s for s in ex.symbols}
    session = by["pkg.api.Session"]
    assert session.doc == "A user session.\n\nKeeps cookies."
    assert session.signature == "class Session(B, metaclass=Meta)"
    assert (session.line, session.end_line) == (17, 37)
    request = by["pkg.api.Session.request"]
    assert request.signature == "def request(self, method: str, url: str) -> Response"
    assert request.doc == "Send a request."
    assert str(by["pkg.api.Session._prepare"].visibility) == "private"
    assert str(request.visibility) == "public"
    user = by["pkg.api.user"]
    assert user.properties == {"route": "/users/<id>", "methods": "GET,POST"}


def test_python_references(extract, refs):
    ex = extract("pkg/api.py", SAMPLE, "pkg.api")
    assert refs(ex, "import") == {
        ("import", "os", "", None),
        ("import", "os.path", "", None),
        ("import", "json", "", None),
        ("import", "pkg", "sibling", None),
        ("import", "pkg.models", "Model", None),
        ("import", "pkg.models", "Base", None),
        ("import", "util", "*", None),
    }
    aliases = {(r.qualifier, r.name): r.alias for r in ex.references if str(r.kind) == "import"}
    assert aliases[("pkg.models", "Base")] == "B"
    assert aliases[("json", "")] == "j"
    assert refs(ex, "inherit") == {
        ("inherit", "", "Enum", "pkg.api.Color"),
        ("inherit", "", "B", "pkg.api.Session"),
    }
    assert refs(ex, "call") == {
        ("call", "self", "prepare", "pkg.api.Session.request"),
        ("call", "", "send", "pkg.api.Session.request"),
        # the nested function is not a symbol: its call counts for the method around it
        ("call", "", "helper", "pkg.api.Session._prepare"),
        ("call", "", "inner", "pkg.api.Session._prepare"),
        ("call", "", "property", "pkg.api.Session"),
        ("call", "j", "dumps", "pkg.api.Session.cookies"),
        ("call", "os.path", "join", "pkg.api.send"),
        ("call", "app", "route", None),
        ("call", "Model", "load", "pkg.api.user"),
    }
    assert refs(ex, "use") == {
        ("use", "", "str", "pkg.api.Session.request"),
        ("use", "", "Response", "pkg.api.Session.request"),
    }


IMPORTS_AROUND = """\
import copy
from requests import compat
from requests.cookies import CookieJar
from requests.utils import (
    quote,
    unquote,
)


@pytest.mark.parametrize("a", (1, 2))
def test_one(a):
    import winreg

    return winreg.OpenKey(a)


@pytest.mark.parametrize("a", (1, 2))
def test_two(a):
    import winreg

    return winreg.QueryValueEx(a)
"""


def test_python_imports_come_in_source_order(extract):
    # captures() does not list nodes in source order (here: 1, 3, 12, 4, 2, 19); the imports
    # are read in source order, so a repeated one keeps the first line, every time
    runs = [extract("tests/test_x.py", IMPORTS_AROUND, "tests.test_x") for _ in range(3)]
    lines = [[r.line for r in ex.references if str(r.kind) == "import"] for ex in runs]
    assert lines[0] == [1, 2, 3, 4, 4, 12]
    assert lines[1] == lines[2] == lines[0]
    winreg = [r for r in runs[0].references if r.qualifier == "winreg" and not r.name]
    assert [(r.line, r.count) for r in winreg] == [(12, 2)]


def test_python_tests_and_relative_imports_in_packages(extract, symbols, refs):
    ex = extract(
        "tests/test_api.py",
        "from ..core import thing\n"
        "class TestSession:\n    def test_get(self):\n        thing()\n"
        "def test_plain():\n    pass\n"
        "def helper():\n    pass\n",
        "proj.tests.test_api",
    )
    assert symbols(ex) == [
        ("class", "proj.tests.test_api.TestSession", None),
        ("test", "proj.tests.test_api.TestSession.test_get", "proj.tests.test_api.TestSession"),
        ("test", "proj.tests.test_api.test_plain", None),
        ("function", "proj.tests.test_api.helper", None),
    ]
    assert ("import", "proj.core", "thing", None) in refs(ex, "import")


def test_python_module_names_follow_packages():
    from memlode.code.lang.python import python_module_name

    paths = frozenset({"src/pkg/__init__.py", "src/pkg/sub/__init__.py", "src/pkg/sub/m.py"})
    assert python_module_name("src/pkg/sub/m.py", paths) == "pkg.sub.m"
    assert python_module_name("src/pkg/__init__.py", paths) == "pkg"
    assert python_module_name("scripts/tool.py", paths) == "scripts.tool"
    assert python_module_name("tool.py", paths) == "tool"


def test_python_namespace_subpackages_keep_the_package_name():
    from memlode.code.lang.python import python_module_name

    paths = frozenset({"src/flask/__init__.py", "src/flask/sansio/app.py", "json/__init__.py"})
    assert python_module_name("src/flask/sansio/app.py", paths) == "flask.sansio.app"
    assert python_module_name("json/decoder.py", paths) == "json.decoder"
    assert python_module_name("web/views.py", paths) == "web.views"
