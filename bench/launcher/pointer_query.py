#!/usr/bin/env python3
"""What the launcher's device-pointer check sees on this machine: the
memory type cuPointerGetAttribute reports (or the error) for torch's caching
allocator, an interior pointer, pinned and pageable host memory, and the
cost of one query (through ctypes, so an upper bound of the launcher's,
which calls it from C). Run once per PYTORCH_CUDA_ALLOC_CONF to try
(run.sh: the default and expandable_segments:True).

Usage: pointer_query.py"""
import ctypes
import os
import time

import torch

CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2


def main():
    cuda = ctypes.CDLL("libcuda.so.1")
    value = ctypes.c_uint(0)

    def query(pointer):
        result = cuda.cuPointerGetAttribute(ctypes.byref(value), CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                            ctypes.c_uint64(pointer))
        return f"result {result}, memory type {value.value if result == 0 else '-'}"

    device = torch.empty(1 << 26, dtype=torch.uint8, device="cuda")
    pinned = torch.empty(1 << 20, dtype=torch.uint8, pin_memory=True)
    pageable = torch.empty(1 << 20, dtype=torch.uint8)
    print("PYTORCH_CUDA_ALLOC_CONF =", repr(os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")))
    print("  device:", query(device.data_ptr()))
    print("  device + 5:", query(device.data_ptr() + 5))
    print("  pinned host:", query(pinned.data_ptr()))
    print("  pageable host:", query(pageable.data_ptr()))
    pointer = ctypes.c_uint64(device.data_ptr())
    function, reference = cuda.cuPointerGetAttribute, ctypes.byref(value)
    for _ in range(1000):
        function(reference, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, pointer)
    calls = 100000
    start = time.perf_counter()
    for _ in range(calls):
        function(reference, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, pointer)
    elapsed = time.perf_counter() - start
    print(f"  one query through ctypes: {elapsed / calls * 1e6:.3f} us")


if __name__ == "__main__":
    main()
