"""Reading a project without a store: files -> extracts and packages, and a resolver over them.

The indexer uses these pieces for the files that changed; tests and benchmarks use
:func:`scan_project` to see what a folder yields.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import posixpath
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from memlode.code.extract import extract_file, looks_like_cpp
from memlode.code.lang import spec_for
from memlode.code.lang.go import GO_MODULE_HINT
from memlode.code.manifests import Package, parse_manifest
from memlode.code.model import FileExtract, Reference, RefKind, Symbol, Visibility
from memlode.code.resolve import Resolver, build_resolver
from memlode.code.walk import SourceFile, skip_reason, walk_project
from memlode.types import NodeKind

__all__ = [
    "PARALLEL_MIN_FILES",
    "UNCHANGED",
    "ProjectScan",
    "ScannedFile",
    "file_hash",
    "manifest_hints",
    "module_keys",
    "scan_file",
    "scan_files",
    "scan_project",
]


UNCHANGED = "unchanged"
# Below this many files to parse, worker processes cost more than they save.
PARALLEL_MIN_FILES = 150
# Files per task sent to a worker: big enough to amortise pickling, small enough to balance.
_CHUNK_FILES = 24


@dataclass(slots=True)
class ScannedFile:
    source: SourceFile
    hash: str
    language: str  # the language it was parsed as ("c" headers may turn out "cpp")
    extract: FileExtract | None = None
    package: Package | None = None
    skipped: str | None = None  # why nothing was extracted (binary, generated, error ...)


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def module_keys(files: Iterable[SourceFile]) -> dict[str, str]:
    """Each code file's module key, computed with the whole file list in view."""
    items = [f for f in files if not f.language.startswith("manifest:")]
    paths = frozenset(f.path for f in items)
    return {f.path: spec_for(f.language).module_key(f.path, paths) for f in items}


def scan_file(
    source: SourceFile, module: str, data: bytes | None = None, known_hash: str | None = None
) -> ScannedFile:
    """Read (unless ``data`` is given), classify and extract one file.

    With ``known_hash`` (the stored hash), content that did not change is not parsed again:
    the result is marked ``skipped="unchanged"``.
    """
    if data is None:
        try:
            data = Path(source.abspath).read_bytes()
        except OSError as exc:
            return ScannedFile(source, "", source.language, skipped=f"unreadable: {exc.strerror}")
    digest = file_hash(data)
    if known_hash is not None and digest == known_hash:
        return ScannedFile(source, digest, source.language, skipped=UNCHANGED)
    reason = skip_reason(source.path, data)
    if reason is not None:
        return ScannedFile(source, digest, source.language, skipped=reason)
    if source.language.startswith("manifest:"):
        kind = source.language.split(":", 1)[1]
        try:
            package = parse_manifest(kind, source.path, data)
        except ValueError as exc:
            return ScannedFile(source, digest, source.language, skipped=f"bad manifest: {exc}")
        return ScannedFile(source, digest, source.language, package=package)
    language = source.language
    if language == "c" and source.path.endswith(".h") and looks_like_cpp(data):
        language = "cpp"
    extract = extract_file(source.path, data, module, language)
    return ScannedFile(source, digest, language, extract=extract)


ScanItem = tuple[SourceFile, str, str | None]  # (file, module key, stored hash)


def _scan_chunk(items: list[ScanItem]) -> list[ScannedFile]:
    return [scan_file(source, module, known_hash=known) for source, module, known in items]


# What a worker sends back: each file as plain tuples of str and int, enums by value. Pickled
# as dataclasses (slots: a state list per object, enums by calling the class), the stdlib
# set's extracts took 0.9 s to pickle and 0.6-0.8 s to unpickle; as tuples, 0.2-0.3 s each
# (with rebuilding the objects).
_WireSymbol = tuple[str, str, str, int, int, str | None, str, str, str, dict[str, str]]
_WireRef = tuple[str, str, str | None, int, str, str, int]
_WireExtract = tuple[str, str, str, int, str, list[_WireSymbol], list[_WireRef], int]
_WireFile = tuple[
    tuple[str, str, int, int, str], str, str, _WireExtract | None, Package | None, str | None
]
_NODE_KINDS = {kind.value: kind for kind in NodeKind}  # a dict lookup: NodeKind(v) costs ~1 us
_REF_KINDS = {kind.value: kind for kind in RefKind}
_VISIBILITIES = {v.value: v for v in Visibility}


