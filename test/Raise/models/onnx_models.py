"""The ONNX half of the raise corpus: layers built as ONNX graphs (no PyTorch
needed), imported by torch-mlir's ONNX importer and lowered to
linalg-on-tensors by its pipelines (scripts/raise-corpus.py --onnx).

Each entry: a function building the graph for a sequence length L, a float64
numpy reference of the same math, the input shapes, and what linea-raise
must make of it (as in models.py).
"""

import numpy as np

B, H, D, DV = 1, 2, 8, 4
PREFIX = 5


def qkv(L):
    return [(B, H, L, D), (B, H, L, D), (B, H, L, DV)]


def _graph(name, nodes, L, initializers=()):
    import onnx
    from onnx import TensorProto, helper
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s))
              for n, s in zip("qkv", qkv(L))]
    out = helper.make_tensor_value_info("o", TensorProto.FLOAT, [B, H, L, DV])
    graph = helper.make_graph(nodes, name, inputs, [out], initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return onnx.shape_inference.infer_shapes(model)


def causal_trilu(L):
    """Trilu(Q K^T) V."""
    from onnx import helper
    return _graph("causal_trilu", [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Trilu", ["s"], ["m"], upper=0),
        helper.make_node("MatMul", ["m", "v"], ["o"]),
    ], L)


def prefix_range(L):
    """Where((t <= i) or (t < PREFIX), Q K^T, 0) V with t, i from Range."""
    import onnx
    from onnx import helper, numpy_helper
    consts = [numpy_helper.from_array(np.array(v, dtype=np.int64), name=n)
              for n, v in [("zero", 0), ("one", 1), ("length", L), ("j", PREFIX)]]
    consts.append(numpy_helper.from_array(np.array(0.0, dtype=np.float32), name="fzero"))
    return _graph("prefix_range", [
        helper.make_node("Range", ["zero", "length", "one"], ["ar"]),
        helper.make_node("Unsqueeze", ["ar", "axis1"], ["rows"]),
        helper.make_node("Unsqueeze", ["ar", "axis0"], ["cols"]),
        helper.make_node("LessOrEqual", ["cols", "rows"], ["causal"]),
        helper.make_node("Less", ["cols", "j"], ["head"]),
        helper.make_node("Or", ["causal", "head"], ["visible"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Where", ["visible", "s", "fzero"], ["m"]),
        helper.make_node("MatMul", ["m", "v"], ["o"]),
    ], L, consts + [numpy_helper.from_array(np.array([1], dtype=np.int64), name="axis1"),
                    numpy_helper.from_array(np.array([0], dtype=np.int64), name="axis0")])


def softmax_causal(L):
    """Softmax(Q K^T / sqrt(D) + (-inf above the diagonal)) V: the mask as
    Where(Trilu(ones) == 0, -inf, s)."""
    from onnx import helper, numpy_helper
    consts = [numpy_helper.from_array(np.ones((L, L), dtype=np.float32), name="ones"),
              numpy_helper.from_array(np.array(1.0 / np.sqrt(D), dtype=np.float32), name="scale"),
              numpy_helper.from_array(np.array(0.0, dtype=np.float32), name="fzero"),
              numpy_helper.from_array(np.array(-np.inf, dtype=np.float32), name="minf")]
    return _graph("softmax_causal", [
        helper.make_node("Trilu", ["ones"], ["tri"], upper=0),
        helper.make_node("Equal", ["tri", "fzero"], ["hidden"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s0"]),
        helper.make_node("Mul", ["s0", "scale"], ["s"]),
        helper.make_node("Where", ["hidden", "minf", "s"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o"]),
    ], L, consts)


def _causal(L):
    return np.tril(np.ones((L, L), dtype=bool))


def _linear(q, k, v, mask):
    return (np.where(mask, q @ np.swapaxes(k, -1, -2), 0.0)) @ v


def _softmax(q, k, v, mask):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    s = np.where(mask, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def entry(build, reference, raises, remark=None, L=16):
    return dict(build=build, reference=reference, shapes=qkv, raises=raises, remark=remark,
                L=L, dynamic=False, ops=[r.split(" ")[0] for r in raises])


CORPUS = {
    "onnx_causal_trilu": entry(causal_trilu, lambda q, k, v: _linear(q, k, v, _causal(q.shape[-2])),
                               ["linear_attention mask = causal"]),
    "onnx_prefix_range": entry(prefix_range,
                               lambda q, k, v: _linear(q, k, v, _causal(q.shape[-2]) |
                                                       (np.arange(q.shape[-2]) < PREFIX)[None, :]),
                               [f"linear_attention mask = prefix({PREFIX})"]),
    "onnx_softmax_causal": entry(softmax_causal,
                                 lambda q, k, v: _softmax(q, k, v, _causal(q.shape[-2])),
                                 ["attention mask = causal"]),
}
