"""Writes .npy fixtures for the linea-run tests, good and bad.

usage: npy.py KIND PATH [SHAPE...]
"""
import struct
import sys

import numpy as np

kind, path = sys.argv[1], sys.argv[2]
shape = tuple(int(s) for s in sys.argv[3:])
data = np.arange(1, int(np.prod(shape)) + 1, dtype=np.float64).reshape(shape) / 7.0

if kind == "f32":
    np.save(path, data.astype(np.float32))
elif kind == "f16":
    np.save(path, data.astype(np.float16))
elif kind == "f64":
    np.save(path, data)
elif kind == "i32":
    np.save(path, data.astype(np.int32))
elif kind == "ids":  # token ids 0, 1, 2, ... as int64
    np.save(path, np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape))
elif kind == "u8":
    np.save(path, data.astype(np.uint8))
elif kind == "fortran":
    np.save(path, np.asfortranarray(data.astype(np.float32)))
elif kind == "truncated":
    np.save(path, data.astype(np.float32))
    raw = open(path, "rb").read()
    open(path, "wb").write(raw[:-4])
elif kind == "badmagic":
    open(path, "wb").write(b"PK\x03\x04 not an npy file at all")
elif kind == "badheader":
    header = b"{'descr': '<f4', 'shape': (2,), }"
    header += b" " * (64 - 10 - len(header) - 1) + b"\n"
    open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header
                           + b"\x00" * 8)
else:
    sys.exit(f"unknown kind {kind}")
