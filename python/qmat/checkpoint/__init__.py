"""Importing quantized Hugging Face checkpoints into qmat's layout
(docs/checkpoints.md): ModelOpt NVFP4, compressed-tensors nvfp4-pack-quantized
and pack-quantized int4, GPTQ, AWQ, block-scaled FP8, gpt-oss MXFP4 experts,
and ONNX models with MatMulNBits nodes."""
from .errors import (CheckpointError, InexactError, MissingTensorError, ShapeError,
                     UnsupportedFormatError)
from .importer import (FORMATS, ImportedCheckpoint, ImportResult, detect_format,
                       import_checkpoint, open_imported)
from .replace import (LinearPlacement, ModuleSpec, ParameterSource, check_prepared,
                      experts_placements, open_import, plan_linears, plan_parameters,
                      replaced_modules, tensor_sources)
from .safetensors_io import (SafetensorsError, SafetensorsFile, SafetensorsWriter, read_file,
                             write_file)
from .source import Checkpoint

__all__ = [
    "Checkpoint", "CheckpointError", "FORMATS", "ImportResult", "ImportedCheckpoint",
    "InexactError", "LinearPlacement", "MissingTensorError", "ModuleSpec", "ParameterSource",
    "SafetensorsError", "SafetensorsFile", "SafetensorsWriter", "ShapeError",
    "UnsupportedFormatError", "check_prepared", "detect_format", "experts_placements",
    "import_checkpoint", "open_import", "open_imported", "plan_linears", "plan_parameters",
    "read_file", "replaced_modules", "tensor_sources", "write_file",
]
