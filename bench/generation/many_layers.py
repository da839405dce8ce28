#!/usr/bin/env python3
"""Writes a module of LAYERS nvfp4 layers to stdout, the example model's four
layer shapes in turn, each layer its own function named like a Hugging Face
module ("layers.<i>.proj"), to measure how the tools grow with the input.

Usage: many_layers.py LAYERS > model.mlir
"""
import sys
layers = int(sys.argv[1])
shapes = [(6144, 5120), (5120, 6144), (17408, 5120), (5120, 17408)]
out = []
for i in range(layers):
    n, k = shapes[i % 4]
    out.append(f'''func.func @"layers.{i}.proj"(%a: memref<?x{k}xbf16>, %w: memref<{n}x{k//2}xi8>, %s: memref<{n}x{k//16}xf8E4M3FN>, %g: memref<f32>, %y: memref<?x{n}xbf16>) {{
  qmat.matmul <nvfp4, block = 16> ins(%a, %w, %s : memref<?x{k}xbf16>, memref<{n}x{k//2}xi8>, memref<{n}x{k//16}xf8E4M3FN>) global_scale(%g : memref<f32>) outs(%y : memref<?x{n}xbf16>)
  return
}}
''')
sys.stdout.write("".join(out))
