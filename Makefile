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
PIP_PACKAGES := numpy ml_dtypes pytest

.PHONY: all deps apt-deps py-deps configure build check check-lit check-unit \
  check-python run format clean

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

VENV_STAMP := $(VENV)/.stamp-$(subst $(eval) ,_,$(PIP_PACKAGES))

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

check-python: build
	QMAT_BUILD_DIR=$(abspath $(BUILD_DIR)) $(PYTHON) -m pytest -q python/tests

check: build
	@rc=0; \
	$(LLVM_DIR)/bin/lit -s -v $(BUILD_DIR)/test || rc=1; \
	QMAT_BUILD_DIR=$(abspath $(BUILD_DIR)) $(PYTHON) -m pytest -q python/tests || rc=1; \
	(cd $(BUILD_DIR) && ctest --output-on-failure) || rc=1; \
	exit $$rc

run: build
	@bash examples/run.sh $(BUILD_DIR)

format:
	find include lib tools test -name '*.cpp' -o -name '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
