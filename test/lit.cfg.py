# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Blueprint"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".json"]
# huggingface/ holds the bundled Hugging Face configs and the specs that
# name them (inputs, not tests).
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Unit",
                   "Inputs", "reference", "consumer", "corpus", "dict",
                   "Python", "huggingface"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.blueprint_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%blueprint_src", config.blueprint_src_root))
config.substitutions.append(("%blueprint_obj", config.blueprint_obj_root))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "CCACHE_DIR", "CCACHE_BASEDIR",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS"])
# A sanitized build (BLUEPRINT_SANITIZERS, BLUEPRINT_BUILD_FUZZERS): tests
# that link an uninstrumented program against its libraries (the install
# test's consumer) cannot run.
if config.blueprint_sanitized:
    config.available_features.add("sanitized")
# The Python package is built (BLUEPRINT_BUILD_PYTHON; never in a sanitized
# build) and installs into <prefix>/%blueprint_python_dir.
if config.blueprint_python_package:
    config.available_features.add("python-package")
config.substitutions.append(("%blueprint_python_dir",
                             config.blueprint_python_install_dir))
# The Chakra exporter is built (BLUEPRINT_BUILD_CHAKRA: protobuf found).
if config.blueprint_chakra:
    config.available_features.add("chakra")
llvm_config.use_default_substitutions()

# %xmlwf FILE: fails unless FILE is well-formed XML. xmllint (Debian's
# libxml2-utils, which utils/build.sh installs) when present; otherwise the
# same well-formedness check by Python's XML parser, so a plain build without
# libxml2-utils still checks its pictures.
import shutil
if shutil.which("xmllint"):
    config.substitutions.append(("%xmlwf", "xmllint --noout"))
else:
    config.substitutions.append(
        ("%xmlwf", "%s -c \"import sys, xml.dom.minidom; "
                   "xml.dom.minidom.parse(sys.argv[1])\"" %
         config.python_executable))

tool_dirs = [config.blueprint_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["blueprint-capi-test", "blueprint-opt", "blueprint-translate",
     "blueprint-sweep", "blueprint-search"] +
    (["blueprint-chakra"] if config.blueprint_chakra else []), tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
