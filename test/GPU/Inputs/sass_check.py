"""Disassembles every cubin of a gpu.binary with cuobjdump -sass and counts
the tensor-core instructions (HMMA, from mma.sync; HGMMA, from sm_90a's
wgmma), the shared-memory matrix loads (LDSM, from ldmatrix) and the
asynchronous global-to-shared copies (LDGSTS, from cp.async; UTMALDG, TMA
loads) in each kernel.

usage: sass_check.py CUOBJDUMP FILE.mlir
"""
import re
import subprocess
import sys
import tempfile

cuobjdump, path = sys.argv[1:3]
text = open(path).read()


def unescape(s):
    out, i = bytearray(), 0
    while i < len(s):
        if s[i] == "\\" and s[i + 1] in '\\"':
            out.append(ord(s[i + 1]))
            i += 2
        elif s[i] == "\\":
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
        else:
            out += s[i].encode("latin-1")
            i += 1
    return bytes(out)


binaries = re.findall(r'gpu.binary @(\w+) .*?bin = "((?:[^"\\]|\\.)*)"', text)
with_hmma = with_hgmma = with_ldsm = with_ldgsts = with_utmaldg = 0
with tempfile.TemporaryDirectory() as tmp:
    for name, blob in binaries:
        cubin = f"{tmp}/{name}.cubin"
        open(cubin, "wb").write(unescape(blob))
        done = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"cuobjdump failed on {name}: {done.stderr.strip()}")
            sys.exit(1)
        hmma = len(re.findall(r"\bHMMA\.", done.stdout))
        hgmma = len(re.findall(r"\bHGMMA\.", done.stdout))
        ldsm = len(re.findall(r"\bLDSM\.", done.stdout))
        ldgsts = len(re.findall(r"\bLDGSTS\.", done.stdout))
        utmaldg = len(re.findall(r"\bUTMALDG\.", done.stdout))
        with_hmma += hmma > 0
        with_hgmma += hgmma > 0
        with_ldsm += ldsm > 0
        with_ldgsts += ldgsts > 0
        with_utmaldg += utmaldg > 0
        print(f"{name}: {hmma} HMMA, {hgmma} HGMMA, {ldsm} LDSM, {ldgsts} LDGSTS, "
              f"{utmaldg} UTMALDG")
print(f"{len(binaries)} kernels, {with_hmma} with HMMA, {with_hgmma} with HGMMA, "
      f"{with_ldsm} with LDSM, {with_ldgsts} with LDGSTS, {with_utmaldg} with UTMALDG")
