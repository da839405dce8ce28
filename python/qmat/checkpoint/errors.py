"""The errors of checkpoint import: every refusal names the tensor (or file)
and the rule it breaks."""
from ..errors import QMatError


class CheckpointError(QMatError):
    """A checkpoint cannot be imported exactly: a missing or malformed
    tensor, an unsupported format or option, or a value qmat's layout
    cannot hold. The message names the tensor and the rule."""


class UnsupportedFormatError(CheckpointError):
    """The checkpoint uses a quantization format or option qmat does not read."""


class ShapeError(CheckpointError):
    """A tensor's shape does not match the format or config.json."""


class MissingTensorError(CheckpointError):
    """A tensor the format requires is absent."""


class InexactError(CheckpointError):
    """A value cannot be carried into qmat's layout without changing the
    dequantized weights."""
