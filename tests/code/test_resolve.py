"""Reference resolution across files: imports, re-exports, self calls, packages, ambiguity."""

from __future__ import annotations

from pathlib import Path

from memlode.code.scan import scan_project


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def resolved(root: Path) -> dict[tuple[str, str, str, str], str | None]:
    """(file, kind, qualifier, name) -> target node id (None when unresolved)."""
    scan = scan_project(root)
    resolver = scan.resolver()
    out = {}
    for ex in scan.extracts:
        for ref in ex.references:
            target = resolver.resolve(ex.path, ref)
            out[(ex.path, str(ref.kind), ref.qualifier, ref.name)] = (
                target.node_id if target else None
            )
    return out


def test_python_resolution(tmp_path):
    root = write(
        tmp_path,
        {
            "pkg/__init__.py": "from .models import Model\n",
            "pkg/base.py": "class Base:\n    def validate(self):\n        return True\n",
            "pkg/models.py": (
                "from pkg.base import Base\n"
                "class Model(Base):\n"
                "    def save(self):\n        self.validate()\n        return helper(self)\n"
                "def helper(m):\n    return m\n"
            ),
            "app.py": (
                "import os.path\nimport pkg\nfrom pkg import models as mm\n"
                "def main():\n"
                "    m = pkg.Model()\n    m.save()\n    mm.helper(m)\n"
                "    os.path.join('a', 'b')\n    return run()\n"
            ),
            "other.py": "def run():\n    pass\ndef join():\n    pass\n",
        },
    )
    got = resolved(root)
    assert got[("app.py", "import", "pkg", "")] == "file:pkg/__init__.py"
    assert got[("app.py", "import", "pkg", "models")] == "file:pkg/models.py"
    assert got[("app.py", "import", "os.path", "")] is None
    # through the package's re-export
    assert got[("app.py", "call", "pkg", "Model")] == "sym:pkg.models.Model"
    # an unknown receiver: the only method of that name
    assert got[("app.py", "call", "m", "save")] == "sym:pkg.models.Model.save"
    assert got[("app.py", "call", "mm", "helper")] == "sym:pkg.models.helper"
    # a third-party module is never matched to a project function of the same name
    assert got[("app.py", "call", "os.path", "join")] is None
    # a bare name that is neither defined nor imported here is not guessed (Python scoping)
    assert got[("app.py", "call", "", "run")] is None
    assert got[("pkg/models.py", "inherit", "", "Base")] == "sym:pkg.base.Base"
    # self calls reach inherited methods
    assert got[("pkg/models.py", "call", "self", "validate")] == "sym:pkg.base.Base.validate"
    assert got[("pkg/__init__.py", "import", "pkg.models", "Model")] == "sym:pkg.models.Model"


def test_ambiguous_names_stay_unresolved(tmp_path):
    root = write(
        tmp_path,
        {
            "a.py": "class A:\n    def close(self):\n        pass\n",
            "b.py": "class B:\n    def close(self):\n        pass\n",
            "c.py": "def use(x):\n    x.close()\n",
        },
    )
    assert resolved(root)[("c.py", "call", "x", "close")] is None


def test_typescript_resolution(tmp_path):
    root = write(
        tmp_path,
        {
            "src/util/index.ts": "export function slug(s: string) { return s; }\n",
            "src/model.ts": (
                "import { slug } from './util';\n"
                "export class Model { save() { this.check(); return slug('x'); } check() {} }\n"
            ),
            "src/app.ts": (
                "import * as m from './model';\nimport { Model as M } from './model.js';\n"
                "import React from 'react';\n"
                "export function main() { const x = new M(); m.Model; return React.render(x); }\n"
            ),
        },
    )
    got = resolved(root)
    assert got[("src/model.ts", "import", "./util", "slug")] == "sym:src/util/index.ts:slug"
    assert got[("src/model.ts", "call", "", "slug")] == "sym:src/util/index.ts:slug"
    assert got[("src/model.ts", "call", "this", "check")] == "sym:src/model.ts:Model.check"
    assert got[("src/app.ts", "import", "./model", "")] == "file:src/model.ts"
    assert got[("src/app.ts", "call", "", "M")] == "sym:src/model.ts:Model"
    assert got[("src/app.ts", "import", "react", "default")] is None
    assert got[("src/app.ts", "call", "React", "render")] is None


def test_go_resolution_uses_go_mod(tmp_path):
    root = write(
        tmp_path,
        {
            "go.mod": "module example.com/app\n\ngo 1.22\n",
            "pkg/store/store.go": (
                "package store\n"
                "type Store struct{}\nfunc New() *Store { return &Store{} }\n"
                "func (s *Store) Fetch() int { return s.count() }\n"
            ),
            "pkg/store/count.go": "package store\nfunc (s *Store) count() int { return 0 }\n",
            "main.go": (
                'package main\nimport "example.com/app/pkg/store"\n'
                "func main() { s := store.New(); s.Fetch() }\n"
            ),
        },
    )
    got = resolved(root)
    assert got[("main.go", "import", "example.com/app/pkg/store", "")] == "file:pkg/store/count.go"
    assert got[("main.go", "call", "store", "New")] == "sym:pkg/store.New"
    assert got[("main.go", "call", "s", "Fetch")] == "sym:pkg/store.Store.Fetch"
    # a method on a type declared in another file of the package
    assert got[("pkg/store/store.go", "call", "s", "count")] == "sym:pkg/store.Store.count"


def test_rust_java_and_c_resolution(tmp_path):
    root = write(
        tmp_path,
        {
            "src/lib.rs": "mod store;\nuse crate::store::Store;\npub fn run() { Store::open(); }\n",
            "src/store.rs": "pub struct Store;\nimpl Store { pub fn open() -> Self { Store } }\n",
            "java/com/x/Base.java": "package com.x;\npublic class Base { void hook() {} }\n",
            "java/com/x/app/App.java": (
                "package com.x.app;\nimport com.x.Base;\n"
                "public class App extends Base { void run() { hook(); } }\n"
            ),
            "c/util.h": "int twice(int v);\n",
            "c/util.c": '#include "util.h"\nint twice(int v) { return 2 * v; }\n',
            "c/main.c": '#include "util.h"\nint main(void) { return twice(2); }\n',
        },
    )
    got = resolved(root)
    assert got[("src/lib.rs", "import", "store", "Store")] == "sym:src/store.rs:Store"
    assert got[("src/lib.rs", "call", "Store", "open")] == "sym:src/store.rs:Store::open"
    assert got[("java/com/x/app/App.java", "extend", "", "Base")] == "sym:com.x.Base"
    # an implicit `this` call reaches the inherited method
    assert got[("java/com/x/app/App.java", "call", "", "hook")] == "sym:com.x.Base.hook"
    assert got[("c/main.c", "import", "util.h", "")] == "file:c/util.h"
    assert got[("c/main.c", "call", "", "twice")] == "sym:c/util.c:twice"
