"""linea.from_onnx: an ONNX graph through torch-mlir's ONNX importer, its
boolean constants carried into MLIR 22 (packed bits), raised and checked
against numpy in float64."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import linea

L, D = 12, 8


def graph(mask):
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
             helper.make_node("MatMul", ["q", "kt"], ["s"]),
             helper.make_node("Where", ["mask", "s", "zero"], ["m"]),
             helper.make_node("MatMul", ["m", "v"], ["o"])]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, L, D]) for n in "qkv"]
    out = helper.make_tensor_value_info("o", TensorProto.FLOAT, [2, L, D])
    constants = [numpy_helper.from_array(mask, name="mask"),
                 numpy_helper.from_array(np.array(0.0, np.float32), name="zero")]
    return helper.make_model(helper.make_graph(nodes, "g", inputs, [out], initializer=constants),
                             opset_imports=[helper.make_opsetid("", 17)])


def arrays():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((2, L, D)).astype(np.float32) for _ in range(3)]


@pytest.mark.parametrize("name,mask,raised", [
    ("causal", np.tril(np.ones((L, L), bool)), "raised to linea.linear_attention mask = causal"),
    ("band", np.tril(np.ones((L, L), bool)) & ~np.tril(np.ones((L, L), bool), -3), "not raised"),
])
def test_boolean_mask_table(name, mask, raised, tmp_path):
    path = tmp_path / f"{name}.onnx"
    onnx.save(graph(mask), str(path))
    model = linea.from_onnx(path)
    assert raised in model.report(), model.report()
    q, k, v = arrays()
    exact = np.where(mask, q.astype(np.float64) @ k.transpose(0, 2, 1), 0.0) @ v
    out = model(q, k, v)
    assert np.linalg.norm(out - exact) / np.linalg.norm(exact) <= 1e-4


def test_unreadable_model_is_a_linea_error(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(linea.LineaError, match="cannot read ONNX model"):
        linea.from_onnx(bad)
