"""Build the ONNX graph of a BERT sentence encoder straight from its safetensors weights.

No torch, no exporter: the graph is written node by node with the ``onnx`` package, and it
ends in the sentence embedding itself (mean pooling over the attention mask, then L2
normalisation), so onnxruntime hands back finished vectors. Built once per weights digest and
cached on disk by the local embedder; ``GRAPH_VERSION`` changes whenever the graph does.

Inputs ``input_ids`` and ``attention_mask`` (int64, batch x sequence); outputs
``sentence_embedding`` (float32, batch x hidden) and ``token_states`` (float32, batch x
sequence x hidden: the last layer's states that the pooling averages, for late interaction,
see ``memlode.search.late``; onnxruntime computes them anyway and copies them out only when
asked). Token types are all zero (one segment), so
their embedding row is folded into the position table.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from memlode.embed._model_files import BertSpec

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["GRAPH_VERSION", "build_onnx_model"]

GRAPH_VERSION = 2  # 2: the token states are a second output
_OPSET = 18  # LayerNormalization (17) and ReduceL2 with axes as an input (18)
# Added to the scores of padding keys: exp() of it is 0 in float32, and it cannot overflow.
_MASK_NEG = -10_000.0
_POOL_MIN_COUNT = 1e-9  # sentence-transformers' clamp on the mask sum
_NORM_MIN = 1e-12  # torch.nn.functional.normalize's eps

Weights = dict[str, "npt.NDArray[np.float32]"]


class _Graph:
    """A small builder: named initializers, nodes with generated output names."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._count = 0

    def const(self, name: str, array: npt.ArrayLike, dtype: Any = None) -> str:
        import numpy as np
        from onnx import numpy_helper

        value = np.array(array, dtype=dtype, order="C")  # keeps 0-d scalars 0-d
        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def op(self, op_type: str, *inputs: str, **attrs: Any) -> str:
        from onnx import helper

        self._count += 1
        out = f"{op_type.lower()}_{self._count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, name: str, weight: npt.NDArray[Any], bias: npt.NDArray[Any]) -> str:
        """``x @ weight.T + bias`` with a torch-layout (out, in) weight."""
        w = self.const(f"{name}.w", weight.T)
        b = self.const(f"{name}.b", bias)
        return self.op("Add", self.op("MatMul", x, w), b)

    def layer_norm(self, x: str, name: str, weights: Weights, eps: float) -> str:
        gamma = self.const(f"{name}.gamma", weights[f"{name}.weight"])
        beta = self.const(f"{name}.beta", weights[f"{name}.bias"])
        return self.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=eps)


def _gelu(g: _Graph, x: str, sqrt2: str, one: str, half: str) -> str:
    # The exact (erf) GELU of BERT, written in the order onnxruntime's GeluFusion recognises.
    erf = g.op("Erf", g.op("Div", x, sqrt2))
    return g.op("Mul", g.op("Mul", x, g.op("Add", erf, one)), half)


def _attention(g: _Graph, x: str, p: str, spec: BertSpec, w: Weights, mask_bias: str) -> str:
    import numpy as np

    scale = 1.0 / math.sqrt(spec.head_dim)
    # One fused QKV projection; the 1/sqrt(d) score scale is folded into the query weights.
    qkv_w = np.concatenate(
        [w[f"{p}.query.weight"] * scale, w[f"{p}.key.weight"], w[f"{p}.value.weight"]]
    )
    qkv_b = np.concatenate([w[f"{p}.query.bias"] * scale, w[f"{p}.key.bias"], w[f"{p}.value.bias"]])
    qkv = g.linear(x, f"{p}.qkv", qkv_w, qkv_b)
    shape = g.const(f"{p}.qkv_shape", [0, 0, 3, spec.heads, spec.head_dim], np.int64)
    # (batch, seq, 3, heads, d) -> (3, batch, heads, seq, d)
    split = g.op("Transpose", g.op("Reshape", qkv, shape), perm=[2, 0, 3, 1, 4])
    q, k, v = (g.op("Gather", split, g.const(f"{p}.i{i}", i, np.int64), axis=0) for i in range(3))
    scores = g.op("MatMul", q, g.op("Transpose", k, perm=[0, 1, 3, 2]))
    probs = g.op("Softmax", g.op("Add", scores, mask_bias), axis=-1)
    context = g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3])
    merged = g.op("Reshape", context, g.const(f"{p}.merge_shape", [0, 0, spec.hidden], np.int64))
    return merged


