# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "Linea"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.linea_obj_root, "test")
config.excludes = ["Inputs", "project", "CMakeLists.txt", "register.c", "hooks.cpp", "lit.cfg.py", "lit.site.cfg.py"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.linea_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["linea-opt", "linea-run", "linea-compile", "mlir-runner", "mlir-opt", "not", "split-file"], tool_dirs)
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%linea_src", config.linea_src_root))
config.substitutions.append(("%linea_lib", os.path.join(config.linea_obj_root, "lib")))
config.substitutions.append(("%linea_build", config.linea_obj_root))
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(
    ("%runner_libs",
     "-shared-libs=%s/libmlir_runner_utils.so,%s/libmlir_c_runner_utils.so"
     % (config.mlir_lib_dir, config.mlir_lib_dir)))
config.environment["PYTHONPATH"] = os.path.join(config.linea_src_root, "python")

llvm_config.add_tool_substitutions(["mlir-translate"], tool_dirs)

# GPU tests need only the CUDA toolkit's assembler, never a GPU; without it
# they report unsupported.
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%{ptxas}", ptxas))
# SASS checks: cuobjdump and the nvdisasm it runs, from PyPI (see
# scripts/install-deps.sh).
cuda_tools = os.path.join(config.linea_src_root, ".deps", "cuda-tools", "nvidia", "cu13", "bin")
cuobjdump = os.path.join(cuda_tools, "cuobjdump")
if os.path.exists(cuobjdump) and os.path.exists(os.path.join(cuda_tools, "nvdisasm")):
    config.available_features.add("cuobjdump")
    config.substitutions.append(("%{cuobjdump}", cuobjdump))
    config.environment["NVDISASM_PATH"] = cuda_tools
    config.environment["PATH"] = cuda_tools + os.pathsep + config.environment.get("PATH", "")
if os.path.exists(os.path.join(config.linea_obj_root, "lib", "libLineaCudaRuntime.so")):
    config.available_features.add("linea-cuda-runtime")

# Sequence-parallel runs: OpenMPI's mpirun and Linea's MPI runtime library.
# More ranks than cores, and as root where CI runs as root.
mpirun = shutil.which("mpirun")
if mpirun and os.path.exists(os.path.join(config.linea_obj_root, "lib", "libLineaMpiRuntime.so")):
    config.available_features.add("mpi")
    root = ["--allow-run-as-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    config.substitutions.append(
        ("%{mpirun}", " ".join([mpirun, "--oversubscribe"] + root)))
