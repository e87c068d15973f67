"""The repo map: the most important files and their key definitions, within a token budget.

Ranking follows aider's idea with named weights: PageRank over the file graph (a file points
at the files whose definitions it uses), personalised by heat (recently edited or focused
files: the hottest weighs :data:`HOT_WEIGHT` times a cold one, others in proportion). Each
file's rank then flows to the definitions it references, in proportion to how often. The map
lists files by rank and, under each, its selected definitions as an indented outline of
signatures, greedily filled in rank order until the budget (about 4 characters a token) is
used. Everything sorts on rank, then id: the same store gives the same map.
"""

from __future__ import annotations

import heapq
import math
import posixpath
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from memlode.code.lang.spec import is_test_path
from memlode.graph.centrality import pagerank
from memlode.graph.model import Graph, GraphEdge
from memlode.storage import code_graph_rows
from memlode.storage.db import Database

__all__ = ["CHARS_PER_TOKEN", "HOT_WEIGHT", "MapFile", "MapSymbol", "RepoMap", "repo_map"]

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English and code with BPE tokenizers
HOT_WEIGHT = 100.0  # teleport weight of the hottest file relative to a cold one (the issue)
# A file's own top-level definitions share this much of its rank even when nothing refers to
# them, so that a central file shows its public API, not only what others happen to call.
OWN_SHARE = 0.2
PRIVATE_FACTOR = 0.1  # aider's discount for `_names`
# Teleport prior: a file with more definitions is more likely to be where work happens
# (sqrt keeps a 3000-line module from drowning the rest); measured on requests/psutil/flask.
SIZE_EXPONENT = 0.5
# Tests pass their rank on to the code they exercise but are rarely what a map should show.
TEST_FACTOR = 0.1
# A package's entry file (``pkg/__init__.py``, ``src/index.ts``, ``lib.rs``, ``main.go``) is
# where a reader starts; it teleports this much more, so rank flows from the public surface.
# Where the entry file itself sits in the map is decided without the boost (see repo_map).
ENTRY_BOOST = 10.0
# Files outside the project's main language family (by lines: a Python package's C extension,
# a Go service's JS assets) teleport this much less: the map describes the main code first.
FOREIGN_FACTOR = 0.25
_FAMILY = {"typescript": "ecma", "tsx": "ecma", "javascript": "ecma", "c": "c", "cpp": "c"}
# Each definition already shown from a file divides the priority of the next one by
# (1 + DIMINISH * shown): a map of many files beats a map of one file's every helper.
DIMINISH = 0.25
# Constants are worth showing less than the classes and functions that use them.
CONSTANT_FACTOR = 0.3
# A type named in a signature says less about dependence than a call or an import.
USE_WEIGHT = 0.3
_ENTRY_NAMES = frozenset(
    {"__init__.py", "index.ts", "index.js", "index.tsx", "lib.rs", "main.rs", "main.go",
     "mod.rs", "main.py", "__main__.py", "app.py"}
)  # fmt: skip
_MAP_KINDS = ("class", "interface", "type", "function", "method", "endpoint", "constant", "module")
_REF_KINDS = ("call", "use", "inherit", "extend", "implement", "import")


@dataclass(frozen=True, slots=True)
class MapSymbol:
    node_id: str
    name: str
    kind: str
    signature: str
    line: int
    rank: float
    depth: int


@dataclass(slots=True)
class MapFile:
    path: str
    rank: float
    symbols: list[MapSymbol] = field(default_factory=list)


@dataclass(slots=True)
class RepoMap:
    text: str
    files: list[MapFile]
    tokens: int  # estimated tokens of ``text``
    budget: int

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "budget": self.budget,
            "files": [
                {"path": f.path, "rank": f.rank, "symbols": [s.name for s in f.symbols]}
                for f in self.files
            ],
        }


@dataclass(slots=True)
class _Sym:
    node_id: str
    name: str
    qualified: str
    kind: str
    sig_len: int  # the signature is fetched only for the symbols the map shows
    line: int
    parent: str | None
    visibility: str
    file_id: int
    rank: float = 0.0
    signature: str = ""


