"""Assembles every kernel of a gpu.binary in PTX form with ptxas -v.

usage: ptxas_check.py PTXAS CHIP FILE.mlir

Prints one line per kernel (threads per block, registers, static shared
memory from ptxas and dynamic shared memory from the host's launch, spills,
and the occupancy those allow on an sm_80/sm_90 SM: 64K registers, 64
warps, 32 blocks, 228 KiB of shared memory) and a summary line; exits 1 if
a kernel fails to assemble.
"""
import re
import subprocess
import sys
import tempfile

ptxas, chip, path = sys.argv[1:4]
text = open(path).read()


def unescape(s):
    # MLIR prints string attributes with \XX hex escapes and \\ / \".
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), s)


# (module name, PTX) per gpu.binary: kernels are told apart by their module
# (outlined kernels often share a function name).
assemblies = [(module, unescape(m)) for module, m in re.findall(
    r'gpu\.binary @(\w+)[^\n]*?assembly = "((?:[^"\\]|\\.)*)"', text)]
kernels, spilling = 0, 0


def dynamic_shared_memory():
    """Kernel module -> the bytes of dynamic shared memory its launch asks
    for (an llvm.mlir.constant operand of gpu.launch_func)."""
    constants = dict(re.findall(r"(%\w+) = llvm\.mlir\.constant\((\d+) : i32\)", text))
    # (An asynchronous launch names its stream first: `<%s : !llvm.ptr>`.)
    launch = r"gpu\.launch_func\s+(?:<[^>]*>\s+)?@(\w+)::@\w+.*?dynamic_shared_memory_size (%\w+)"
    return {module: int(constants.get(value, 0)) for module, value in re.findall(launch, text)}


def occupancy(registers, threads, shared):
    """Resident warps / 64 on an SM, limited by registers (allocated per
    warp in units of 256), warps, blocks and shared memory."""
    warps = -(-threads // 32)
    per_warp = -(-max(registers, 1) * 32 // 256) * 256
    blocks = min(65536 // (per_warp * warps), 64 // warps, 32,
                 228 * 1024 // shared if shared else 32)
    return blocks * warps / 64


dynamic = dynamic_shared_memory()
with tempfile.TemporaryDirectory() as tmp:
    for index, (module, ptx) in enumerate(assemblies):
        ptx_path = f"{tmp}/kernel{index}.ptx"
        open(ptx_path, "w").write(ptx)
        done = subprocess.run([ptxas, f"-arch={chip}", "-v", ptx_path, "-o", f"{tmp}/k.cubin"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            print(f"ptxas failed on kernel {index}:\n{done.stderr}")
            sys.exit(1)
        maxntid = re.search(r"\.maxntid (\d+), (\d+), (\d+)", ptx)
        threads = 1
        for n in (maxntid.groups() if maxntid else ("1024", "1", "1")):
            threads *= int(n)
        for name, report in re.findall(r"Compiling entry function '(\w+)' for '\w+'\n(.*?)(?=ptxas info    : Compiling|\Z)",
                                       done.stderr, re.S):
            regs = re.search(r"Used (\d+) registers", report)
            smem = re.search(r"(\d+) bytes smem", report)
            spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
            stores, loads = (int(spills.group(1)), int(spills.group(2))) if spills else (0, 0)
            kernels += 1
            spilling += stores + loads > 0
            registers = int(regs.group(1)) if regs else 0
            static = int(smem.group(1)) if smem else 0
            shared = dynamic.get(module, 0)
            print(f"{module}: {threads} threads/block, {registers} registers, "
                  f"{static} bytes smem + {shared} dynamic, "
                  f"spills {stores}/{loads}, "
                  f"occupancy {occupancy(registers, threads, static + shared):.0%}")
print(f"{chip}: {kernels} kernels assembled, {spilling} with spills")
