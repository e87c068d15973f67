"""The local provider: a sentence-transformers BERT model (all-MiniLM-L6-v2 by default) run
offline on the CPU without torch.

On first use the ONNX graph is built from the safetensors weights and saved in the cache
folder under the weights' digest, so every later process only loads it (a fraction of a
second). Texts are tokenised with the model's own ``tokenizer.json``, truncated where
sentence-transformers truncates, sorted by length and batched so little time goes to padding.
Nothing heavy is imported before the first ``embed`` (or ``load``).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memlode.embed._model_files import (
    BertSpec,
    load_weights,
    resolve_model,
    weights_digest,
    write_atomically,
)
from memlode.embed._onnx_bert import GRAPH_VERSION
from memlode.embed._protocol import EmbedError, l2_normalise
from memlode.errors import InvalidInput, MissingDependency
from memlode.textutil import STOPWORDS

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DEFAULT_BATCH_SIZE", "DEFAULT_MAX_BATCH_TOKENS", "LocalEmbedder"]

log = logging.getLogger(__name__)

Backend = Literal["onnx", "numpy"]
_BACKENDS: tuple[Backend, ...] = ("onnx", "numpy")
# Rows and padded tokens per forward pass. bench/bench_embed.py on 2 cores: short texts gain
# nothing past 8-32 rows, and 100-word texts cost the same CPU per text from 256 to 16k tokens
# per pass; 1,024 tokens (4 texts at the 256-token limit, 8 of 100 words) keeps the
# activations small without losing throughput.
DEFAULT_BATCH_SIZE = 32
DEFAULT_MAX_BATCH_TOKENS = 1_024
# A text shorter than this share of its batch's longest starts a new batch: at most half of
# a batch is padding, and a forward pass more costs only a fraction of a millisecond.
_MIN_FILL = 0.5
_THREADS_CAP = 8  # beyond this a small encoder stops scaling and starves the rest of the process

# (input ids, attention mask, want token states) -> (unit sentence vectors, token states or None)
Runner = Callable[
    ["npt.NDArray[np.int64]", "npt.NDArray[np.int64]", bool],
    "tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]",
]


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _require(module: str, what: str, install: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise MissingDependency(what, install)


class LocalEmbedder:
    """all-MiniLM-L6-v2 (or another BERT sentence-transformers folder) on onnxruntime.

    ``cache_dir`` holds the built ONNX graph (callers pass ``<MEMLODE_HOME>/models``); with
    ``None`` the graph is rebuilt in memory by every process. ``backend="numpy"`` runs the same
    network in numpy instead (slower; no onnxruntime needed). ``threads`` defaults to the cores
    this process may use. A forward pass holds at most ``batch_size`` texts and
    ``max_batch_tokens`` padded tokens (one longer text still goes alone).
    """

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        cache_dir: Path | None = None,
        backend: Backend = "onnx",
        threads: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_batch_tokens: int = DEFAULT_MAX_BATCH_TOKENS,
    ) -> None:
        if backend not in _BACKENDS:
            raise InvalidInput(f"unknown local backend {backend!r}; use one of {_BACKENDS}")
        if batch_size < 1 or max_batch_tokens < 1:
            raise InvalidInput("batch size and tokens per batch must be positive")
        _require("numpy", "numpy", "pip install numpy")
        _require("tokenizers", "the tokenizers package", "pip install tokenizers")
        if backend == "onnx":
            _require("onnxruntime", "onnxruntime", "pip install onnxruntime")
        else:
            _require("safetensors", "safetensors", "pip install safetensors")
        self.spec: BertSpec = resolve_model(model)
        self.cache_dir = cache_dir
        self.backend: Backend = backend
        self.threads = max(
            1, threads if threads is not None else min(_usable_cores(), _THREADS_CAP)
        )
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._runner: Runner | None = None
        self._counter: Any = None  # a second tokenizer that does not truncate
        self._content: dict[int, bool] = {}  # token id -> a content word piece (as met)

    @property
    def name(self) -> str:
        return f"local:{self.spec.model_id}"

    @property
    def dim(self) -> int:
        return self.spec.hidden

    @property
    def max_tokens(self) -> int:
        return self.spec.max_seq

    def load(self) -> None:
        """Load the tokenizer and the network now (building and caching the graph if needed)
        instead of on the first ``embed``."""
        self._loaded()

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Word pieces per text, special tokens included, before truncation: a caller compares
        them with ``max_tokens`` to decide where to split."""
        with self._lock:
            if self._counter is None:
                self._counter = self._load_tokenizer()
                self._counter.no_truncation()
            counter = self._counter
        return [len(ids) for ids in _encode(counter, texts)]

    @property
    def token_states(self) -> bool:
        return True

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._forward(texts, None)

    def embed_with_tokens(
        self, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]:
        """The sentence vectors, and for each text the unit last-layer states of its content
        word pieces (special tokens, punctuation and stop words left out; all its pieces when
        it has no content piece), from the same forward pass."""
        states: list[npt.NDArray[np.float32]] = [_no_states(self.dim)] * len(texts)
        return self._forward(texts, states), states

    def _forward(
        self, texts: Sequence[str], states: list[npt.NDArray[np.float32]] | None
    ) -> npt.NDArray[np.float32]:
        import numpy as np

        tokenizer, run = self._loaded()
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = _encode(tokenizer, texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]), reverse=True)
        for chunk in self._batches([len(ids[i]) for i in order]):
            rows = [order[k] for k in chunk]
            longest = len(ids[rows[0]])
            input_ids = np.zeros((len(rows), longest), dtype=np.int64)
            mask = np.zeros((len(rows), longest), dtype=np.int64)
            for row, index in enumerate(rows):
                n = len(ids[index])
                input_ids[row, :n] = ids[index]
                mask[row, :n] = 1
            pooled, hidden = run(input_ids, mask, states is not None)
            out[rows] = pooled
            if states is not None and hidden is not None:
                for row, index in enumerate(rows):
                    n = len(ids[index])
                    keep = self.content_mask(ids[index])
                    if not keep.any():  # only stop words: keep every piece but [CLS]/[SEP]
                        keep[1 : max(n - 1, 1)] = True
                    states[index] = l2_normalise(hidden[row, :n][keep])
        return out

    def content_mask(self, ids: Sequence[int]) -> npt.NDArray[np.bool_]:
        """For each token id, whether it is a content word piece (letters or digits, not a
        stop word, not a special token). Each id is looked up once per process, when first met:
        classifying the whole 30k vocabulary up front would cost a one-shot search ~40 ms."""
        import numpy as np

        known = self._content
        out = np.empty(len(ids), dtype=bool)
        for k, token_id in enumerate(ids):
            flag = known.get(token_id)
            if flag is None:
                piece = self._loaded()[0].id_to_token(token_id) or ""
                special = piece.startswith("[") and piece.endswith("]")
                flag = bool(
                    not special
                    and piece not in STOPWORDS
                    and _LETTER_OR_DIGIT.search(piece) is not None
                )
                known[token_id] = flag
            out[k] = flag
        return out

    def _batches(self, lengths: list[int]) -> list[range]:
        """Cut lengths sorted longest first into batches: at most ``batch_size`` rows and
        ``max_batch_tokens`` padded tokens, and no row shorter than ``_MIN_FILL`` of the
        batch's longest (so one long text does not make short ones pay for its padding)."""
        batches: list[range] = []
        start = 0
        while start < len(lengths):
            longest = lengths[start]
            cap = max(1, min(self.batch_size, self.max_batch_tokens // longest))
            end = start + 1
            while end < len(lengths) and end - start < cap and lengths[end] >= _MIN_FILL * longest:
                end += 1
            batches.append(range(start, end))
            start = end
        return batches

    def _loaded(self) -> tuple[Any, Runner]:
        tokenizer, runner = self._tokenizer, self._runner
        if tokenizer is not None and runner is not None:
            return tokenizer, runner
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = self._load_tokenizer()
            if self._runner is None:
                self._runner = self._load_onnx() if self.backend == "onnx" else self._load_numpy()
            return self._tokenizer, self._runner

    def _load_tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        try:
            tokenizer = Tokenizer.from_file(str(self.spec.tokenizer))
        except Exception as exc:  # tokenizers raises a bare Exception for unreadable files
            raise EmbedError(f"cannot read tokenizer {self.spec.tokenizer}: {exc}") from None
        tokenizer.enable_truncation(max_length=self.spec.max_seq)
        tokenizer.no_padding()  # padded per batch, after sorting by length
        return tokenizer

    def _load_numpy(self) -> Runner:
        from memlode.embed._numpy_bert import NumpyBert

        bert = NumpyBert(self.spec, load_weights(self.spec))

        def run(
            input_ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64], states: bool
        ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
            pooled, hidden = bert.forward(input_ids, mask)
            return pooled, hidden if states else None

        return run

    def _graph_path(self) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = weights_digest(self.spec, self.cache_dir)[:16]
        return self.cache_dir / f"{self.spec.model_id}-{digest}-g{GRAPH_VERSION}.onnx"

    def _load_onnx(self) -> Runner:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # onnxruntime's warnings go to stderr, not our log
        # Idle worker threads would otherwise spin after every call, taking CPU from the editor
        # and the assistant that share this (often 2-core) machine.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        providers = ["CPUExecutionProvider"]
        path = self._graph_path()
        session = None
        if path is not None and path.is_file():
            try:
                session = ort.InferenceSession(str(path), options, providers=providers)
            except Exception as exc:  # a truncated or foreign file: rebuild it
                log.warning("rebuilding unreadable model graph %s: %s", path, exc)
        if session is None:
            unreadable = path is not None and path.is_file()
            graph = self._build_graph()
            # Another process may have built the same graph meanwhile: keep its file (same
            # bytes) unless it is the unreadable one this build replaces.
            if path is not None and (unreadable or not path.is_file()):
                write_atomically(path, graph)
            session = ort.InferenceSession(graph, options, providers=providers)

        def run(
            input_ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64], states: bool
        ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
            feeds = {"input_ids": input_ids, "attention_mask": mask}
            if not states:
                return session.run(_POOLED, feeds)[0], None
            pooled, hidden = session.run(_BOTH, feeds)
            return pooled, hidden

        return run

    def _build_graph(self) -> bytes:
        _require(
            "onnx", "the onnx package (needed once, to build the model graph)", "pip install onnx"
        )
        from memlode.embed._onnx_bert import build_onnx_model

        log.info("building the ONNX graph of %s", self.spec.model_id)
        return build_onnx_model(self.spec, load_weights(self.spec))

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.spec.model_id!r}, backend={self.backend!r})"


_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
_POOLED = ["sentence_embedding"]
_BOTH = ["sentence_embedding", "token_states"]


def _no_states(dim: int) -> npt.NDArray[np.float32]:
    import numpy as np

    return np.zeros((0, dim), dtype=np.float32)


def _encode(tokenizer: Any, texts: Sequence[str]) -> list[list[int]]:
    # encode_batch_fast (tokenizers >= 0.21) skips the character offsets nobody here reads.
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
    return [encoding.ids for encoding in encode(list(texts))]