def _teleport(
    paths: Mapping[int, str],
    sizes: Mapping[int, int],
    families: Mapping[int, str],
    heat: Mapping[str, float],
    focus: Sequence[str],
    entries: bool = True,
) -> dict[str, float]:
    """Teleport weight of each file: a size and language prior times the heat factor (and,
    with ``entries``, ENTRY_BOOST for entry files)."""
    lines: dict[str, int] = defaultdict(int)
    for fid, family in families.items():
        lines[family] += sizes.get(fid, 0)
    main = max(sorted(lines), key=lambda f: lines[f]) if lines else ""
    weights = {p: float(v) for p, v in heat.items() if v > 0}
    top = max(weights.values(), default=1.0)
    for name in focus:
        weights[name] = top
    top = max(weights.values(), default=1.0)
    out: dict[str, float] = {}
    for fid, path in paths.items():
        prior = (1.0 + sizes.get(fid, 0)) ** SIZE_EXPONENT
        if entries and _is_entry(path):
            prior *= ENTRY_BOOST
        if families.get(fid, main) != main:
            prior *= FOREIGN_FACTOR
        value = _lookup(weights, path) if weights else 0.0
        out[str(fid)] = prior * (1.0 + (HOT_WEIGHT - 1.0) * (value / top if value else 0.0))
    return out


def _is_entry(path: str) -> bool:
    parts = path.split("/")
    depth = len(parts) - (2 if parts[0] in ("src", "lib") else 1)
    return parts[-1] in _ENTRY_NAMES and depth <= 1 and not is_test_path(path)


def _lookup(weights: Mapping[str, float], path: str) -> float:
    """Heat of a file given by its relative path, an absolute path, or a path suffix."""
    if path in weights:
        return weights[path]
    for key, value in weights.items():
        if key.endswith("/" + path) or path.endswith("/" + key.lstrip("./")):
            return value
    return 0.0


def repo_map(
    db: Database,
    namespace: str,
    *,
    tokens: int = 1024,
    heat: Mapping[str, float] | None = None,
    focus: Sequence[str] = (),
) -> RepoMap:
    """The map of an indexed namespace; ``heat``: path -> how recently/often it was edited."""
    conn = db.conn
    files: dict[int, tuple[str, str]] = {}
    families: dict[int, str] = {}
    for fid, root, path, language in code_graph_rows.map_files(conn, namespace):
        files[fid] = (root, path)
        families[fid] = _FAMILY.get(language, language)
    roots = {root for root, _ in files.values()}
    paths = {
        fid: path if len(roots) == 1 else posixpath.join(posixpath.basename(root), path)
        for fid, (root, path) in files.items()
    }
    refs = code_graph_rows.map_references(conn, namespace, list(_REF_KINDS), USE_WEIGHT)
    # file graph: referencer -> definer, weight sqrt(count) so repetition counts less
    weights: dict[tuple[int, int], float] = defaultdict(float)
    out_weight: dict[int, float] = defaultdict(float)
    for src, dst, _target, count in refs:
        w = math.sqrt(count)
        out_weight[src] += w
        if src != dst and src in paths and dst in paths:
            weights[(src, dst)] += w
    graph = Graph(
        [str(f) for f in paths],
        [GraphEdge(str(a), str(b), "REFERENCES", w) for (a, b), w in weights.items()],
    )
    symbols = _load_symbols(db, namespace)
    per_file: dict[int, list[_Sym]] = defaultdict(list)
    for sym in symbols.values():
        per_file[sym.file_id].append(sym)
    sizes = {
        fid: sum(1 for s in members if s.visibility != "private")
        for fid, members in per_file.items()
    }
    seeds = _teleport(paths, sizes, families, heat or {}, focus)
    flow = {int(k): v for k, v in pagerank(graph, personalization=seeds).items()}
    # A file's own place comes from PageRank without the entry boost: the boost makes rank
    # flow from where a reader starts (above); it is no vote for the entry file itself, which
    # would otherwise keep most of it (its teleport, and the rank of files without outgoing
    # references, which teleport like the walk). What a file is shown with discounts tests.
    place = seeds
    if any(_is_entry(path) for path in paths.values()):
        place = _teleport(paths, sizes, families, heat or {}, focus, entries=False)
    placed = flow if place is seeds else pagerank(graph, personalization=place)
    file_rank = {
        int(k): rank * (TEST_FACTOR if is_test_path(paths[int(k)]) else 1.0)
        for k, rank in placed.items()
    }
    for src, _dst, target, count in refs:
        found = symbols.get(target)
        if found is not None and out_weight[src] > 0:
            found.rank += flow.get(src, 0.0) * math.sqrt(count) / out_weight[src]
    for fid, members in per_file.items():
        top_level = [s for s in members if s.parent is None and s.kind != "constant"]
        for sym in top_level:
            sym.rank += file_rank.get(fid, 0.0) * OWN_SHARE / len(top_level)
    for sym in symbols.values():
        if sym.visibility == "private":
            sym.rank *= PRIVATE_FACTOR
        if is_test_path(paths.get(sym.file_id, "")):
            sym.rank *= TEST_FACTOR
        if sym.kind == "constant":
            sym.rank *= CONSTANT_FACTOR
    return _render(db, paths, file_rank, symbols, tokens)


