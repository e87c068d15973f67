"""Scanning in several processes gives exactly what one process gives, in the same order."""

from __future__ import annotations

from pathlib import Path

from memlode.code.model import RefKind, Visibility
from memlode.code.scan import (
    MAX_WORKERS,
    PARALLEL_MIN_FILES,
    ScannedFile,
    default_workers,
    idle_cores,
    module_keys,
    scan_files,
    usable_cores,
)
from memlode.code.walk import walk_project
from memlode.types import NodeKind

# Enough files for the parallel path, in several chunks, with two languages and one file
# that cannot be parsed cleanly, so that every kind of result crosses the process boundary.
FILES = PARALLEL_MIN_FILES + 37


def _project(root: Path) -> Path:
    for i in range(FILES):
        folder = root / f"pkg{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        if i % 5 == 0:
            (folder / f"mod{i}.js").write_text(
                f"export class Widget{i} {{ render() {{ return helper{i}(); }} }}\n"
                f"function helper{i}() {{ return {i}; }}\n"
            )
        else:
            (folder / f"mod{i}.py").write_text(
                f"from pkg{(i + 1) % 7}.mod{i + 1} import thing{i + 1}\n\n"
                f"class Thing{i}:\n    def run(self):\n        return thing{i + 1}()\n\n"
                f"def thing{i}():\n    return Thing{i}().run()\n\n"
                f'def _private{i}(x: int) -> int:\n    """Doubled."""\n    return x * 2\n\n'
                f"@app.get('/things/{i}')\ndef endpoint{i}():\n    return thing{i}()\n"
            )
    (root / "pkg0" / "broken.py").write_text("def broken(:\n    pass\n")
    return root


def _summary(files: list[ScannedFile]) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    for f in files:
        ex = f.extract
        out.append(
            (
                f.source.path,
                f.hash,
                f.language,
                f.skipped,
                None if ex is None else [(s.qualified, str(s.kind), s.parent) for s in ex.symbols],
                None
                if ex is None
                else [(str(r.kind), r.qualifier, r.name, r.source, r.count) for r in ex.references],
                None if ex is None else ex.errors,
            )
        )
    return out


def test_parallel_scan_equals_serial_scan(tmp_path: Path) -> None:
    sources = walk_project(_project(tmp_path), ())
    modules = module_keys(sources)
    items = [(s, modules.get(s.path, ""), None) for s in sources]
    assert len(items) >= PARALLEL_MIN_FILES

    serial = scan_files(items, workers=1)
    seen: list[tuple[int, int]] = []
    parallel = scan_files(items, workers=3, progress=lambda done, total: seen.append((done, total)))

    assert [f.source.path for f in parallel] == [s.path for s in sources]
    assert _summary(parallel) == _summary(serial)
    # every field crosses the process boundary (workers send tuples back), enums as enums
    assert parallel == serial
    symbols = [s for f in parallel if f.extract is not None for s in f.extract.symbols]
    refs = [r for f in parallel if f.extract is not None for r in f.extract.references]
    assert all(type(s.kind) is NodeKind and type(s.visibility) is Visibility for s in symbols)
    assert all(type(r.kind) is RefKind for r in refs)
    assert {str(s.visibility) for s in symbols} >= {"public", "private"}
    assert any(s.doc for s in symbols) and any(s.signature for s in symbols)
    assert any(s.properties for s in symbols)  # the endpoints' route
    assert any(f.extract is not None and f.extract.errors for f in parallel)  # broken.py
    # progress only grows and ends at the total
    dones = [d for d, _ in seen]
    assert dones == sorted(dones)
    assert seen[-1] == (len(items), len(items))


def test_idle_cores_and_default_workers_stay_in_range() -> None:
    cores = usable_cores()
    assert cores >= 1
    idle = idle_cores(0.02)
    assert 0.0 <= idle <= cores
    workers = default_workers()
    assert 1 <= workers <= min(cores, MAX_WORKERS)
