"""C#: extraction of a snippet, resolution across files and namespaces, and pythonnet's
runtime indexed through the CLI."""

from __future__ import annotations

from pathlib import Path

from bench.realcode import real_code
from tests.conftest import run_memlode

from memlode.code.extract import extract_file
from memlode.code.indexer import index_project
from memlode.code.walk import walk_project
from memlode.storage.db import Database

CONTROLLER = """\
using System;
using System.Collections.Generic;
using Acme.Core;
using Json = Newtonsoft.Json.JsonConvert;

namespace Acme.Web
{
    /// <summary>
    /// Serves <see cref="User"/> records.
    /// </summary>
    public class UserController : ControllerBase, IDisposable
    {
        public const int Limit = 5;
        private static readonly string Name = "users";
        private int count;

        public UserController(Repo repo) : base(repo) { }

        /// <summary>Lists users.</summary>
        [HttpGet("/users")]
        public List<User> List(string q) { Helper(q); this.Save(); return Repo.Find<User>(q); }

        internal void Helper(string q) { var r = new Repo(); r.Load(q); Console.WriteLine(q); }

        [Fact]
        public void ListsUsers() { }

        public enum State { On, Off }

        void Save() { }
        public void Dispose() { }
    }

    interface IRepo : IBase { void Find(string q); }
}
"""


def test_csharp(extract, symbols, refs):
    ex = extract("src/Web/UserController.cs", CONTROLLER)
    assert (ex.module, ex.prefix) == ("Acme.Web", "Acme.Web.")
    p = "Acme.Web."
    assert symbols(ex) == [
        ("class", p + "UserController", None),
        ("constant", p + "UserController.Limit", p + "UserController"),
        ("constant", p + "UserController.Name", p + "UserController"),
        ("method", p + "UserController.UserController", p + "UserController"),
        ("endpoint", p + "UserController.List", p + "UserController"),
        ("method", p + "UserController.Helper", p + "UserController"),
        ("test", p + "UserController.ListsUsers", p + "UserController"),
        ("type", p + "UserController.State", p + "UserController"),
        ("constant", p + "UserController.State.On", p + "UserController.State"),
        ("constant", p + "UserController.State.Off", p + "UserController.State"),
        ("method", p + "UserController.Save", p + "UserController"),
        ("method", p + "UserController.Dispose", p + "UserController"),
        ("interface", p + "IRepo", None),
        ("method", p + "IRepo.Find", p + "IRepo"),
    ]
    by = {s.qualified.removeprefix(p): s for s in ex.symbols}
    assert by["UserController"].doc == "Serves User records."
    assert by["UserController.List"].doc == "Lists users."
    assert by["UserController.List"].signature == "public List<User> List(string q)"
    assert by["UserController.List"].properties == {"route": "/users", "methods": "GET"}
    visibility = {q: str(s.visibility) for q, s in by.items()}
    assert visibility["UserController.Name"] == "private"
    assert visibility["UserController.Helper"] == "internal"
    assert visibility["UserController.Save"] == "private"  # a member without a modifier
    assert visibility["IRepo"] == "internal"  # a top-level type without one
    assert visibility["IRepo.Find"] == "public"
    assert refs(ex, "import") == {
        ("import", "System", "*", None),
        ("import", "System.Collections.Generic", "*", None),
        ("import", "Acme.Core", "*", None),
        ("import", "Newtonsoft.Json", "JsonConvert", None),
    }
    # a base's kind is not written: interfaces are the I-names
    assert refs(ex, "inherit", "implement", "extend") == {
        ("inherit", "", "ControllerBase", p + "UserController"),
        ("implement", "", "IDisposable", p + "UserController"),
        ("extend", "", "IBase", p + "IRepo"),
    }
    assert refs(ex, "call") == {
        ("call", "", "Helper", p + "UserController.List"),
        ("call", "this", "Save", p + "UserController.List"),
        ("call", "Repo", "Find", p + "UserController.List"),
        ("call", "", "Repo", p + "UserController.Helper"),
        ("call", "r", "Load", p + "UserController.Helper"),
        ("call", "Console", "WriteLine", p + "UserController.Helper"),
    }
    scoped = extract("B.cs", "namespace A.B;\nclass X { void M() {} }\n")
    assert symbols(scoped) == [("class", "A.B.X", None), ("method", "A.B.X.M", "A.B.X")]
    nested = extract("C.cs", "namespace A { namespace B { class X { } } }\n")
    assert symbols(nested) == [("class", "A.B.X", None)]


