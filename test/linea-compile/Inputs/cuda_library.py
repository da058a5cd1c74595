"""Checks a `linea-compile --target cuda` library: every undefined symbol is
defined by Linea's CUDA runtime library or versioned by the C runtime, and
the kernels are embedded as CUDA ELF objects (written out for cuobjdump).
usage: cuda_library.py LIB.so RUNTIME.so OUT_DIR"""
import re
import struct
import subprocess
import sys

library, runtime, out_dir = sys.argv[1:4]


def symbols(path, flag):
    text = subprocess.run(["nm", "-D", flag, path], capture_output=True, text=True,
                          check=True).stdout
    return [line.split()[-1] for line in text.splitlines() if line.split()[-2] in "UTw"
            and (flag != "--undefined-only" or line.split()[-2] == "U")]


provided = set(symbols(runtime, "--defined-only"))
undefined = symbols(library, "--undefined-only")
from_runtime = sorted(s for s in undefined if s in provided)
from_libc = sorted(s for s in undefined if "@GLIBC" in s)
other = sorted(set(undefined) - set(from_runtime) - set(from_libc))
print(f"from the CUDA runtime {len(from_runtime)}: {' '.join(from_runtime)}")
print(f"from the C library {len(from_libc)}")
print(f"unresolved {len(other)}: {' '.join(other)}")



def elf_size(data, start):
    """The end of the furthest header table or section of the ELF at start."""
    phoff, shoff = struct.unpack_from("<QQ", data, start + 32)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, start + 54)
    end = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
    for k in range(shnum):
        kind, = struct.unpack_from("<I", data, start + shoff + k * shentsize + 4)
        offset, size = struct.unpack_from("<QQ", data, start + shoff + k * shentsize + 24)
        if kind != 8:  # SHT_NOBITS has no bytes in the file
            end = max(end, offset + size)
    return end


# Embedded CUDA ELF objects: e_machine 190 (EM_CUDA), 64-bit little endian.
data = open(library, "rb").read()
cubins = []
for match in re.finditer(rb"\x7fELF\x02\x01", data):
    start = match.start()
    if start == 0 or struct.unpack_from("<H", data, start + 18)[0] != 190:
        continue
    cubins.append(data[start:start + elf_size(data, start)])
for k, cubin in enumerate(cubins):
    open(f"{out_dir}/kernels{k}.cubin", "wb").write(cubin)
print(f"embedded cubins {len(cubins)}")
sys.exit(1 if other or not cubins else 0)
