"""Prints an .npy file's shape and values, rounded, for FileCheck."""
import sys

import numpy as np

y = np.load(sys.argv[1])
print("dtype", y.dtype, "shape", y.shape)
print(" ".join(f"{v:.4f}" for v in y.ravel()))
