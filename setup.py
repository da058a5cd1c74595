"""The native half of `pip install .`: builds linea-compile, linea-run and
the CUDA and MPI runtime libraries with CMake (in $LINEA_BUILD_DIR, default build/,
reusing what is built there) and ships them inside the package as
linea/_native/{bin,lib}, where `linea.runner.build_dir()` finds them.

Needs what scripts/install-deps.sh installs (LLVM/MLIR 22, CMake, Ninja; the
CUDA toolkit for the CUDA runtime library). The metadata is pyproject.toml's.
"""

import os
import pathlib
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent
TOOLS = ["linea-compile", "linea-run"]
LIBRARIES = ["libLineaCudaRuntime.so", "libLineaMpiRuntime.so", "libLineaGpuEmulation.so"]


class BuildNative(build_py):
    def run(self):
        super().run()
        build = pathlib.Path(os.environ.get("LINEA_BUILD_DIR", ROOT / "build"))
        if not (build / "build.ninja").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=Release",
                            "-DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir"], check=True)
        subprocess.run(["cmake", "--build", str(build), "-j2", "--target", *TOOLS],
                       check=True)
        if (build / "runtime").is_dir():
            subprocess.run(["cmake", "--build", str(build), "-j2"], check=True)
        native = pathlib.Path(self.build_lib) / "linea" / "_native"
        (native / "bin").mkdir(parents=True, exist_ok=True)
        (native / "lib").mkdir(parents=True, exist_ok=True)
        for tool in TOOLS:
            shutil.copy2(build / "bin" / tool, native / "bin" / tool)
        for library in LIBRARIES:
            if (build / "lib" / library).exists():
                shutil.copy2(build / "lib" / library, native / "lib" / library)


# setuptools' own build directory stays out of CMake's build/lib.
setup(cmdclass={"build_py": BuildNative},
      options={"build": {"build_base": str(ROOT / "build" / "setuptools")},
               "egg_info": {"egg_base": str(ROOT / "build" / "setuptools")}})
