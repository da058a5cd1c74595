"""The host code's LLVM step (lib/Target/HostCompile.cpp), seen through a
compiled library."""

import numpy as np

import linea

# A stack buffer inside a loop of 200,000 iterations, its contents used
# (copied in and out), so that LLVM cannot drop it: allocated anew in every
# iteration, 4 KiB each, it would take 800 MB of stack. Launch parameters in
# a host loop of the CUDA path are such buffers (a stack overflow inside
# cuLaunchKernel, seen on an H100); every fixed-size one is allocated once,
# in its function's entry block.
LOOP_WITH_A_STACK_BUFFER = """
func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 200000 : index
  %one = arith.constant 1.0 : f32
  %in = bufferization.to_buffer %x : tensor<1024xf32> to memref<1024xf32>
  %out = memref.alloc() : memref<1024xf32>
  memref.copy %in, %out : memref<1024xf32> to memref<1024xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.alloca() : memref<1024xf32>
    memref.copy %out, %a : memref<1024xf32> to memref<1024xf32>
    %v = memref.load %a[%c0] : memref<1024xf32>
    %w = arith.addf %v, %one : f32
    memref.store %w, %a[%c0] : memref<1024xf32>
    memref.copy %a, %out : memref<1024xf32> to memref<1024xf32>
  }
  %r = bufferization.to_tensor %out restrict : memref<1024xf32> to tensor<1024xf32>
  return %r : tensor<1024xf32>
}
"""


def test_stack_buffer_in_a_loop_is_allocated_once():
    x = np.random.default_rng(0).standard_normal(1024).astype(np.float32)
    out = linea.compile(LOOP_WITH_A_STACK_BUFFER, raising=False)(x)
    want = x.astype(np.float64)
    want[0] += 200000
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=0.05)
