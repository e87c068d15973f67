"""Rust, Go, Java, C and C++ extraction."""

from __future__ import annotations

RUST = """\
use crate::store::{Store, open as open_store};
use std::io;

/// A cache of values.
#[derive(Debug)]
pub struct Cache { items: Vec<Item> }

pub enum Mode { Fast, Safe(u8) }

pub trait Evict: Clone { fn evict(&self) -> usize; }

impl Evict for Cache {
    fn evict(&self) -> usize { self.trim(); helper(); 0 }
}

impl Cache {
    pub fn new() -> Self { Self::with(open_store()) }
    pub(crate) fn trim(&self) {}
}

pub const LIMIT: usize = 8;
mod inner { pub fn f() {} }

#[test]
fn evicts() { Cache::new(); }
"""


def test_rust(extract, symbols, refs):
    ex = extract("src/cache.rs", RUST)
    p = "src/cache.rs:"
    assert symbols(ex) == [
        ("class", p + "Cache", None),
        ("type", p + "Mode", None),
        ("constant", p + "Mode::Fast", p + "Mode"),
        ("constant", p + "Mode::Safe", p + "Mode"),
        ("interface", p + "Evict", None),
        ("method", p + "Evict::evict", p + "Evict"),
        ("method", p + "Cache::evict", p + "Cache"),
        ("method", p + "Cache::new", p + "Cache"),
        ("method", p + "Cache::trim", p + "Cache"),
        ("constant", p + "LIMIT", None),
        ("module", p + "inner", None),
        ("function", p + "inner::f", p + "inner"),
        ("test", p + "evicts", None),
    ]
    by = {s.qualified: s for s in ex.symbols}
    assert by[p + "Cache"].doc == "A cache of values."
    assert str(by[p + "Cache::trim"].visibility) == "internal"
    assert str(by[p + "Cache::evict"].visibility) == "private"
    assert refs(ex, "import") == {
        ("import", "store", "Store", None),
        ("import", "store", "open", None),
        ("import", "std", "io", None),
    }
    assert refs(ex, "implement", "extend") == {
        ("implement", "", "Evict", p + "Cache"),
        ("extend", "", "Clone", p + "Evict"),
    }
    assert refs(ex, "call") >= {
        ("call", "self", "trim", p + "Cache::evict"),
        ("call", "", "helper", p + "Cache::evict"),
        ("call", "Self", "with", p + "Cache::new"),
        ("call", "", "open_store", p + "Cache::new"),
        ("call", "Cache", "new", p + "evicts"),
    }


GO = """\
package mux

import (
\t"fmt"
\tsub "example.com/app/pkg/sub"
)

// Router routes requests.
type Router struct {
\tBase
\troutes []Route
}

type Handler interface { Serve() }

const MaxRoutes = 10

// Handle registers a route.
func (r *Router) Handle(p string) *Route { r.add(p); fmt.Println(p); return sub.New() }

func newRouter() *Router { return &Router{} }
"""


def test_go(extract, symbols, refs):
    ex = extract("mux.go", GO)
    assert symbols(ex) == [
        ("class", "mux.Router", None),
        ("interface", "mux.Handler", None),
        ("method", "mux.Handler.Serve", "mux.Handler"),
        ("constant", "mux.MaxRoutes", None),
        ("method", "mux.Router.Handle", "mux.Router"),
        ("function", "mux.newRouter", None),
    ]
    by = {s.name: s for s in ex.symbols}
    assert by["Handle"].doc == "Handle registers a route."
    assert by["Handle"].signature == "func (r *Router) Handle(p string) *Route"
    assert str(by["newRouter"].visibility) == "internal"
    assert refs(ex, "import") == {
        ("import", "fmt", "", None),
        ("import", "example.com/app/pkg/sub", "", None),
    }
    assert ("extend", "", "Base", "mux.Router") in refs(ex, "extend")
    assert refs(ex, "call") == {
        ("call", "r", "add", "mux.Router.Handle"),
        ("call", "fmt", "Println", "mux.Router.Handle"),
        ("call", "sub", "New", "mux.Router.Handle"),
        ("call", "", "Router", "mux.newRouter"),
    }
    test = extract("pkg/x_test.go", "package x\nfunc TestHandle(t *testing.T) {}\n")
    assert symbols(test) == [("test", "pkg.TestHandle", None)]