PROJECT = {
    "Core/Repo.cs": (
        "namespace Acme.Core\n{\n    public class Repo : Store, IRepo\n    {\n"
        "        public static Repo Open() { return new Repo(); }\n"
        "        public User Find(string q) { return Load(q); }\n    }\n\n"
        "    public interface IRepo { User Find(string q); }\n}\n"
    ),
    "Core/Store.cs": (
        "namespace Acme.Core;\n\npublic abstract class Store\n{\n"
        "    protected User Load(string q) => Parse(q);\n"
        "    private static User Parse(string q) => null;\n\n"
        "    public class Options { public static Options Default() => new Options(); }\n}\n"
    ),
    "Web/Controller.cs": (
        "using Acme.Core;\n\nnamespace Acme.Web\n{\n    public class Controller\n    {\n"
        "        public object Get(string q)\n        {\n"
        "            var repo = Repo.Open();\n            Store.Options.Default();\n"
        "            return Render(repo.Find(q));\n        }\n\n"
        "        object Render(object x) => x;\n    }\n}\n"
    ),
    # methods named like the others: a call resolves by its names, not by guessing
    "Web/Other.cs": (
        "namespace Acme.Web { class Other { void Open() {} void Default() {} void Find() {}"
        " void Load() {} void Render() {} } }\n"
    ),
}


def test_csharp_resolves_across_files(tmp_path, db, write, edges):
    root = write(tmp_path / "acme", PROJECT)
    stats = index_project(db, root, "acme", workers=1)
    assert (stats.files, stats.parsed) == (4, 4)
    got = edges(db, root, "acme", ("CALLS", "INHERITS", "IMPLEMENTS", "IMPORTS"))
    assert {
        ("Acme.Web.Controller.Get", "Acme.Core.Repo.Open", "CALLS"),  # using Acme.Core
        ("Acme.Web.Controller.Get", "Acme.Core.Store.Options.Default", "CALLS"),  # nested
        ("Acme.Web.Controller.Get", "Acme.Web.Controller.Render", "CALLS"),
        ("Acme.Core.Repo.Open", "Acme.Core.Repo", "CALLS"),  # new Repo()
        ("Acme.Core.Repo.Find", "Acme.Core.Store.Load", "CALLS"),  # inherited, other file
        ("Acme.Core.Store.Load", "Acme.Core.Store.Parse", "CALLS"),
        ("Acme.Core.Repo", "Acme.Core.Store", "INHERITS"),  # same namespace, other file
        ("Acme.Core.Repo", "Acme.Core.IRepo", "IMPLEMENTS"),
        ("Web/Controller.cs", "Core/Repo.cs", "IMPORTS"),
    } <= got


RUNTIME = "src/runtime/"


def test_pythonnet_indexed_through_the_cli(memlode_home):
    """pythonnet 3.0.5's sdist (PyPI): facts read in src/runtime/PythonEngine.cs, Runtime.cs
    and PythonTypes/*.cs."""
    folder = real_code("csharp-pythonnet")
    csharp = [f for f in walk_project(folder) if f.language == "csharp"]
    assert len(csharp) == 148
    errors = {}
    for f in csharp:
        count = extract_file(f.path, Path(f.abspath).read_bytes()).errors
        if count:
            errors[f.path] = count
    # the grammar's limits with #if: one member declared in both branches of an #if/#else
    # (Finalizer.cs:51), an #if inside an argument list (PyObject.cs:110)
    assert errors == {RUNTIME + "Finalizer.cs": 1, RUNTIME + "PythonTypes/PyObject.cs": 2}

    indexed = run_memlode("index", str(folder), "--json")
    assert indexed.returncode == 0, indexed.stderr
    stats = indexed.json()
    assert stats["files"] == 183  # and 34 Python files and pyproject.toml
    ns = stats["namespace"]
    with Database(memlode_home / "memlode.db") as db:
        statuses = dict(
            db.conn.execute(
                "SELECT status, count(*) FROM code_files WHERE namespace = ? GROUP BY status",
                (ns,),
            ).fetchall()
        )
    assert statuses == {"ok": 183}

    hits = run_memlode("symbols", "PythonEngine", "--kind", "class", "-n", ns, "--json").json()
    engine = hits[0]
    assert engine["qualified_name"] == "Python.Runtime.PythonEngine"
    assert (engine["path"], engine["line"]) == (RUNTIME + "PythonEngine.cs", 16)
    assert engine["doc"] == "This class provides the public interface of the Python runtime."

    # PythonEngine.Initialize calls Runtime.Initialize (PythonEngine.cs:213; the overloads
    # from line 181 are one symbol)
    impact = run_memlode("impact", "Python.Runtime.Runtime.Initialize", "-n", ns, "--json")
    callers = {(h["name"], h["path"], h["line"]) for h in impact.json()["hits"]}
    assert ("Initialize", RUNTIME + "PythonEngine.cs", 181) in callers

    sequence = run_memlode("impact", "PySequence", "--depth", "1", "-n", ns, "--json").json()
    assert sequence["symbol"]["qualified_name"] == "Python.Runtime.PySequence"
    inheriting = {h["name"] for h in sequence["hits"] if h["relationship"] == "INHERITS"}
    assert inheriting == {"PyList", "PyString", "PyTuple"}  # `: PySequence` in each
