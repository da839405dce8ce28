"""qmat.compile: qmat-aot as a subprocess, and the bundle it writes.

qmat-aot is the interface to the C++ core (docs/python.md says why it is not
an in-process binding): it reads a .mlir module, writes <prefix>.h,
<prefix>.cpp (the C-ABI launcher with the GPU binaries embedded),
<prefix>.manifest.json and the raw binaries, and prints a summary.
"""
import dataclasses
import glob
import json
import operator
import os
import shutil
import tempfile

from .errors import ArgumentError, QMatError, ToolNotFoundError
from .layers import Layer, Module, _as_layers, emit_module, is_identifier
from .tools import find_tool, run_tool

# The chips qmat-aot compiles for. The package drives CUDA bundles only:
# _check_targets refuses the AMD ones (gfx942, gfx950) with a message that
# points to qmat-aot, which writes their HIP bundles (docs/amd.md).
# What qmat-aot's --target accepts (lib/AOT/Targets.cpp).
KNOWN_TARGETS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100",
                 "sm_100a", "sm_103", "sm_103a", "sm_110", "sm_110a", "sm_120", "sm_120a",
                 "sm_121", "sm_121a", "gfx942", "gfx950")


@dataclasses.dataclass(frozen=True)
class LayerInfo:
    """One compiled layer as its bundle's manifest describes it."""
    name: str
    scheme: str
    n: int
    k: int
    block: int
    act: str
    bias: bool
    zero_points: bool
    workspace_bytes: int
    strategy: dict
    kernels: dict
    # The kernels read the codes in the prepared layout (qmat-aot
    # --prepared-weights): Library.prepare_weights converts the checkpoint's.
    prepared_weights: bool = False
    # The name as a C identifier in the launcher's entry points
    # (<prefix>_<symbol>_run); the name itself where the manifest has none.
    symbol: str = ""

    @classmethod
    def from_manifest(cls, entry):
        try:
            return cls(name=entry["name"], scheme=entry["scheme"], n=int(entry["n"]),
                       k=int(entry["k"]), block=int(entry["block_size"]), act=entry["dtype"],
                       bias=bool(entry["bias"]), zero_points=bool(entry["zero_points"]),
                       workspace_bytes=int(entry["workspace"]["bytes"]),
                       strategy=dict(entry.get("strategy", {})),
                       kernels=dict(entry.get("kernels", {})),
                       prepared_weights=bool(entry.get("prepared_weights", False)),
                       symbol=str(entry.get("symbol", entry["name"])))
        except (KeyError, TypeError, ValueError) as e:
            raise QMatError(f"malformed layer entry in the manifest ({e!r}): {entry!r}") from None

    @property
    def scale_cols(self):
        return -(-self.k // self.block)

    @property
    def weight_shape(self):
        """[N, K/2] packed 4-bit codes, or [N, K] e4m3 bytes for fp8."""
        return (self.n, self.k) if self.scheme == "fp8" else (self.n, self.k // 2)

    @property
    def scale_shape(self):
        return (self.n, self.scale_cols)

    @property
    def zero_point_shape(self):
        """[N, ceil(ceil(K/bs)/2)]: two u4 zero points per byte."""
        return (self.n, -(-self.scale_cols // 2))

    @property
    def needs_global_scale(self):
        return self.scheme == "nvfp4"

    def layer(self):
        """The qmat.Layer that describes this compiled layer."""
        return Layer(self.name, self.scheme, self.n, self.k, block=self.block, act=self.act,
                     bias=self.bias, zero_points=self.zero_points)


def find_cuda(cuda_path=None):
    """The CUDA toolkit root holding include/cuda.h and include/cublasLt.h:
    `cuda_path`, $CUDA_HOME, $CUDA_PATH, the parent of nvcc on PATH, then
    /usr/local/cuda."""
    candidates = []
    if cuda_path is not None:
        candidates.append(("explicit cuda_path", os.fspath(cuda_path)))
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            candidates.append((f"${env}", os.environ[env]))
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(("nvcc on PATH", os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))))
    candidates.append(("default", "/usr/local/cuda"))
    searched = []
    for what, root in candidates:
        headers = [os.path.join(root, "include", h) for h in ("cuda.h", "cublasLt.h")]
        if all(os.path.isfile(h) for h in headers):
            return root
        searched.append(f"{what}: {root} (no include/cuda.h and include/cublasLt.h)")
        if what == "explicit cuda_path":
            break  # an explicit choice that is wrong should not be papered over
    raise ToolNotFoundError("the CUDA toolkit (cuda.h, cublasLt.h)", searched)


def _cuda_library_dir(root):
    for sub in ("lib64", "lib", os.path.join("targets", "x86_64-linux", "lib")):
        path = os.path.join(root, sub)
        if glob.glob(os.path.join(path, "libcublasLt.so*")):
            return path
    raise ToolNotFoundError("libcublasLt.so", [os.path.join(root, s)
                                               for s in ("lib64", "lib", "targets/x86_64-linux/lib")])


def find_compiler(compiler=None, cuda_root=None):
    """A C++ compiler for the launcher: `compiler`, $CXX, g++, c++, then nvcc."""
    searched = []
    names = [compiler] if compiler else [os.environ.get("CXX"), "g++", "c++"]
    for name in filter(None, names):
        found = shutil.which(name)
        if found:
            return found
        searched.append(f"{name} (not found)")
    if not compiler:
        nvcc = os.path.join(cuda_root, "bin", "nvcc") if cuda_root else None
        if nvcc and os.access(nvcc, os.X_OK):
            return nvcc
        found = shutil.which("nvcc")
        if found:
            return found
        searched.append("nvcc (not in the CUDA toolkit's bin/ nor on PATH)")
    raise ToolNotFoundError("a C++ compiler", searched)


class Bundle:
    """What qmat-aot wrote into `directory` for `prefix`: the launcher's
    header and source, the manifest (parsed into `manifest` and `layers`),
    the GPU binaries, and after build_library() the shared library."""

    def __init__(self, directory, prefix, summary=""):
        self.directory = os.path.abspath(os.fspath(directory))
        self.prefix = prefix
        self.summary = summary
        self.manifest_path = os.path.join(self.directory, f"{prefix}.manifest.json")
        self.header = os.path.join(self.directory, f"{prefix}.h")
        self.source = os.path.join(self.directory, f"{prefix}.cpp")
        for path in (self.manifest_path, self.header, self.source):
            if not os.path.isfile(path):
                raise QMatError(f"incomplete bundle in {self.directory}: {os.path.basename(path)} "
                                f"is missing")
        with open(self.manifest_path, encoding="utf-8") as f:
            try:
                self.manifest = json.load(f)
            except json.JSONDecodeError as e:
                raise QMatError(f"{self.manifest_path} is not valid JSON: {e}") from None
        if self.manifest.get("prefix") != prefix:
            raise QMatError(f"{self.manifest_path} is for prefix {self.manifest.get('prefix')!r}, "
                            f"not {prefix!r}")
        self.layers = [LayerInfo.from_manifest(e) for e in self.manifest.get("layers", [])]
        self.targets = [t["chip"] for t in self.manifest.get("targets", [])]
        self.binaries = {chip: os.path.join(self.directory, f"{prefix}.{chip}.cubin")
                         for chip in self.targets}
        # A library older than the launcher source was built from another
        # compile into the same directory.
        default_library = os.path.join(self.directory, f"lib{prefix}.so")
        fresh = (os.path.isfile(default_library)
                 and os.path.getmtime(default_library) >= os.path.getmtime(self.source))
        self.library_path = default_library if fresh else None

    @classmethod
    def open(cls, directory, prefix=None):
        """An existing bundle directory (e.g. one built elsewhere and copied).
        Without `prefix` the directory must hold exactly one manifest."""
        directory = os.fspath(directory)
        if prefix is None:
            manifests = sorted(glob.glob(os.path.join(directory, "*.manifest.json")))
            if len(manifests) != 1:
                found = ", ".join(os.path.basename(m) for m in manifests) or "none"
                raise QMatError(f"cannot tell the bundle in {directory}: expected one "
                                f"*.manifest.json, found {found}; pass prefix=")
            prefix = os.path.basename(manifests[0])[:-len(".manifest.json")]
        return cls(directory, prefix)

    def layer(self, name):
        """The LayerInfo called `name`."""
        for info in self.layers:
            if info.name == name:
                return info
        raise ArgumentError(f"bundle {self.prefix!r} has no layer {name!r} "
                            f"(layers: {', '.join(l.name for l in self.layers)})")

    def build_library(self, output=None, cuda_path=None, compiler=None, extra_flags=(),
                      timeout=600):
        """Compiles the launcher into a shared library and returns its path
        (default: <directory>/lib<prefix>.so).

        `compiler` is g++/c++ (default, $CXX first) or nvcc; the headers come
        from the CUDA toolkit (see find_cuda). libcuda is linked through the
        toolkit's stub directory, which is deliberately not put in the
        run-time search path: the driver's own libcuda.so.1 must be the one
        loaded. The CUDA library directory is (cuBLASLt).
        """
        cuda = find_cuda(cuda_path)
        library_dir = _cuda_library_dir(cuda)
        cxx = find_compiler(compiler, cuda)
        output = os.path.abspath(os.fspath(output)) if output else os.path.join(
            self.directory, f"lib{self.prefix}.so")
        os.makedirs(os.path.dirname(output), exist_ok=True)
        stubs = [d for d in (os.path.join(library_dir, "stubs"),
                             os.path.join(cuda, "lib64", "stubs")) if os.path.isdir(d)]
        link = [f"-L{d}" for d in stubs[:1]] + [f"-L{library_dir}"]
        nvcc = os.path.basename(cxx).startswith("nvcc")
        if nvcc:
            flags = ["-std=c++17", "-O2", "-shared", "-Xcompiler", "-fPIC", "-cudart", "none",
                     "-Xlinker", f"-rpath,{library_dir}", "-Xlinker", "-z,defs"]
        else:
            flags = ["-std=c++17", "-O2", "-shared", "-fPIC", f"-Wl,-rpath,{library_dir}",
                     "-Wl,-z,defs"]
        command = ([cxx] + flags + [f"-I{self.directory}", f"-I{os.path.join(cuda, 'include')}",
                                    self.source] + link + ["-lcuda", "-lcublasLt", "-o", output]
                   + list(extra_flags))
        run_tool(command, f"compiling the {self.prefix} launcher", timeout=timeout)
        self.library_path = output
        return output

    def __repr__(self):
        layers = ", ".join(f"{l.name}: {l.scheme} {l.n}x{l.k} {l.act}" for l in self.layers)
        return f"qmat.Bundle({self.directory!r}, prefix={self.prefix!r}, targets={self.targets}, " \
               f"layers=[{layers}])"


def _check_targets(targets):
    if isinstance(targets, str):
        targets = targets.split(",")
    targets = [t.strip() for t in targets]
    if not targets or not all(targets):
        raise ArgumentError("at least one target is needed, e.g. targets=('sm_90',)")
    for target in targets:
        if target not in KNOWN_TARGETS:
            raise ArgumentError(f"unknown target {target!r} (expected one of "
                                f"{', '.join(KNOWN_TARGETS)})")
        # The package loads CUDA launchers; qmat-aot writes the HIP one.
        if target.startswith("gfx"):
            raise ArgumentError(f"target {target!r}: the Python package drives CUDA bundles "
                                "only; build AMD bundles with qmat-aot (docs/amd.md)")
    return targets


def _int_in_range(what, value, lo, hi):
    try:
        number = operator.index(value)
    except TypeError:
        number = None
    if isinstance(value, bool) or number is None or not lo <= number <= hi:
        raise ArgumentError(f"{what} must be an integer in [{lo}, {hi}], got {value!r}")
    return number


def _tilings(what, tilings, numbers, names, flag_at=None):
    """`tilings` as qmat-aot's comma-separated list of `numbers`-tuples of
    positive integers (the number at `flag_at` of each a bool or 0 / 1)."""
    flat = []
    for tiling in tilings:
        t = tuple(tiling) if isinstance(tiling, (tuple, list)) else (tiling,)
        t = tuple(int(x) if i == flag_at and isinstance(x, bool) else x
                  for i, x in enumerate(t))

        def bad(i, x):
            if isinstance(x, bool) or not isinstance(x, int):
                return True
            return not (0 <= x <= 1 if i == flag_at else 1 <= x <= 2147483647)
        if len(t) != numbers or any(bad(i, x) for i, x in enumerate(t)):
            kind = "positive integers" if flag_at is None else \
                f"positive integers ({names.split(', ')[flag_at]} a bool)"
            raise ArgumentError(f"{what} takes ({names}) tuples of {kind}, got {tiling!r}")
        flat.extend(t)
    return ",".join(str(x) for x in flat)


def compile(source, targets=("sm_90",), out_dir=None, *, prefix="qmat", emit_ptx=False,
            scratch_cap_mib=None, gemv_max_m=None, fused_max_m=None, fused_variants=None,
            fused_warpgroup_variants=None, fused_specialized_variants=None,
            fused_specialized_b_variants=None, fused_sliced_variants=None,
            fused_multicast_variants=None, fused_specialized_sliced_variants=None,
            fused_register_variants=None, fused_decoder_variants=None,
            prepared_weights=False, qmat_aot=None, timeout=600):
    """Compiles layers into a kernel bundle with qmat-aot; returns a Bundle.

    `source`: a qmat.Layer, a list of them, a qmat.Module, or the path of a
    .mlir file. `targets`: NVIDIA chips as qmat-aot names them (KNOWN_TARGETS:
    sm_80 ... sm_121a), as a sequence or a comma-separated string. `out_dir`: where the bundle goes
    (a new temporary directory when None; it is not deleted). `emit_ptx`
    also embeds PTX so newer GPUs can run the bundle. `scratch_cap_mib`
    (default 256), `gemv_max_m` (default 8), `fused_max_m` (-1: the
    target's default, 0: no fused GEMM), `fused_variants` ((m_tile, warps_n,
    split_k, col_tiles, stages) tuples) and `fused_warpgroup_variants`
    ((m_tile, warps_n, split_k, col_tiles) tuples, wgmma on sm_90a) and
    `fused_specialized_variants` ((m_tile, col_tiles) pairs, the
    specialized warpgroup form, sm_90a) and `fused_specialized_b_variants`
    ((m_tile, col_tiles) pairs of that form with the weights as the
    instruction's B operand, 16-row column tiles) and
    `fused_sliced_variants` ((m_tile, warps_n, split_k, col_tiles, stages,
    k_slices) tuples: warp tilings whose K range is split across the blocks
    of a thread-block cluster, sm_90 on) and `fused_multicast_variants`
    ((m_tile, col_tiles, weights_as_b, multicast) tuples: specialized
    tilings whose clusters of blocks share the activations, sm_90a; never
    taken by the launcher's policy, only by its override) and
    `fused_specialized_sliced_variants` ((m_tile, col_tiles, k_slices)
    tuples: specialized tilings whose K range is split across the blocks of
    a cluster, sm_90a) and `fused_register_variants` ((m_tile, col_tiles)
    pairs: specialized tilings with the decoded weights in the multiplying
    warps' registers, sm_90a) and `fused_decoder_variants` ((m_tile,
    col_tiles, weights_as_b, decoders) tuples: specialized tilings with 1
    to 3 decoding warpgroups in place of the tiling's default, sm_90a) are
    qmat-aot's knobs;
    `prepared_weights` is its --prepared-weights (the layers that can take
    the prepared code layout do; LayerInfo.prepared_weights says which).
    `qmat_aot`: the executable, else found by qmat.find_tool.
    """
    targets = _check_targets(targets)
    if not is_identifier(prefix):
        raise ArgumentError(f"prefix must be a C identifier, got {prefix!r}")
    if scratch_cap_mib is not None:
        scratch_cap_mib = _int_in_range("scratch_cap_mib", scratch_cap_mib, 1, 1048576)
    if gemv_max_m is not None:
        gemv_max_m = _int_in_range("gemv_max_m", gemv_max_m, 0, 64)
    if fused_max_m is not None:
        fused_max_m = _int_in_range("fused_max_m", fused_max_m, -1, 2147483647)
    tilings = []
    if fused_variants is not None:
        tilings.append("--fused-variants=" + _tilings(
            "fused_variants", fused_variants, 5, "m_tile, warps_n, split_k, col_tiles, stages"))
    if fused_warpgroup_variants is not None:
        tilings.append("--fused-warpgroup-variants=" + _tilings(
            "fused_warpgroup_variants", fused_warpgroup_variants, 4,
            "m_tile, warps_n, split_k, col_tiles"))
    if fused_specialized_variants is not None:
        tilings.append("--fused-specialized-variants=" + _tilings(
            "fused_specialized_variants", fused_specialized_variants, 2,
            "m_tile, col_tiles"))
    if fused_specialized_b_variants is not None:
        tilings.append("--fused-specialized-b-variants=" + _tilings(
            "fused_specialized_b_variants", fused_specialized_b_variants, 2,
            "m_tile, col_tiles"))
    if fused_sliced_variants is not None:
        tilings.append("--fused-sliced-variants=" + _tilings(
            "fused_sliced_variants", fused_sliced_variants, 6,
            "m_tile, warps_n, split_k, col_tiles, stages, k_slices"))
    if fused_multicast_variants is not None:
        tilings.append("--fused-multicast-variants=" + _tilings(
            "fused_multicast_variants", fused_multicast_variants, 4,
            "m_tile, col_tiles, weights_as_b, multicast", flag_at=2))
    if fused_specialized_sliced_variants is not None:
        tilings.append("--fused-specialized-sliced-variants=" + _tilings(
            "fused_specialized_sliced_variants", fused_specialized_sliced_variants, 3,
            "m_tile, col_tiles, k_slices"))
    if fused_register_variants is not None:
        tilings.append("--fused-register-variants=" + _tilings(
            "fused_register_variants", fused_register_variants, 2,
            "m_tile, col_tiles"))
    if fused_decoder_variants is not None:
        tilings.append("--fused-decoder-variants=" + _tilings(
            "fused_decoder_variants", fused_decoder_variants, 4,
            "m_tile, col_tiles, weights_as_b, decoders", flag_at=2))

    layers, text = None, None
    if isinstance(source, (str, os.PathLike)):
        input_path = os.path.abspath(os.fspath(source))
        if not os.path.isfile(input_path):
            raise ArgumentError(f"no such .mlir file: {input_path}")
    elif isinstance(source, Module):
        text, layers = source.text, source.layers
    else:
        layers = _as_layers(source)
        text = emit_module(layers)
    aot = find_tool("qmat-aot", qmat_aot)

    out_dir = os.path.abspath(os.fspath(out_dir)) if out_dir else tempfile.mkdtemp(prefix="qmat-")
    os.makedirs(out_dir, exist_ok=True)
    if text is not None:
        # Kept beside the outputs: the bundle then records what it was built from.
        input_path = os.path.join(out_dir, f"{prefix}.mlir")
        with open(input_path, "w", encoding="utf-8") as f:
            f.write(text)

    command = [aot, input_path, "-o", out_dir, f"--prefix={prefix}",
               f"--target={','.join(targets)}"]
    if emit_ptx:
        command.append("--emit=ptx")
    if scratch_cap_mib is not None:
        command.append(f"--scratch-cap-mib={scratch_cap_mib}")
    if gemv_max_m is not None:
        command.append(f"--gemv-max-m={gemv_max_m}")
    if fused_max_m is not None:
        command.append(f"--fused-max-m={fused_max_m}")
    command.extend(t for t in tilings if not t.endswith("="))
    if prepared_weights:
        command.append("--prepared-weights")
    summary = run_tool(command, f"qmat-aot on {input_path}", timeout=timeout)
    bundle = Bundle(out_dir, prefix, summary=summary)
    if layers is not None:
        compiled = [info.name for info in bundle.layers]
        expected = [layer.name for layer in layers]
        if compiled != expected:
            raise QMatError(f"qmat-aot compiled layers {compiled}, expected {expected}")
    return bundle
