"""The public surface of ``memlode``: exactly these names, each one resolving, none of them
loaded by ``import memlode`` itself (every hook process imports the package first)."""

from __future__ import annotations

import subprocess
import sys

import memlode

PUBLIC = {
    "ALL_NAMESPACES",
    "ConfigFileError",
    "Edge",
    "EmbedError",
    "Engine",
    "ExportWriteError",
    "ImportFormatError",
    "InvalidInput",
    "LlmError",
    "Memory",
    "MemlodeError",
    "MemoryType",
    "MissingDependency",
    "NotFound",
    "Relationship",
    "SearchHit",
    "Session",
    "Settings",
    "StorageError",
    "StoreResult",
    "__version__",
}


def test_exported_names() -> None:
    assert set(memlode.__all__) == PUBLIC
    for name in PUBLIC:
        assert getattr(memlode, name) is not None
    assert issubclass(memlode.InvalidInput, memlode.MemlodeError)
    from memlode.engine import Engine

    assert memlode.Engine is Engine


def test_unknown_names_are_attribute_errors() -> None:
    try:
        memlode.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("memlode.no_such_name resolved")


def test_importing_the_package_loads_nothing_else() -> None:
    script = "import sys, memlode; print(sorted(m for m in sys.modules if m.startswith('memlode')))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['memlode']"
