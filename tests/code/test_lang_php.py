"""PHP: extraction of a snippet, resolution across namespaces, and composer/semver indexed
through the CLI."""

from __future__ import annotations

from pathlib import Path

from bench.realcode import real_code
from tests.conftest import run_memlode

from memlode.code.extract import extract_file
from memlode.code.indexer import index_project
from memlode.code.walk import walk_project
from memlode.storage.db import Database

CONTROLLER = """\
<?php
declare(strict_types=1);

namespace App\\Http;

use App\\Models\\User;
use App\\Support\\{Str, Arr as A};
use function App\\helpers\\format_name;

/**
 * Handles users.
 */
abstract class UserController extends Controller implements Responder, \\Countable
{
    use Loggable;

    public const PAGE = 20;
    private int $count = 0;

    public function __construct(private Repo $repo) { parent::__construct(); }

    /** Lists users. */
    public function index(Request $request): array
    {
        $this->log("x");
        $users = User::all();
        $page = new Paginator($users);
        format_name(strlen("a"));
        return $this->repo->find(\\App\\Models\\Team::first());
    }

    protected static function make(): static { return new static(); }

    public function testIndex() {}
}

interface Responder extends Base { public function respond(): void; }

trait Loggable { private function log($m) { echo $m; } }

enum Suit: string { case Hearts = 'H'; }

function helper($x) { return $x; }
"""


def test_php(extract, symbols, refs):
    ex = extract("src/Http/UserController.php", CONTROLLER)
    assert (ex.module, ex.prefix) == ("App\\Http", "App\\Http\\")
    p = "App\\Http\\"
    assert symbols(ex) == [
        ("class", p + "UserController", None),
        ("constant", p + "UserController::PAGE", p + "UserController"),
        ("method", p + "UserController::__construct", p + "UserController"),
        ("method", p + "UserController::index", p + "UserController"),
        ("method", p + "UserController::make", p + "UserController"),
        ("method", p + "UserController::testIndex", p + "UserController"),
        ("interface", p + "Responder", None),
        ("method", p + "Responder::respond", p + "Responder"),
        ("interface", p + "Loggable", None),
        ("method", p + "Loggable::log", p + "Loggable"),
        ("type", p + "Suit", None),
        ("constant", p + "Suit::Hearts", p + "Suit"),
        ("function", p + "helper", None),
    ]
    by = {s.qualified.removeprefix(p): s for s in ex.symbols}
    assert by["UserController"].doc == "Handles users."
    assert by["UserController::index"].doc == "Lists users."
    assert by["UserController::index"].signature == (
        "public function index(Request $request): array"
    )
    assert str(by["UserController::make"].visibility) == "protected"
    assert str(by["Loggable::log"].visibility) == "private"
    assert refs(ex, "import") == {
        ("import", "App\\Models", "User", None),
        ("import", "App\\Support", "Str", None),
        ("import", "App\\Support", "Arr", None),
        ("import", "App\\helpers", "format_name", None),
    }
    assert {r.alias for r in ex.references if r.name == "Arr"} == {"A"}
    assert refs(ex, "extend", "implement", "inherit") == {
        ("extend", "", "Controller", p + "UserController"),
        ("implement", "", "Responder", p + "UserController"),
        ("implement", "", "Countable", p + "UserController"),
        ("inherit", "", "Loggable", p + "UserController"),
        ("extend", "", "Base", p + "Responder"),
    }
    # strlen and `new static` are the language's, not the project's
    assert refs(ex, "call") == {
        ("call", "parent", "__construct", p + "UserController::__construct"),
        ("call", "$this", "log", p + "UserController::index"),
        ("call", "User", "all", p + "UserController::index"),
        ("call", "", "Paginator", p + "UserController::index"),
        ("call", "", "format_name", p + "UserController::index"),
        ("call", "$this.repo", "find", p + "UserController::index"),
        ("call", "\\App\\Models\\Team", "first", p + "UserController::index"),
    }
    # a test method counts as one in a PHPUnit test file
    test = extract("tests/Http/UserControllerTest.php", CONTROLLER)
    assert [s.qualified for s in test.symbols if s.kind == "test"] == [
        p + "UserController::testIndex"
    ]