JAVA = """\
package com.example.web;

import java.util.List;
import com.example.core.Base;

/** Serves users. */
public class UserController extends Base implements Handler {
    public static final int LIMIT = 5;
    private int count;

    public UserController() { super(); }

    @GetMapping("/users")
    protected List<User> list(String q) { helper(q); this.count(); return Repo.find(q); }

    @Test
    void listsUsers() {}

    enum State { ON, OFF }
}

interface Handler extends Runnable { void handle(); }
"""


def test_java(extract, symbols, refs):
    ex = extract("src/main/java/com/example/web/UserController.java", JAVA)
    p = "com.example.web."
    assert symbols(ex) == [
        ("class", p + "UserController", None),
        ("constant", p + "UserController.LIMIT", p + "UserController"),
        ("method", p + "UserController.UserController", p + "UserController"),
        ("endpoint", p + "UserController.list", p + "UserController"),
        ("test", p + "UserController.listsUsers", p + "UserController"),
        ("type", p + "UserController.State", p + "UserController"),
        ("constant", p + "UserController.State.ON", p + "UserController.State"),
        ("constant", p + "UserController.State.OFF", p + "UserController.State"),
        ("interface", p + "Handler", None),
        ("method", p + "Handler.handle", p + "Handler"),
    ]
    by = {s.qualified.removeprefix(p): s for s in ex.symbols}
    assert by["UserController"].doc == "Serves users."
    assert by["UserController.list"].properties == {"route": "/users", "methods": "GET"}
    assert str(by["UserController.list"].visibility) == "protected"
    assert str(by["UserController.listsUsers"].visibility) == "internal"
    assert ex.module == "com.example.web"
    assert refs(ex, "import") == {
        ("import", "java.util", "List", None),
        ("import", "com.example.core", "Base", None),
    }
    assert refs(ex, "extend", "implement") == {
        ("extend", "", "Base", p + "UserController"),
        ("implement", "", "Handler", p + "UserController"),
        ("extend", "", "Runnable", p + "Handler"),
    }
    assert ("call", "Repo", "find", p + "UserController.list") in refs(ex, "call")


def test_c(extract, symbols, refs):
    ex = extract(
        "src/list.c",
        '#include <stdio.h>\n#include "util/mem.h"\n#define CAP 16\n#define GUARD\n'
        "/* A node. */\ntypedef struct node { int v; } node_t;\n"
        "enum color { RED, GREEN };\n"
        "static int count(node_t *n) { return 0; }\n"
        "int **push(node_t *n, int v) { count(n); n->ops->grow(n); return 0; }\n",
    )
    p = "src/list.c:"
    assert symbols(ex) == [
        ("constant", p + "CAP", None),
        ("class", p + "node_t", None),
        ("type", p + "color", None),
        ("constant", p + "color.RED", p + "color"),
        ("constant", p + "color.GREEN", p + "color"),
        ("function", p + "count", None),
        ("function", p + "push", None),
    ]
    by = {s.name: s for s in ex.symbols}
    assert by["node_t"].doc == "A node."
    assert str(by["count"].visibility) == "internal"
    assert by["push"].signature == "int **push(node_t *n, int v)"
    assert refs(ex, "import") == {("import", "util/mem.h", "", None)}
    assert refs(ex, "call") == {
        ("call", "", "count", p + "push"),
        ("call", "n.ops", "grow", p + "push"),
    }


def test_cpp_and_header_detection(extract, symbols, refs):
    source = (
        "namespace gfx {\n/// A widget.\nclass Widget : public Base {\n public:\n"
        "  void draw() const;\n  int size() const { return n_; }\n private:\n  void reset();\n};\n"
        "void Widget::draw() const { size(); util::log(); }\n"
        "template <typename T> T twice(T v) { return v; }\n}\n"
    )
    ex = extract("include/widget.h", source)
    assert ex.language == "cpp"
    p = "include/widget.h:"
    assert symbols(ex) == [
        ("class", p + "gfx::Widget", None),
        ("method", p + "gfx::Widget::draw", p + "gfx::Widget"),
        ("method", p + "gfx::Widget::size", p + "gfx::Widget"),
        ("method", p + "gfx::Widget::reset", p + "gfx::Widget"),
        ("function", p + "gfx::twice", None),
    ]
    by = {s.name: s for s in ex.symbols}
    assert by["Widget"].doc == "A widget."
    assert str(by["reset"].visibility) == "private"
    assert str(by["size"].visibility) == "public"
    assert ("inherit", "", "Base", p + "gfx::Widget") in refs(ex, "inherit")
    # the out-of-class definition joins the declaration
    assert refs(ex, "call") == {
        ("call", "", "size", p + "gfx::Widget::draw"),
        ("call", "util", "log", p + "gfx::Widget::draw"),
    }
