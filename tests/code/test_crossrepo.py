"""Links between two indexed projects: by manifest dependency and by import."""

from __future__ import annotations

from memlode.code.crossrepo import cross_repo
from memlode.code.indexer import index_project, remove_index


def test_projects_depending_on_each_other_are_linked(tmp_path, db, write):
    lib = write(
        tmp_path / "libx",
        {
            "pyproject.toml": "[project]\nname = 'LibX'\n",
            "libx/__init__.py": "def parse(text):\n    return text\n",
        },
    )
    by_manifest = write(
        tmp_path / "svc",
        {
            "pyproject.toml": "[project]\nname = 'svc'\ndependencies = ['libx>=1']\n",
            "svc/__init__.py": "",
        },
    )
    by_import = write(tmp_path / "script", {"run.py": "import libx.sub\nfrom libx import parse\n"})
    index_project(db, by_manifest, "svc", workers=1)
    index_project(db, by_import, "script", workers=1)
    assert cross_repo(db) == []  # libx is not indexed yet
    index_project(db, lib, "libx", workers=1)
    links = {
        (k.source_namespace, k.source_package, k.target_package, k.via) for k in cross_repo(db)
    }
    assert links == {
        ("svc", "pkg:pypi:svc", "pkg:pypi:libx", "manifest"),
        ("script", "pkg:project:script", "pkg:pypi:libx", "import"),
    }
    remove_index(db, "libx")
    assert cross_repo(db) == []
