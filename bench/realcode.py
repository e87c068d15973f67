"""Real third-party code for the tests and the code-search evaluation, fetched from package
registries (PyPI sdists, npm tarballs, Debian packages) into ``.cache/realcode`` and never
committed.

    python bench/realcode.py [NAME ...]     # fetch what bench/realcode.json lists (or NAMEs)

``make pytest`` runs this first, so CI has every entry; a test asks for a folder with
:func:`real_code` and fails with the command to run when it is missing. Each entry of
``bench/realcode.json`` names one registry and a pinned version:
``{"pypi": "name==version"}``, ``{"npm": "name@version"}`` or ``{"deb": "package=version"}``;
a ``"subdir"`` next to it keeps only that folder of the unpacked archive (a Debian package's
sources sit deep, e.g. under ``usr/share/gocode/src/...``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "realcode.json"
CACHE = Path(os.environ.get("MEMLODE_REALCODE", HERE.parent / ".cache" / "realcode"))

__all__ = ["CACHE", "entries", "fetch", "real_code"]


def entries() -> dict[str, dict[str, str]]:
    """Name -> source, from the manifest."""
    data: dict[str, dict[str, str]] = json.loads(MANIFEST.read_text())["sources"]
    return data


def real_code(name: str) -> Path:
    """The unpacked folder of a manifest entry; fails with the fetch command when missing."""
    if name not in entries():
        raise KeyError(f"{name!r} is not in {MANIFEST.name}")
    folder = CACHE / name
    if not (folder / ".complete").exists():
        raise FileNotFoundError(
            f"real code {name!r} is not fetched; run: .venv/bin/python bench/realcode.py {name}"
        )
    return folder


def fetch(name: str) -> Path:
    """Fetch and unpack one entry (once; a finished folder is kept)."""
    source = entries()[name]
    folder = CACHE / name
    if (folder / ".complete").exists():
        return folder
    CACHE.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(folder, ignore_errors=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        work = Path(tmp)
        unpacked = work / "unpacked"
        unpacked.mkdir()
        if "pypi" in source:
            _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                  "--no-binary", ":all:", "-d", str(work), source["pypi"]])  # fmt: skip
            _untar(next(work.glob("*.tar.gz")), unpacked)
        elif "npm" in source:
            _run(["npm", "pack", "--silent", "--pack-destination", str(work), source["npm"]])
            _untar(next(work.glob("*.tgz")), unpacked)
        elif "deb" in source:
            try:
                _run(["apt-get", "download", "-q", source["deb"]], cwd=work)
            except subprocess.CalledProcessError:
                # a fresh machine may have no package lists yet: read them once, then retry
                _run(["apt-get", "update", "-q"])
                _run(["apt-get", "download", "-q", source["deb"]], cwd=work)
            _run(["dpkg-deb", "-x", str(next(work.glob("*.deb"))), str(unpacked)])
        else:
            raise ValueError(f"{name}: no known registry in {source}")
        # an archive with one top folder (most sdists and npm's package/) is that folder
        children = list(unpacked.iterdir())
        top = children[0] if len(children) == 1 and children[0].is_dir() else unpacked
        if "subdir" in source:
            top = unpacked / source["subdir"]
        top.rename(folder)
    (folder / ".complete").write_text(json.dumps(source) + "\n")
    return folder


def _untar(archive: Path, into: Path) -> None:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    subprocess.run(cmd, check=True, cwd=cwd, stdout=subprocess.DEVNULL)


def main(argv: list[str]) -> int:
    names = argv or sorted(entries())
    for name in names:
        if not (CACHE / name / ".complete").exists():
            print(f"fetching {name} ({next(iter(entries()[name].values()))})", file=sys.stderr)
        fetch(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