PROJECT = {
    "src/Models/User.php": (
        "<?php\nnamespace App\\Models;\n\nclass User extends Model\n{\n"
        "    public static function all() { return static::query(); }\n}\n"
    ),
    "src/Models/Model.php": (
        "<?php\nnamespace App\\Models;\n\nabstract class Model\n{\n"
        "    public static function query() { return []; }\n"
        "    public function save() { return helper(); }\n}\n\n"
        "function helper() { return 1; }\n"
    ),
    # methods named like the models' ones: a call resolves by its names, not by guessing
    "src/Http/Search.php": (
        "<?php\nnamespace App\\Http;\n\nclass Search\n{\n"
        "    public function query() {}\n    public function all() {}\n"
        "    public function save() {}\n}\n"
    ),
    "src/Http/Controller.php": (
        "<?php\nnamespace App\\Http;\n\nuse App\\Models\\User;\nuse App\\Models as M;\n\n"
        "class Controller\n{\n    public function index()\n    {\n"
        "        $users = User::all();\n        (new User())->save();\n"
        "        \\App\\Models\\Model::query();\n        return $this->render($users);\n    }\n\n"
        "    private function render($users) { return $users; }\n}\n"
    ),
}


def test_php_resolves_across_namespaces(tmp_path, db, write, edges):
    root = write(tmp_path / "app", PROJECT)
    stats = index_project(db, root, "app", workers=1)
    assert (stats.files, stats.parsed) == (4, 4)
    got = edges(db, root, "app", ("CALLS", "EXTENDS", "IMPORTS"))
    assert {
        ("App\\Http\\Controller::index", "App\\Models\\User::all", "CALLS"),  # use ...\User
        ("App\\Http\\Controller::index", "App\\Models\\User", "CALLS"),  # new User()
        ("App\\Http\\Controller::index", "App\\Models\\Model::query", "CALLS"),  # \App\...
        ("App\\Http\\Controller::index", "App\\Http\\Controller::render", "CALLS"),
        ("App\\Models\\User::all", "App\\Models\\Model::query", "CALLS"),  # static:: inherited
        ("App\\Models\\Model::save", "App\\Models\\helper", "CALLS"),
        ("App\\Models\\User", "App\\Models\\Model", "EXTENDS"),  # same namespace, other file
        ("src/Http/Controller.php", "App\\Models\\User", "IMPORTS"),
    } <= got


SEMVER = "share/php/Composer/Semver/"


def test_composer_semver_indexed_through_the_cli(memlode_home):
    """composer/semver 3.3.2 (Debian's php-composer-semver): facts read in its Semver.php,
    VersionParser.php and Constraint/*.php."""
    folder = real_code("php-composer-semver")
    php = [f for f in walk_project(folder) if f.language == "php"]
    assert len(php) == 13
    assert all(extract_file(f.path, Path(f.abspath).read_bytes()).errors == 0 for f in php)

    indexed = run_memlode("index", str(folder), "--json")
    assert indexed.returncode == 0, indexed.stderr
    stats = indexed.json()
    ns = stats["namespace"]
    with Database(memlode_home / "memlode.db") as db:
        statuses = dict(
            db.conn.execute(
                "SELECT status, count(*) FROM code_files WHERE namespace = ? GROUP BY status",
                (ns,),
            ).fetchall()
        )
    # autoload.php says "this is an autogenerated file - do not edit"
    assert statuses == {"ok": 12, "generated": 1}

    hits = run_memlode("symbols", "VersionParser", "-n", ns, "--json").json()
    assert hits[0]["qualified_name"] == "Composer\\Semver\\VersionParser"
    assert (hits[0]["kind"], hits[0]["path"], hits[0]["line"]) == (
        "class",
        SEMVER + "VersionParser.php",
        24,
    )
    assert hits[0]["doc"] == "Version parser."

    # Semver::satisfies (Semver.php:40) calls $versionParser->parseConstraints
    target = "Semver\\VersionParser::parseConstraints"  # a tail of the qualified name
    impact = run_memlode("impact", target, "-n", ns, "--json").json()
    assert impact["symbol"]["qualified_name"] == "Composer\\Semver\\VersionParser::parseConstraints"
    direct = {(h["name"], h["path"], h["line"]) for h in impact["hits"] if h["depth"] == 1}
    assert ("satisfies", SEMVER + "Semver.php", 32) in direct

    interface = run_memlode("impact", "ConstraintInterface", "--depth", "1", "-n", ns, "--json")
    implementing = {
        h["name"] for h in interface.json()["hits"] if h["relationship"] == "IMPLEMENTS"
    }
    assert implementing == {
        "Constraint",
        "MultiConstraint",
        "MatchAllConstraint",
        "MatchNoneConstraint",
    }
