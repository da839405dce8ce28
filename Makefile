# qmat: the two commands are `make run` and `make check`; each does the whole
# set-up on a fresh Debian 12 machine by itself.

SHELL := /bin/bash
LLVM_DIR := /usr/lib/llvm-22
BUILD_DIR ?= build
VENV := .venv
# Debian's python3 is the one named here: it owns python3-venv, and lit from
# llvm-22-tools runs under it too.
SYSTEM_PYTHON := /usr/bin/python3
PYTHON := $(abspath $(VENV))/bin/python
JOBS ?= $(shell nproc)

APT_PACKAGES := llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22 \
  clang-22 libamdhip64-dev rocm-device-libs cmake ninja-build g++ \
  googletest libgtest-dev python3-venv python3-pip clang-format
# torch and transformers run qmat.torch's CPU tests (a stand-in launcher) and
# the transformers models' loading; qmat itself needs neither.
PIP_PACKAGES := numpy ml_dtypes pytest torch==2.15.0 transformers==5.25.0

.PHONY: all deps apt-deps py-deps configure build check check-lit check-unit \
  check-python run format clean fuzz fuzz-deps fuzz-build build-sanitize check-sanitize

all: build

deps: apt-deps py-deps

# Installs only what is missing, so a second run costs a dpkg query.
apt-deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "apt packages: all present"; fi
	@test -x /usr/local/cuda/bin/ptxas || echo "warning: /usr/local/cuda/bin/ptxas not found; cubin emission tests will fail"

VENV_STAMP := $(VENV)/.stamp-$(subst =,-,$(subst $(eval) ,_,$(PIP_PACKAGES)))

$(VENV_STAMP):
	$(SYSTEM_PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check $(PIP_PACKAGES)
	touch $@

py-deps: $(VENV_STAMP)

$(BUILD_DIR)/build.ninja: CMakeLists.txt | deps
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DQMAT_PYTHON=$(PYTHON) \
	  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

check-lit: build
	$(LLVM_DIR)/bin/lit -sv --order=lexical $(BUILD_DIR)/test

check-unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure

# The tests run the build's tools: $QMAT_AOT / $QMAT_OPT, which come first
# in qmat.find_tool's search, would put another qmat-aot in their place;
# $QMAT_LOG would add launcher lines to what the logging tests expect.
PYTEST_ENV := env -u QMAT_AOT -u QMAT_OPT -u QMAT_LOG QMAT_BUILD_DIR=$(abspath $(BUILD_DIR))

check-python: build
	$(PYTEST_ENV) $(PYTHON) -m pytest -q python/tests

check: build
	@rc=0; \
	$(LLVM_DIR)/bin/lit -s -v $(BUILD_DIR)/test || rc=1; \
	$(PYTEST_ENV) $(PYTHON) -m pytest -q python/tests || rc=1; \
	(cd $(BUILD_DIR) && ctest --output-on-failure) || rc=1; \
	exit $$rc

# libFuzzer targets (fuzz/README.md) in a clang build of their own; each
# runs FUZZ_SECONDS. Assertions stay on (no -DNDEBUG): a cast<> to the wrong
# op is then a report, not silent undefined behaviour.
FUZZ_DIR := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

# The sanitizer runtimes of clang-22; the default build does not need them.
fuzz-deps: deps
	@$(MAKE) --no-print-directory apt-deps APT_PACKAGES="clang-22 libclang-rt-22-dev"

$(FUZZ_DIR)/build.ninja: CMakeLists.txt fuzz/CMakeLists.txt | fuzz-deps
	cmake -G Ninja -S . -B $(FUZZ_DIR) \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g" \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" \
	  -DQMAT_ENABLE_FUZZERS=ON

fuzz-build: $(FUZZ_DIR)/build.ninja
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target qmat-fuzzers

fuzz: fuzz-build
	bash fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# qmat's code and unit tests under AddressSanitizer and UBSan (g++, as the
# default build), then lit (its site config is build-asan's, so every RUN
# line runs the sanitized tools) and ctest. libMLIR.so is not instrumented;
# its calls into qmat's code are.
SAN_DIR := build-asan
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
  -fno-sanitize=vptr -fno-omit-frame-pointer
# No vptr check: LLVM and MLIR are built without RTTI, so every object of
# theirs (a cl::Option reached through cl::getRegisteredOptions()) fails it.
# -O1 without -DNDEBUG: assertions stay on (a cast<> to the wrong op is a
# report). LeakSanitizer stays on: MLIR's registries and contexts are freed at exit
# (qmat-opt and qmat-aot, on success and on diagnostics, report no leak).
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs in the
# instrumented inline code of qmat's files and unpoisons what it hands out
# only there, so the uninstrumented copy in libMLIR.so hands out poisoned
# memory (a false use-after-poison). halt_on_error: a report fails the test
# that made it.
SAN_ENV := ASAN_OPTIONS=allow_user_poisoning=0:halt_on_error=1:abort_on_error=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

$(SAN_DIR)/build.ninja: CMakeLists.txt Makefile | deps
	cmake -G Ninja -S . -B $(SAN_DIR) \
	  -DMLIR_DIR=$(LLVM_DIR)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_DIR)/bin/lit \
	  -DQMAT_PYTHON=$(PYTHON) \
	  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
	  -DCMAKE_C_FLAGS="$(SAN_FLAGS)" -DCMAKE_CXX_FLAGS="$(SAN_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="$(SAN_FLAGS)" \
	  -DCMAKE_SHARED_LINKER_FLAGS="$(SAN_FLAGS)"

# The build runs sanitized tools too (qmat-opt writes the exactness tests'
# host kernels), so it gets the tests' sanitizer options.
build-sanitize: deps $(SAN_DIR)/build.ninja
	$(SAN_ENV) cmake --build $(SAN_DIR) -j $(JOBS)

check-sanitize: build-sanitize
	@rc=0; \
	$(SAN_ENV) $(LLVM_DIR)/bin/lit -s -v $(SAN_DIR)/test || rc=1; \
	(cd $(SAN_DIR) && $(SAN_ENV) ctest --output-on-failure) || rc=1; \
	exit $$rc

run: build
	@bash examples/run.sh $(BUILD_DIR)

format:
	find include lib tools test -name '*.cpp' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