def _scan_chunk_wire(items: list[ScanItem]) -> list[_WireFile]:
    """``_scan_chunk`` in a worker process, its results in the wire form."""
    return [_to_wire(scanned) for scanned in _scan_chunk(items)]


def _to_wire(scanned: ScannedFile) -> _WireFile:
    src, ex = scanned.source, scanned.extract
    extract: _WireExtract | None = None
    if ex is not None:
        symbols: list[_WireSymbol] = [
            (s.name, str(s.kind), s.qualified, s.line, s.end_line, s.parent, s.signature,
             s.doc, str(s.visibility), s.properties)
            for s in ex.symbols
        ]  # fmt: skip
        refs: list[_WireRef] = [
            (str(r.kind), r.name, r.source, r.line, r.qualifier, r.alias, r.count)
            for r in ex.references
        ]
        extract = (ex.path, ex.language, ex.module, ex.lines, ex.prefix, symbols, refs, ex.errors)
    return (
        (src.path, src.abspath, src.size, src.mtime_ns, src.language),
        scanned.hash,
        scanned.language,
        extract,
        scanned.package,
        scanned.skipped,
    )


def _from_wire(wire: list[_WireFile]) -> list[ScannedFile]:
    """The worker's results as the objects ``_scan_chunk`` made (equal to them)."""
    kinds, refs_kinds, visibilities = _NODE_KINDS, _REF_KINDS, _VISIBILITIES
    out: list[ScannedFile] = []
    for source, digest, language, ex, package, skipped in wire:
        extract = None
        if ex is not None:
            path, lang, module, lines, prefix, symbols, refs, errors = ex
            extract = FileExtract(
                path, lang, module, lines, prefix,
                [
                    Symbol(name, kinds[kind], qualified, line, end, parent, sig, doc,
                           visibilities[vis], props)
                    for name, kind, qualified, line, end, parent, sig, doc, vis, props in symbols
                ],
                [
                    Reference(refs_kinds[kind], name, src, line, qualifier, alias, count)
                    for kind, name, src, line, qualifier, alias, count in refs
                ],
                errors,
            )  # fmt: skip
        out.append(ScannedFile(SourceFile(*source), digest, language, extract, package, skipped))
    return out


# Processes that parse at once (this one included); beyond this, SQLite writes in the main
# process dominate.
MAX_WORKERS = 8
# How long the CPU counters are watched to tell how many cores are idle right now (Linux
# counts in 10 ms ticks: 60 ms on 2 cores is 12 ticks, enough to tell 0, 1 or 2 idle cores).
IDLE_SAMPLE_S = 0.06


