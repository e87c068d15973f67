"""Ruby: extraction of a snippet, resolution across files, and rake's own sources indexed
through the CLI."""

from __future__ import annotations

from pathlib import Path

from bench.realcode import real_code
from tests.conftest import run_memlode

from memlode.code.extract import extract_file
from memlode.code.indexer import index_project
from memlode.code.walk import walk_project
from memlode.storage.db import Database

CART = """\
require "set"
require_relative "support/helper"

module Shop
  # A cart of items.
  # Holds them in order.
  class Cart < Base
    include Enumerable
    LIMIT = 10

    def initialize(items = [])
      @items = items
      self.reset
      helper(1)
    end

    # Adds one item.
    def add(item)
      @items << Item.new(item)
    end

    def self.build
      Shop::Cart.new.tap { |c| c.add(1) }
    end

    private

    def reset; end

    def keep; end
    public :keep
  end

  module Pricing
    RATE = 2

    def self.total(cart) = cart.size * RATE
  end
end

class Shop::Order; end
"""


def test_ruby(extract, symbols, refs):
    ex = extract("lib/shop/cart.rb", CART)
    assert ex.prefix == "" and ex.module == "lib/shop/cart"
    # `module Shop` holds only classes and modules: a namespace, not a symbol
    assert symbols(ex) == [
        ("class", "Shop::Cart", None),
        ("constant", "Shop::Cart::LIMIT", "Shop::Cart"),
        ("method", "Shop::Cart::initialize", "Shop::Cart"),
        ("method", "Shop::Cart::add", "Shop::Cart"),
        ("method", "Shop::Cart::build", "Shop::Cart"),
        ("method", "Shop::Cart::reset", "Shop::Cart"),
        ("method", "Shop::Cart::keep", "Shop::Cart"),
        ("module", "Shop::Pricing", None),
        ("constant", "Shop::Pricing::RATE", "Shop::Pricing"),
        ("method", "Shop::Pricing::total", "Shop::Pricing"),
        ("class", "Shop::Order", "Shop"),
    ]
    by = {s.qualified: s for s in ex.symbols}
    assert by["Shop::Cart"].doc == "A cart of items.\nHolds them in order."
    assert by["Shop::Cart"].signature == "class Cart < Base"
    assert by["Shop::Cart::add"].doc == "Adds one item."
    assert by["Shop::Cart::initialize"].signature == "def initialize(items = [])"
    assert by["Shop::Pricing::total"].signature == "def self.total(cart)"
    assert {q: str(s.visibility) for q, s in by.items() if s.kind == "method"} == {
        "Shop::Cart::initialize": "public",
        "Shop::Cart::add": "public",
        "Shop::Cart::build": "public",
        "Shop::Cart::reset": "private",
        "Shop::Cart::keep": "public",
        "Shop::Pricing::total": "public",
    }
    assert refs(ex, "import") == {
        ("import", "set", "", None),
        ("import", "lib/shop/support/helper", "", None),
    }
    assert refs(ex, "inherit") == {
        ("inherit", "", "Base", "Shop::Cart"),
        ("inherit", "", "Enumerable", "Shop::Cart"),
    }
    # `Item.new` and `Shop::Cart.new` call the class; Kernel's `include`, `private`, `public`
    # called bare are not kept
    assert refs(ex, "call") == {
        ("call", "self", "reset", "Shop::Cart::initialize"),
        ("call", "", "helper", "Shop::Cart::initialize"),
        ("call", "", "Item", "Shop::Cart::add"),
        ("call", "Shop", "Cart", "Shop::Cart::build"),
        ("call", "Shop::Cart.new", "tap", "Shop::Cart::build"),
        ("call", "c", "add", "Shop::Cart::build"),
        ("call", "cart", "size", "Shop::Pricing::total"),
    }


SPEC = """\
describe Shop::Cart do
  it "adds items" do
    Shop::Cart.build
  end
end
"""


def test_ruby_tests_and_file_names(extract, symbols):
    spec = extract("spec/cart_spec.rb", SPEC)
    assert symbols(spec) == [
        ("test", "describe Shop::Cart", None),
        ("test", "describe Shop::Cart::it adds items", "describe Shop::Cart"),
    ]
    minitest = extract(
        "test/cart_test.rb", "class CartTest < Minitest::Test\n  def test_add; end\nend\n"
    )
    assert symbols(minitest)[1] == ("test", "CartTest::test_add", "CartTest")
    # outside a test file `describe` is a plain call
    assert symbols(extract("lib/doc.rb", SPEC)) == []
    for name in ("Rakefile", "Gemfile", "tasks/db.rake", "shop.gemspec"):
        assert extract_file(name, b"x = 1\n").language == "ruby"


