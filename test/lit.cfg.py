# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QMAT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Unit", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.qmat_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.qmat_python))
config.substitutions.append(("%qmat_src_root", config.qmat_src_root))
config.substitutions.append(("%qmat_obj_root", config.qmat_obj_root))
# The CMake that configured this build, for the tests of the installed package.
config.substitutions.append(("%cmake", config.cmake))
config.substitutions.append(("%cuda_path", config.cuda_path))
# Generated launchers are compiled by the tests themselves.
config.substitutions.append(("%cxx", "g++"))
config.substitutions.append(("%cc", "gcc"))
# clang-22 (make deps installs it) for the launchers' second compiler.
config.substitutions.append(("%clangxx", os.path.join(config.llvm_tools_dir, "clang++")))
# Compiler flags of the tests that run a generated launcher under
# AddressSanitizer and UBSan; every UB report is an error.
config.substitutions.append(("%asan_ubsan_flags", "-g -fsanitize=address,undefined "
                             "-fno-sanitize-recover=undefined -fno-omit-frame-pointer"))
config.substitutions.append(("%nvcc", os.path.join(config.cuda_path, "bin", "nvcc")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# ptxas for gpu-module-to-binary comes from the CUDA toolkit.
llvm_config.with_environment("PATH", os.path.join(config.cuda_path, "bin"),
                             append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = [
    ToolSubst("qmat-opt", unresolved="fatal"),
    ToolSubst("qmat-aot", unresolved="fatal"),
    ToolSubst("%qmat-ref-dump", command=os.path.join(config.qmat_tools_dir, "qmat-ref-dump"),
              unresolved="fatal"),
    "mlir-translate", "llc", "llvm-mc", "llvm-nm", "llvm-readelf", "clang",
]
llvm_config.add_tool_substitutions(tools, [config.qmat_tools_dir, config.llvm_tools_dir])
