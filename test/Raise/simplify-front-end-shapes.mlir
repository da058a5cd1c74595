// The raise's shape simplifications applied to the model as compiled: the
// broadcast gathers (generics that copy `%x[.., select(dim == 1, 0, i), ..]`)
// are gone, each replaced by its source, the one pair of lengths the IR
// does not relate checked at run time; the guarded `tensor.reshape` is a
// view. Nothing is raised: the matmuls stay.
// RUN: linea-opt %S/models/la_causal_tril_dynamic.mlir --linea-simplify-front-end-shapes | FileCheck %s
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[Q:.+]]: tensor<2x3x?x8xf32>, %[[K:.+]]: tensor<2x3x?x8xf32>, %[[V:.+]]: tensor<2x3x?x4xf32>)
// CHECK: linea.check %{{.+}}, "linea-raise: two dynamic sizes the model broadcasts against each other differ, {0} and {1} (torch.export asserts they are equal)"
// CHECK-NOT: tensor.reshape
// CHECK-NOT: tensor.extract %[[Q]]
// CHECK: linalg.batch_matmul
// CHECK-NOT: linea.linear_attention
// CHECK: linalg.batch_matmul

// The same module runs as before through the CPU path (where the pass runs
// first), with raising off.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../linea-run/Inputs/npy.py f32 %t/q.npy 2 3 5 8
// RUN: %python %S/../linea-run/Inputs/npy.py f32 %t/v.npy 2 3 5 4
// RUN: linea-run %S/models/la_causal_tril_dynamic.mlir --no-raise --arg %t/q.npy --arg %t/q.npy --arg %t/v.npy --output-dir %t/out
// RUN: %python -c "import numpy as np; q = np.load('%t/q.npy').astype(np.float64); v = np.load('%t/v.npy'); s = np.tril(q @ q.transpose(0, 1, 3, 2)); o = np.load('%t/out/result0.npy'); assert np.linalg.norm(o - s @ v) <= 1e-5 * np.linalg.norm(s @ v), o"
