"""Kotlin: extraction of a snippet, resolution across files and packages, and the Android
sources of expo-image-picker indexed through the CLI."""

from __future__ import annotations

from pathlib import Path

from bench.realcode import real_code
from tests.conftest import run_memlode

from memlode.code.extract import extract_file
from memlode.code.indexer import index_project
from memlode.code.walk import walk_project
from memlode.storage.db import Database

CONTROLLER = """\
package com.acme.web

import com.acme.core.Repo
import com.acme.util.*
import kotlinx.coroutines.launch as go

/**
 * Serves users.
 */
class UserController(private val repo: Repo) : Base(repo), Handler {
    val limit = 5

    /** Lists users. */
    fun list(q: String): List<User> {
        helper(q)
        this.save()
        return Repo.find(q)
    }

    private fun helper(q: String) = repo.load(q).also { println(it) }

    companion object {
        const val MAX = 10
        fun create(): UserController = UserController(Repo())
    }

    @Test
    fun listsUsers() {}

    enum class State { ON, OFF }

    object Registry {
        fun add() {}
    }
}

interface Handler : Runnable {
    fun handle()
}

internal fun String.shout(): String = uppercase()
typealias Users = List<User>
val TOP = 1
"""


def test_kotlin(extract, symbols, refs):
    ex = extract("src/main/kotlin/com/acme/web/UserController.kt", CONTROLLER)
    assert (ex.module, ex.prefix) == ("com.acme.web", "com.acme.web.")
    p = "com.acme.web."
    # a companion object is not a symbol: what it holds is reached through its class
    assert symbols(ex) == [
        ("class", p + "UserController", None),
        ("method", p + "UserController.list", p + "UserController"),
        ("method", p + "UserController.helper", p + "UserController"),
        ("constant", p + "UserController.MAX", p + "UserController"),
        ("method", p + "UserController.create", p + "UserController"),
        ("test", p + "UserController.listsUsers", p + "UserController"),
        ("type", p + "UserController.State", p + "UserController"),
        ("constant", p + "UserController.State.ON", p + "UserController.State"),
        ("constant", p + "UserController.State.OFF", p + "UserController.State"),
        ("class", p + "UserController.Registry", p + "UserController"),
        ("method", p + "UserController.Registry.add", p + "UserController.Registry"),
        ("interface", p + "Handler", None),
        ("method", p + "Handler.handle", p + "Handler"),
        ("function", p + "shout", None),
        ("type", p + "Users", None),
        ("constant", p + "TOP", None),
    ]
    by = {s.qualified.removeprefix(p): s for s in ex.symbols}
    assert by["UserController"].doc == "Serves users."
    assert by["UserController.list"].doc == "Lists users."
    assert by["UserController.list"].signature == "fun list(q: String): List<User>"
    assert by["UserController.listsUsers"].signature == "fun listsUsers()"
    assert str(by["UserController.helper"].visibility) == "private"
    assert str(by["shout"].visibility) == "internal"
    assert refs(ex, "import") == {
        ("import", "com.acme.core", "Repo", None),
        ("import", "com.acme.util", "*", None),
        ("import", "kotlinx.coroutines", "launch", None),
    }
    assert {r.alias for r in ex.references if r.name == "launch"} == {"go"}
    # the supertype with a constructor call is the superclass
    assert refs(ex, "extend", "implement") == {
        ("extend", "", "Base", p + "UserController"),
        ("implement", "", "Handler", p + "UserController"),
        ("extend", "", "Runnable", p + "Handler"),
    }
    assert refs(ex, "call") == {
        ("call", "", "helper", p + "UserController.list"),
        ("call", "this", "save", p + "UserController.list"),
        ("call", "Repo", "find", p + "UserController.list"),
        ("call", "repo", "load", p + "UserController.helper"),
        ("call", "?", "also", p + "UserController.helper"),
        ("call", "", "println", p + "UserController.helper"),
        ("call", "", "UserController", p + "UserController.create"),
        ("call", "", "Repo", p + "UserController.create"),
        ("call", "", "uppercase", p + "shout"),
    }


PROJECT = {
    "src/main/kotlin/com/acme/core/Repo.kt": (
        "package com.acme.core\n\nclass Repo : Store() {\n"
        "    fun find(q: String): String = load(q)\n\n"
        "    companion object {\n        fun open(): Repo = Repo()\n    }\n}\n"
    ),
    "src/main/kotlin/com/acme/core/Store.kt": (
        "package com.acme.core\n\nopen class Store {\n"
        "    protected fun load(q: String): String = parse(q)\n\n"
        "    private fun parse(q: String) = q\n\n"
        "    object Options {\n        fun defaults() = 1\n    }\n}\n\n"
        "fun String.normalized(): String = trim()\n"
    ),
    "src/main/kotlin/com/acme/web/Controller.kt": (
        "package com.acme.web\n\nimport com.acme.core.Repo\nimport com.acme.core.Store\n"
        "import com.acme.core.normalized\n\nclass Controller {\n"
        "    fun get(q: String): String {\n        val repo = Repo.open()\n"
        "        Store.Options.defaults()\n        return render(repo.find(q.normalized()))\n"
        "    }\n\n    private fun render(x: String) = x\n}\n"
    ),
    # methods named like the others: a call resolves by its names, not by guessing
    "src/main/kotlin/com/acme/web/Other.kt": (
        "package com.acme.web\n\nclass Other {\n    fun open() {}\n    fun defaults() {}\n"
        "    fun load() {}\n    fun render() {}\n    fun normalized() {}\n}\n"
    ),
}


