"""Checks that a runtime library defines every mgpu* function an LLVM IR
module declares. usage: runtime_symbols.py FILE.ll LIBRARY.so"""
import re
import subprocess
import sys

ll, library = sys.argv[1:3]
needed = sorted(set(re.findall(r"^declare .*@(mgpu\w+)\(", open(ll).read(), re.M)))
defined = set(re.findall(r" T (mgpu\w+)$", subprocess.run(
    ["nm", "-D", "--defined-only", library], capture_output=True, text=True).stdout, re.M))
missing = [s for s in needed if s not in defined]
print(f"needed {len(needed)}: {' '.join(needed)}")
print(f"missing {len(missing)}: {' '.join(missing)}")
sys.exit(1 if missing else 0)