PROJECT = {
    "lib/shop.rb": (
        'require "shop/cart"\n\nmodule Shop\n  def self.checkout(items)\n'
        "    Cart.build(items).total\n  end\nend\n"
    ),
    "lib/shop/cart.rb": (
        'require_relative "base"\n\nmodule Shop\n  class Cart < Base\n'
        "    def self.build(items)\n      new(items)\n    end\n\n"
        "    def total\n      save(true)\n      sum_prices(1)\n    end\n\n"
        "    def sum_prices(x) = x\n  end\nend\n"
    ),
    "lib/shop/base.rb": (
        "module Shop\n  class Base\n    def save(force)\n      validate(force)\n    end\n\n"
        "    def validate(strict); end\n  end\nend\n"
    ),
    # methods named like the shop's: a call resolves by its names, not by guessing
    "lib/other.rb": (
        "class Other\n  def self.build(x); end\n  def self.checkout(x); end\n"
        "  def save(x); end\n  def sum_prices(x); end\nend\n"
    ),
    "Rakefile": 'require "shop"\n\ntask :default do\n  Shop.checkout([1])\nend\n',
    "spec/cart_spec.rb": (
        'describe "cart" do\n  it "totals" do\n    Shop::Cart.build([]).total\n  end\nend\n'
    ),
}


def test_ruby_resolves_across_files(tmp_path, db, write, edges):
    root = write(tmp_path / "shop", PROJECT)
    stats = index_project(db, root, "shop", workers=1)
    assert (stats.files, stats.parsed) == (6, 6)
    got = edges(db, root, "shop", ("CALLS", "INHERITS", "IMPORTS"))
    assert {
        ("Shop::checkout", "Shop::Cart::build", "CALLS"),  # `Cart` inside `module Shop`
        ("Shop::Cart::total", "Shop::Cart::sum_prices", "CALLS"),
        ("Shop::Cart::total", "Shop::Base::save", "CALLS"),  # inherited
        ("Shop::Base::save", "Shop::Base::validate", "CALLS"),
        ("Shop::Cart", "Shop::Base", "INHERITS"),
        ("Rakefile", "Shop::checkout", "CALLS"),
        ("Rakefile", "lib/shop.rb", "IMPORTS"),  # require "shop": lib/ is on the load path
        ("lib/shop.rb", "lib/shop/cart.rb", "IMPORTS"),
        ("lib/shop/cart.rb", "lib/shop/base.rb", "IMPORTS"),  # require_relative
        ("describe cart::it totals", "Shop::Cart::build", "CALLS"),
    } <= got


RAKE = "share/rubygems-integration/all/gems/rake-13.0.6/lib/rake/"


def test_rake_indexed_through_the_cli(memlode_home):
    """rake 13.0.6 (Debian's package): facts read in its lib/rake/task.rb, file_task.rb and
    application.rb."""
    folder = real_code("ruby-rake")
    ruby = [f for f in walk_project(folder) if f.language == "ruby"]
    assert len(ruby) == 45
    assert all(extract_file(f.path, Path(f.abspath).read_bytes()).errors == 0 for f in ruby)

    indexed = run_memlode("index", str(folder), "--json")
    assert indexed.returncode == 0, indexed.stderr
    stats = indexed.json()
    assert stats["files"] == 48 and stats["skipped"] == 0  # and doc/example's three .c files
    ns = stats["namespace"]
    with Database(memlode_home / "memlode.db") as db:
        statuses = dict(
            db.conn.execute(
                "SELECT status, count(*) FROM code_files WHERE namespace = ? GROUP BY status",
                (ns,),
            ).fetchall()
        )
    assert statuses == {"ok": 48}

    hits = run_memlode("symbols", "invoke_with_call_chain", "-n", ns, "--json").json()
    chain = hits[0]
    assert chain["qualified_name"] == "Rake::Task::invoke_with_call_chain"
    assert (chain["kind"], chain["path"], chain["line"]) == ("method", RAKE + "task.rb", 197)
    assert chain["visibility"] == "protected"  # `protected :invoke_with_call_chain` below it
    assert chain["doc"].startswith("Same as invoke, but explicitly pass a call chain")

    impact = run_memlode("impact", "Rake::Task::invoke_with_call_chain", "-n", ns, "--json")
    hits = impact.json()["hits"]
    direct = {(h["name"], h["relationship"]) for h in hits if h["depth"] == 1}
    # Task#invoke calls it (task.rb:188), and so do the prerequisites (task.rb:243, 253)
    assert {
        ("invoke", "CALLS"),
        ("invoke_prerequisites", "CALLS"),
        ("invoke_prerequisites_concurrently", "CALLS"),
    } <= direct
    # Application#top_level -> invoke_task -> Task#invoke (application.rb:116, 157)
    assert "top_level" in {h["name"] for h in hits if h["depth"] == 3}

    subclasses = run_memlode("impact", "Rake::Task", "--depth", "1", "-n", ns, "--json").json()
    inheriting = {
        (h["name"], h["path"]) for h in subclasses["hits"] if h["relationship"] == "INHERITS"
    }
    assert ("FileTask", RAKE + "file_task.rb") in inheriting  # class FileTask < Task