def _cpu_ticks() -> tuple[int, int] | None:
    """(idle, total) jiffies of all CPUs from /proc/stat; None where there is none."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != b"cpu":
        return None
    # user nice system idle iowait irq softirq steal: steal is time the host gave elsewhere
    values = [int(v) for v in fields[1:9]]
    return values[3] + values[4], sum(values)


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def idle_cores(sample_s: float = IDLE_SAMPLE_S) -> float:
    """How many of this process's cores are idle now.

    Measured from the CPU counters over ``sample_s`` where the OS has them: the 1-minute load
    average lags, and right after another heavy command it still counts that command's core
    as busy. Elsewhere: the cores less the load average.
    """
    cores = usable_cores()
    before = _cpu_ticks()
    if before is not None:
        time.sleep(sample_s)
        after = _cpu_ticks()
        if after is not None and after[1] > before[1]:
            idle_share = (after[0] - before[0]) / (after[1] - before[1])
            return min(float(cores), idle_share * (os.cpu_count() or cores))
    try:
        busy = os.getloadavg()[0]
    except OSError:
        busy = 0.0
    return max(0.0, cores - busy)


def default_workers() -> int:
    """Parsing processes for a large scan: one more than the idle cores, up to the cores.

    Measured on the stdlib set, 2 cores: with one other process burning a core, 2 parsers took
    8.5-8.7 s and 1 took 9.2-9.5 s (a busy core is shared, so a parser there still gains);
    with both cores busy, extra parsers only add the cost of sending results back.
    """
    cores = usable_cores()
    return max(1, min(MAX_WORKERS, cores, round(idle_cores()) + 1))


def scan_files(
    items: Sequence[ScanItem],
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[ScannedFile]:
    """Scan many files, ``workers`` processes at once when there are enough files (this
    process is one of them: it parses too, so its share is never pickled). Order is kept.

    ``progress(done, total)`` is called as chunks of files complete.
    """
    if workers is None:  # only a large scan is worth measuring the idle cores for
        workers = default_workers() if len(items) >= PARALLEL_MIN_FILES else 1
    count = workers
    if count <= 1 or len(items) < PARALLEL_MIN_FILES:
        out: list[ScannedFile] = []
        for start in range(0, len(items), _CHUNK_FILES):
            out.extend(_scan_chunk(list(items[start : start + _CHUNK_FILES])))
            if progress:
                progress(len(out), len(items))
        return out
    results: list[ScannedFile | None] = [None] * len(items)
    done = 0

    def finish(chunk: list[int], result: list[ScannedFile]) -> None:
        nonlocal done
        for position, scanned in zip(chunk, result, strict=True):
            results[position] = scanned
        done += len(result)
        if progress:
            progress(done, len(items))

    # fork is cheap, but only safe while this process runs a single thread
    method = "fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn"
    helpers = min(count, MAX_WORKERS) - 1
    todo = deque(_plan(items, helpers + 1))
    running: dict[Future[list[_WireFile]], list[int]] = {}
    with ProcessPoolExecutor(helpers, mp_context=multiprocessing.get_context(method)) as pool:
        while todo or running:
            for future in [f for f in running if f.done()]:
                finish(running.pop(future), _from_wire(future.result()))
            while todo and len(running) < 2 * helpers:  # the workers never wait for work
                chunk = todo.popleft()
                running[pool.submit(_scan_chunk_wire, [items[i] for i in chunk])] = chunk
            if todo:  # this process takes the next chunk meanwhile
                chunk = todo.popleft()
                finish(chunk, _scan_chunk([items[i] for i in chunk]))
            elif running:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    finish(running.pop(future), _from_wire(future.result()))
    return [scanned for scanned in results if scanned is not None]


# A parallel scan hands out the biggest files first, in chunks that shrink with the bytes left
# (guided self-scheduling), so that the processes run out of work together: whoever ends last
# ends on a small chunk. With chunks of 24 files in walk order, the calling process waited
# 1.2-1.5 s of 11-15 s for the last chunks of its helper on the stdlib set (loaded machine).
_GUIDED_SHARES = 4  # a chunk is about 1 / (this x processes) of the bytes not yet handed out
_MIN_CHUNK_BYTES = 32_000  # below this, sending a chunk costs more than it balances


def _plan(items: Sequence[ScanItem], processes: int) -> list[list[int]]:
    """Chunks of positions in ``items`` for a parallel scan, biggest files first."""
    order = sorted(range(len(items)), key=lambda i: -items[i][0].size)  # stable: ties in order
    left = sum(item[0].size for item in items)
    chunks: list[list[int]] = []
    chunk: list[int] = []
    size = 0
    for position in order:
        chunk.append(position)
        size += items[position][0].size
        target = max(_MIN_CHUNK_BYTES, left / (_GUIDED_SHARES * processes))
        if size >= target or len(chunk) >= _CHUNK_FILES:
            chunks.append(chunk)
            left -= size
            chunk, size = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


def manifest_hints(packages: Iterable[Package]) -> dict[str, str]:
    """What manifests tell the resolver (Go module paths and where their go.mod lives)."""
    hints: dict[str, str] = {}
    for package in packages:
        if package.ecosystem == "go":
            hints[GO_MODULE_HINT + package.name] = posixpath.dirname(package.path)
    return hints


@dataclass(slots=True)
class ProjectScan:
    root: Path
    files: list[ScannedFile]

    @property
    def extracts(self) -> list[FileExtract]:
        return [f.extract for f in self.files if f.extract is not None]

    @property
    def packages(self) -> list[Package]:
        return [f.package for f in self.files if f.package is not None]

    def resolver(self) -> Resolver:
        return build_resolver(
            self.extracts,
            node_id=lambda q: f"sym:{q}",
            file_node_id=lambda p: f"file:{p}",
            hints=manifest_hints(self.packages),
        )


def scan_project(
    root: Path | str, exclude: Sequence[str] = (), workers: int | None = 1
) -> ProjectScan:
    """Walk and extract a whole folder (no store; everything in memory)."""
    sources = walk_project(root, exclude)
    modules = module_keys(sources)
    files = scan_files([(s, modules.get(s.path, ""), None) for s in sources], workers)
    return ProjectScan(Path(root).resolve(), files)