EXPRESSION_BODIES = """package demo

class Router {
    fun route(a: Int, b: Int): Int = a + b
}
fun <T> ident(x: T): T = x
fun top(a: Int) = helper(a) * 2
fun String.shout(): String = uppercase()
object Holder {
    override fun toString() = "holder"
}
fun helper(x: Int): Int { return x }
"""


def test_expression_bodied_functions_are_indexed_as_block_bodies_are(extract, symbols, refs):
    """``fun route(a: Int, b: Int): Int = a + b`` is a function like one with a block body:
    a symbol with its signature, and the calls in its expression are its references."""
    ex = extract("src/Route.kt", EXPRESSION_BODIES)
    found = {name for _, name, _ in symbols(ex)}
    assert {"demo.Router.route", "demo.ident", "demo.top", "demo.shout"} <= found
    assert "demo.Holder.toString" in found
    route = next(s for s in ex.symbols if s.qualified == "demo.Router.route")
    assert route.signature == "fun route(a: Int, b: Int): Int"
    assert ("call", "", "helper", "demo.top") in refs(ex, "call")


def test_kotlin_resolves_across_packages(tmp_path, db, write, edges):
    root = write(tmp_path / "acme", PROJECT)
    stats = index_project(db, root, "acme", workers=1)
    assert (stats.files, stats.parsed) == (4, 4)
    strip = ("com.acme.", "src/main/kotlin/com/acme/")
    got = edges(db, root, "acme", ("CALLS", "EXTENDS", "IMPORTS"), strip)
    assert {
        ("web.Controller.get", "core.Repo.open", "CALLS"),  # the companion's, by import
        ("web.Controller.get", "core.Store.Options.defaults", "CALLS"),  # a nested object
        ("web.Controller.get", "core.normalized", "CALLS"),  # an imported extension function
        ("web.Controller.get", "web.Controller.render", "CALLS"),
        ("core.Repo.find", "core.Store.load", "CALLS"),  # inherited, other file
        ("core.Store.load", "core.Store.parse", "CALLS"),
        ("core.Repo.open", "core.Repo", "CALLS"),  # a constructor call
        ("core.Repo", "core.Store", "EXTENDS"),  # same package, no import
        ("web/Controller.kt", "core.Repo", "IMPORTS"),
    } <= got


PICKER = "android/src/main/java/expo/modules/imagepicker/"


def test_expo_image_picker_indexed_through_the_cli(memlode_home):
    """expo-image-picker 16.0.6 (npm): facts read in its android/ sources
    (ImagePickerUtils.kt, MediaHandler.kt, exporters/*.kt)."""
    folder = real_code("kotlin-expo-image-picker")
    kotlin = [f for f in walk_project(folder) if f.language == "kotlin"]
    assert len(kotlin) == 16
    assert all(extract_file(f.path, Path(f.abspath).read_bytes()).errors == 0 for f in kotlin)

    indexed = run_memlode("index", str(folder), "--json")
    assert indexed.returncode == 0, indexed.stderr
    stats = indexed.json()
    ns = stats["namespace"]
    with Database(memlode_home / "memlode.db") as db:
        statuses = dict(
            db.conn.execute(
                "SELECT f.language, count(*) FROM code_files f"
                " WHERE namespace = ? AND status = 'ok' GROUP BY f.language",
                (ns,),
            ).fetchall()
        )
    assert statuses["kotlin"] == 16

    hits = run_memlode("symbols", "copyFile", "-n", ns, "--json").json()
    copy = hits[0]
    assert copy["qualified_name"] == "expo.modules.imagepicker.copyFile"
    assert (copy["kind"], copy["path"], copy["line"]) == (
        "function",
        PICKER + "ImagePickerUtils.kt",
        150,
    )
    assert copy["visibility"] == "internal"
    assert copy["doc"] == "Copy the media file from `sourceUri` to `destinationUri`."

    # MediaHandler.handleVideo (MediaHandler.kt:93) and RawImageExporter.exportAsync
    # (exporters/RawImageExporter.kt:14) call it
    impact = run_memlode("impact", "copyFile", "--depth", "1", "-n", ns, "--json").json()
    callers = {(h["name"], h["path"]) for h in impact["hits"] if h["relationship"] == "CALLS"}
    assert callers == {
        ("handleVideo", PICKER + "MediaHandler.kt"),
        ("exportAsync", PICKER + "exporters/RawImageExporter.kt"),
    }

    exporter = run_memlode("impact", "ImageExporter", "--depth", "1", "-n", ns, "--json").json()
    assert (
        exporter["symbol"]["qualified_name"] == "expo.modules.imagepicker.exporters.ImageExporter"
    )
    implementing = {h["name"] for h in exporter["hits"] if h["relationship"] == "IMPLEMENTS"}
    assert implementing == {"RawImageExporter", "CompressionImageExporter"}
