"""The same BERT sentence encoder as a plain numpy forward pass.

It needs nothing beyond numpy and the safetensors weights, and serves as an independent check
of the ONNX graph and as the fallback when onnxruntime is absent. It is slower than
onnxruntime on CPU (``bench/bench_embed.py`` measures both).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from memlode.embed._model_files import BertSpec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["NumpyBert"]

_MASK_NEG = -10_000.0  # as in the ONNX graph: exp() of it is 0 in float32
_POOL_MIN_COUNT = 1e-9
_NORM_MIN = 1e-12
# Abramowitz & Stegun 7.1.26: erf to within 1.5e-7, far below float32 noise after LayerNorm.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(x: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.float32]:
    import numpy as np

    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + _ERF_P * a)
    a1, a2, a3, a4, a5 = _ERF_A
    poly = ((((a5 * t + a4) * t + a3) * t + a2) * t + a1) * t
    out: npt.NDArray[np.float32] = (sign * (1.0 - poly * np.exp(-a * a))).astype(
        np.float32, copy=False
    )
    return out


def _layer_norm(
    x: npt.NDArray[np.floating[Any]],
    gamma: npt.NDArray[np.float32],
    beta: npt.NDArray[np.float32],
    eps: float,
) -> npt.NDArray[np.float32]:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    out: npt.NDArray[np.float32] = centred / np.sqrt(var + eps) * gamma + beta
    return out


class NumpyBert:
    """Holds pre-transposed float32 weights; ``__call__`` maps ids and mask to unit vectors."""

    def __init__(self, spec: BertSpec, weights: dict[str, npt.NDArray[np.float32]]) -> None:
        import numpy as np

        self.spec = spec
        w = {name: np.asarray(t, dtype=np.float32) for name, t in weights.items()}
        scale = np.float32(1.0 / math.sqrt(spec.head_dim))
        self.word = w["embeddings.word_embeddings.weight"]
        self.positions = (
            w["embeddings.position_embeddings.weight"]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        self.emb_ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers: list[dict[str, npt.NDArray[np.float32]]] = []
        for i in range(spec.layers):
            p = f"encoder.layer.{i}"
            s = f"{p}.attention.self"
            self.layers.append(
                {
                    "qkv_w": np.ascontiguousarray(
                        np.concatenate(
                            [
                                w[f"{s}.query.weight"] * scale,
                                w[f"{s}.key.weight"],
                                w[f"{s}.value.weight"],
                            ]
                        ).T
                    ),
                    "qkv_b": np.concatenate(
                        [w[f"{s}.query.bias"] * scale, w[f"{s}.key.bias"], w[f"{s}.value.bias"]]
                    ),
                    "o_w": np.ascontiguousarray(w[f"{p}.attention.output.dense.weight"].T),
                    "o_b": w[f"{p}.attention.output.dense.bias"],
                    "ln1_g": w[f"{p}.attention.output.LayerNorm.weight"],
                    "ln1_b": w[f"{p}.attention.output.LayerNorm.bias"],
                    "i_w": np.ascontiguousarray(w[f"{p}.intermediate.dense.weight"].T),
                    "i_b": w[f"{p}.intermediate.dense.bias"],
                    "f_w": np.ascontiguousarray(w[f"{p}.output.dense.weight"].T),
                    "f_b": w[f"{p}.output.dense.bias"],
                    "ln2_g": w[f"{p}.output.LayerNorm.weight"],
                    "ln2_b": w[f"{p}.output.LayerNorm.bias"],
                }
            )

    def __call__(
        self, input_ids: npt.NDArray[np.int64], attention_mask: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float32]:
        return self.forward(input_ids, attention_mask)[0]

    def forward(
        self, input_ids: npt.NDArray[np.int64], attention_mask: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Unit sentence vectors (batch x hidden) and the last layer's token states (batch x
        sequence x hidden), as the ONNX graph's two outputs."""
        import numpy as np

        spec = self.spec
        batch, seq = input_ids.shape
        heads, head_dim, eps = spec.heads, spec.head_dim, spec.layer_norm_eps
        x = self.word[input_ids] + self.positions[:seq]
        x = _layer_norm(x, *self.emb_ln, eps)
        mask = attention_mask.astype(np.float32)
        mask_bias = ((1.0 - mask) * _MASK_NEG)[:, None, None, :]
        for layer in self.layers:
            qkv = (x @ layer["qkv_w"] + layer["qkv_b"]).reshape(batch, seq, 3, heads, head_dim)
            qkv = qkv.transpose(2, 0, 3, 1, 4)  # (3, batch, heads, seq, d)
            scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2) + mask_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(batch, seq, spec.hidden)
            x = _layer_norm(
                context @ layer["o_w"] + layer["o_b"] + x, layer["ln1_g"], layer["ln1_b"], eps
            )
            inter = x @ layer["i_w"] + layer["i_b"]
            inter = (
                inter
                * np.float32(0.5)
                * (np.float32(1.0) + _erf(inter / np.float32(math.sqrt(2.0))))
            )
            x = _layer_norm(
                inter @ layer["f_w"] + layer["f_b"] + x, layer["ln2_g"], layer["ln2_b"], eps
            )
        summed = (x * mask[:, :, None]).sum(axis=1)
        mean = summed / np.maximum(mask.sum(axis=1, keepdims=True), _POOL_MIN_COUNT)
        norm = np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), _NORM_MIN)
        out: npt.NDArray[np.float32] = (mean / norm).astype(np.float32, copy=False)
        return out, x.astype(np.float32, copy=False)