def _load_symbols(db: Database, namespace: str) -> dict[str, _Sym]:
    rows = code_graph_rows.map_symbols(db.conn, namespace, list(_MAP_KINDS))
    return {r[0]: _Sym(*r) for r in rows}


def _render(
    db: Database,
    paths: Mapping[int, str],
    file_rank: Mapping[int, float],
    symbols: Mapping[str, _Sym],
    tokens: int,
) -> RepoMap:
    budget = max(0, tokens) * CHARS_PER_TOKEN
    by_qualified = {s.qualified: s for s in symbols.values()}
    chosen: dict[int, dict[str, _Sym]] = defaultdict(dict)
    used = 0
    # a heap of (-priority, node id, entries of its file when pushed): a symbol's priority
    # drops with every entry its file already has, so the budget spreads over more files
    heap = [(-s.rank, s.node_id, 0) for s in symbols.values() if s.rank > 0]
    heapq.heapify(heap)
    while heap and used < budget:
        _neg, node_id, seen = heapq.heappop(heap)
        sym = symbols[node_id]
        picked = chosen[sym.file_id]
        if node_id in picked:
            continue
        if len(picked) != seen:  # the file grew since: re-queue at the lower priority
            priority = sym.rank / (1.0 + DIMINISH * len(picked))
            heapq.heappush(heap, (-priority, node_id, len(picked)))
            continue
        chain = _chain(sym, by_qualified)
        cost = 0 if picked else len(paths[sym.file_id]) + 2
        new = [s for s in chain if s.node_id not in picked]
        cost += sum(_width(s, depth) + 1 for depth, s in enumerate(chain) if s in new)
        if used + cost > budget:
            continue
        for s in new:
            picked[s.node_id] = s
        used += cost
    _fill_signatures(db, [s for picked in chosen.values() for s in picked.values()])
    ranked_files = sorted(
        (fid for fid in chosen if chosen[fid]), key=lambda f: (-file_rank.get(f, 0.0), paths[f])
    )
    lines: list[str] = []
    out_files: list[MapFile] = []
    for fid in ranked_files:
        picked = chosen[fid]
        entry = MapFile(paths[fid], file_rank.get(fid, 0.0))
        lines.append(f"{paths[fid]}:")
        for sym in sorted(picked.values(), key=lambda s: (s.line, s.node_id)):
            depth = len(_chain(sym, by_qualified)) - 1
            lines.append(_line(sym, depth))
            entry.symbols.append(
                MapSymbol(sym.node_id, sym.name, sym.kind, sym.signature, sym.line, sym.rank, depth)
            )
        out_files.append(entry)
    text = "\n".join(lines) + ("\n" if lines else "")
    return RepoMap(text, out_files, math.ceil(len(text) / CHARS_PER_TOKEN), tokens)


def _chain(sym: _Sym, by_qualified: Mapping[str, _Sym]) -> list[_Sym]:
    """The symbol and its enclosing symbols in the same file, outermost first."""
    chain = [sym]
    current = sym
    while current.parent is not None:
        parent = by_qualified.get(current.parent)
        if parent is None or parent.file_id != sym.file_id or len(chain) > 8:
            break
        chain.append(parent)
        current = parent
    return chain[::-1]


def _width(sym: _Sym, depth: int) -> int:
    return 2 * (depth + 1) + (sym.sig_len or len(sym.name))


def _line(sym: _Sym, depth: int) -> str:
    text = sym.signature or sym.name
    return "  " * (depth + 1) + text


def _fill_signatures(db: Database, chosen: Sequence[_Sym]) -> None:
    by_node = {s.node_id: s for s in chosen}
    nodes = sorted(by_node)
    for node_id, signature in code_graph_rows.signatures(db.conn, nodes):
        by_node[node_id].signature = signature