def _embeddings(g: _Graph, spec: BertSpec, weights: Weights) -> str:
    """Word + (position + token type 0) embeddings, then LayerNorm."""
    import numpy as np

    word_table = g.const("word_embeddings", weights["embeddings.word_embeddings.weight"])
    positions = (
        weights["embeddings.position_embeddings.weight"]
        + weights["embeddings.token_type_embeddings.weight"][0]
    )
    pos_table = g.const("position_embeddings", positions)
    seq_len = g.op("Gather", g.op("Shape", "input_ids"), g.const("dim1", 1, np.int64), axis=0)
    pos_ids = g.op("Range", g.const("zero_i", 0, np.int64), seq_len, g.const("one_i", 1, np.int64))
    x = g.op(
        "Add", g.op("Gather", word_table, "input_ids", axis=0), g.op("Gather", pos_table, pos_ids)
    )
    return g.layer_norm(x, "embeddings.LayerNorm", weights, spec.layer_norm_eps)


def _layer(
    g: _Graph,
    x: str,
    p: str,
    spec: BertSpec,
    weights: Weights,
    mask_bias: str,
    gelu_consts: tuple[str, str, str],
) -> str:
    """One encoder layer: self-attention and the feed-forward block, each with its residual."""
    eps = spec.layer_norm_eps
    ctx = _attention(g, x, f"{p}.attention.self", spec, weights, mask_bias)
    out = g.linear(
        ctx,
        f"{p}.attention.output.dense",
        weights[f"{p}.attention.output.dense.weight"],
        weights[f"{p}.attention.output.dense.bias"],
    )
    x = g.layer_norm(g.op("Add", out, x), f"{p}.attention.output.LayerNorm", weights, eps)
    inter = g.linear(
        x,
        f"{p}.intermediate.dense",
        weights[f"{p}.intermediate.dense.weight"],
        weights[f"{p}.intermediate.dense.bias"],
    )
    inter = _gelu(g, inter, *gelu_consts)
    out = g.linear(
        inter,
        f"{p}.output.dense",
        weights[f"{p}.output.dense.weight"],
        weights[f"{p}.output.dense.bias"],
    )
    return g.layer_norm(g.op("Add", out, x), f"{p}.output.LayerNorm", weights, eps)


def build_onnx_model(spec: BertSpec, weights: Weights) -> bytes:
    """Serialise the sentence-embedding graph of ``spec`` with ``weights``."""
    import numpy as np
    from onnx import TensorProto, helper

    g = _Graph()
    f32 = np.float32
    sqrt2 = g.const("sqrt2", math.sqrt(2.0), f32)
    one = g.const("one", 1.0, f32)
    half = g.const("half", 0.5, f32)
    x = _embeddings(g, spec, weights)

    # Padding keys get a large negative score: (1 - mask) * _MASK_NEG, shaped (batch,1,1,seq).
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    inverted = g.op("Sub", one, mask)
    mask_bias = g.op(
        "Unsqueeze",
        g.op("Mul", inverted, g.const("mask_neg", _MASK_NEG, f32)),
        g.const("axes12", [1, 2], np.int64),
    )
    for i in range(spec.layers):
        x = _layer(g, x, f"encoder.layer.{i}", spec, weights, mask_bias, (sqrt2, one, half))

    # Mean pooling over real tokens, then L2 normalisation.
    mask3 = g.op("Unsqueeze", mask, g.const("axis2", [2], np.int64))
    axis1 = g.const("axis1", [1], np.int64)
    summed = g.op("ReduceSum", g.op("Mul", x, mask3), axis1, keepdims=0)
    count = g.op(
        "Max",
        g.op("ReduceSum", mask3, axis1, keepdims=0),
        g.const("min_count", _POOL_MIN_COUNT, f32),
    )
    mean = g.op("Div", summed, count)
    norm = g.op(
        "Max", g.op("ReduceL2", mean, axis1, keepdims=1), g.const("min_norm", _NORM_MIN, f32)
    )
    g.nodes.append(helper.make_node("Div", [mean, norm], ["sentence_embedding"]))
    g.nodes.append(helper.make_node("Identity", [x], ["token_states"]))

    graph = helper.make_graph(
        g.nodes,
        f"{spec.model_id}-sentence-embedding",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [
            helper.make_tensor_value_info(
                "sentence_embedding", TensorProto.FLOAT, ["batch", spec.hidden]
            ),
            helper.make_tensor_value_info(
                "token_states", TensorProto.FLOAT, ["batch", "seq", spec.hidden]
            ),
        ],
        g.initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", _OPSET)], producer_name="memlode"
    )
    model.ir_version = 8  # onnxruntime >= 1.14 reads IR 8; newer onnx would stamp a newer one
    # No onnx.checker pass: it costs a third of the build, and onnxruntime validates the graph
    # when it loads it (the tests compare its output with the torch reference).
    data: bytes = model.SerializeToString()
    return data
