"""Assembles every kernel of a gpu.binary in PTX form with ptxas -v.

usage: ptxas_check.py PTXAS CHIP FILE.mlir

Prints one line per kernel (registers, shared memory, spills) and a summary
line; exits 1 if a kernel fails to assemble.
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


assemblies = [unescape(m) for m in re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', text)]
kernels, spilling = 0, 0
with tempfile.TemporaryDirectory() as tmp:
    for index, ptx in enumerate(assemblies):
        ptx_path = f"{tmp}/kernel{index}.ptx"
        open(ptx_path, "w").write(ptx)
        done = subprocess.run([ptxas, f"-arch={chip}", "-v", ptx_path, "-o", f"{tmp}/k.cubin"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            print(f"ptxas failed on kernel {index}:\n{done.stderr}")
            sys.exit(1)
        for name, report in re.findall(r"Compiling entry function '(\w+)' for '\w+'\n(.*?)(?=ptxas info    : Compiling|\Z)",
                                       done.stderr, re.S):
            regs = re.search(r"Used (\d+) registers", report)
            smem = re.search(r"(\d+) bytes smem", report)
            spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
            stores, loads = (int(spills.group(1)), int(spills.group(2))) if spills else (0, 0)
            kernels += 1
            spilling += stores + loads > 0
            print(f"{name}: {regs.group(1) if regs else '?'} registers, "
                  f"{smem.group(1) if smem else 0} bytes smem, spills {stores}/{loads}")
print(f"{chip}: {kernels} kernels assembled, {spilling} with spills")
