"""qmat: block-quantized matmul code generation (Python side).

Only IR emission lives here so far (qmat.ir); the package grows into the
bindings, reference and torch integration of the Python issue.
"""
