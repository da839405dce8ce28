"""A Hugging Face checkpoint directory: config.json, the quantization
config, and the tensors of one or many *.safetensors files."""
import json
import os

from .errors import CheckpointError, MissingTensorError
from .safetensors_io import SafetensorsFile

INDEX = "model.safetensors.index.json"


def _load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise CheckpointError(f"{path}: not valid JSON ({e})") from None


class Checkpoint:
    """The tensors of a checkpoint directory by name (TensorInfo), read
    lazily through memory maps, plus its JSON configs."""

    def __init__(self, directory):
        self.directory = os.path.abspath(os.fspath(directory))
        if not os.path.isdir(self.directory):
            raise CheckpointError(f"no such checkpoint directory: {self.directory}")
        config_path = os.path.join(self.directory, "config.json")
        self.config = _load_json(config_path) if os.path.isfile(config_path) else {}
        self.files = {}
        self.tensors = {}
        index_path = os.path.join(self.directory, INDEX)
        if os.path.isfile(index_path):
            index = _load_json(index_path)
            weight_map = index.get("weight_map")
            if not isinstance(weight_map, dict):
                raise CheckpointError(f"{index_path}: no weight_map object")
            names = sorted(set(weight_map.values()))
            for name in names:
                self._open(name, index_path)
            for tensor, file in weight_map.items():
                info = self.files[file].tensors.get(tensor)
                if info is None:
                    raise MissingTensorError(f"{tensor}: listed in {INDEX} under {file}, which "
                                             f"does not hold it")
                self.tensors[tensor] = info
        else:
            names = sorted(n for n in os.listdir(self.directory) if n.endswith(".safetensors"))
            if not names:
                raise CheckpointError(f"{self.directory}: no *.safetensors files (and no {INDEX})")
            for name in names:
                for tensor, info in self._open(name, None).tensors.items():
                    if tensor in self.tensors:
                        raise CheckpointError(f"{tensor}: in both {self.tensors[tensor].path} and "
                                              f"{info.path}")
                    self.tensors[tensor] = info

    def _open(self, name, index_path):
        path = os.path.join(self.directory, name)
        if not os.path.isfile(path):
            raise CheckpointError(f"{name}: named by {os.path.basename(index_path)} but missing "
                                  f"from {self.directory}")
        self.files[name] = SafetensorsFile(path)
        return self.files[name]

    def json(self, name):
        """A JSON file of the directory, or None."""
        path = os.path.join(self.directory, name)
        return _load_json(path) if os.path.isfile(path) else None

    def __contains__(self, name):
        return name in self.tensors

    def info(self, name):
        if name not in self.tensors:
            raise MissingTensorError(f"{name}: missing from the checkpoint")
        return self.tensors[name]

    def get(self, name):
        """A read-only numpy view (bf16 as uint16, fp8 as uint8)."""
        info = self.info(name)
        return self.files[os.path.basename(info.path)].get(name)

    def text_config(self):
        """config.json's language-model part (text_config for multimodal models)."""
        for key in ("text_config", "llm_config", "language_config"):
            if isinstance(self.config.get(key), dict):
                return self.config[key]
        return self.config
