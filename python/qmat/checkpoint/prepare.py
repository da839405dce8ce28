"""Imported codes written in the prepared layout (import_checkpoint's
prepared_weights=True, `qmat import --prepared-weights`).

The codes are prepared by the bundle's own launcher, through
qmat.Library.prepare_weights (<prefix>_<layer>_prepare_weights), the same
function qmat.torch.QuantLinear prepares them with at load, so the layout
keeps its one definition (include/qmat/Dialect/QMat/IR/PreparedWeights.h).

The importer builds the launcher into a temporary directory and runs it in
a child process (`python -m qmat.checkpoint.prepare`): loading a launcher
needs a libcuda.so.1, and where no NVIDIA driver provides one (an import
machine without a GPU) the child loads the CUDA toolkit's stub libcuda
instead. prepare_weights is host code that calls no driver function, and
the stub stays out of the importing process.

The child answers requests on its stdin: a JSON line {"layer": name,
"nbytes": n} and the n bytes of a layer's checkpoint-layout codes, answered
on its stdout by a JSON line {"nbytes": n} and the prepared bytes, or by
{"error": message}. Its first line says {"ready": true}, or why it could
not load the launcher.
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile

from ..errors import QMatError


def stub_libcuda(cuda_path=None):
    """The CUDA toolkit's stub libcuda.so (for loading a launcher where no
    driver is installed), or None."""
    from ..bundle import find_cuda
    try:
        root = find_cuda(cuda_path)
    except QMatError:
        return None
    for sub in ("lib64", "lib", os.path.join("targets", "x86_64-linux", "lib")):
        path = os.path.join(root, sub, "stubs", "libcuda.so")
        if os.path.isfile(path):
            return path
    return None


class Preparer:
    """A bundle's launcher, built into a temporary directory and loaded in a
    child process, that prepares codes: prepare(layer, codes) returns the
    codes of bundle layer `layer` in the layout its kernels read. close()
    (or leaving a `with` block) ends the child and removes the directory.
    The launcher cannot be built without the CUDA toolkit and a C++
    compiler (Bundle.build_library): that raises here, before any use."""

    def __init__(self, bundle, cuda_path=None, compiler=None):
        from ..bundle import Bundle
        self.prefix = bundle.prefix
        self._child = None
        self._errors = None
        self._workdir = tempfile.mkdtemp(prefix="qmat-prepare-")
        try:
            # A Bundle of its own: build_library would point the caller's at
            # the temporary library.
            library = Bundle.open(bundle.directory, bundle.prefix).build_library(
                output=os.path.join(self._workdir, f"lib{bundle.prefix}.so"),
                cuda_path=cuda_path, compiler=compiler)
            self._errors = open(os.path.join(self._workdir, "stderr"), "w+b")
            package_root = os.path.dirname(os.path.dirname(os.path.dirname(
                os.path.abspath(__file__))))
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(
                [package_root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
            self._child = subprocess.Popen(
                [sys.executable, "-m", __name__, library, bundle.directory, bundle.prefix,
                 stub_libcuda(cuda_path) or ""],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors, env=env)
            ready = self._reply()
            if not ready.get("ready"):
                raise QMatError(f"cannot load the {self.prefix} launcher to prepare the codes: "
                                f"{ready.get('error', ready)}")
        except BaseException:
            self.close()
            raise

    def prepare(self, layer, codes):
        """`codes` (a uint8 numpy array, the checkpoint layout) of bundle
        layer `layer` in the layout its kernels read, as a numpy array of
        the same shape."""
        import numpy as np
        codes = np.ascontiguousarray(codes)
        if codes.dtype != np.uint8:
            raise QMatError(f"{layer}: the codes to prepare must be uint8, got {codes.dtype}")
        header = json.dumps({"layer": layer, "nbytes": int(codes.nbytes)}).encode() + b"\n"
        try:
            self._child.stdin.write(header)
            self._child.stdin.write(memoryview(codes).cast("B"))
            self._child.stdin.flush()
        except OSError:
            raise self._died() from None
        reply = self._reply()
        if "error" in reply:
            raise QMatError(f"{layer}: preparing the codes failed: {reply['error']}")
        data = self._child.stdout.read(reply["nbytes"])
        if len(data) != codes.nbytes:
            raise self._died()
        return np.frombuffer(data, dtype=np.uint8).reshape(codes.shape)

    def _reply(self):
        line = self._child.stdout.readline()
        if not line:
            raise self._died()
        try:
            return json.loads(line)
        except ValueError:
            raise QMatError(f"the {self.prefix} launcher's preparing process answered "
                            f"{line[:200]!r}") from None

    def _died(self):
        code = self._child.poll() if self._child else None
        text = ""
        if self._errors is not None:
            self._errors.flush()
            self._errors.seek(0)
            text = self._errors.read().decode("utf-8", "replace").strip()
        return QMatError(f"the {self.prefix} launcher's preparing process ended"
                         + (f" (exit {code})" if code is not None else "")
                         + (f": {text[-2000:]}" if text else ""))

    def close(self):
        child, self._child = self._child, None
        if child is not None:
            try:
                child.stdin.close()
            except OSError:
                pass
            try:
                child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
            child.stdout.close()
        if self._errors is not None:
            self._errors.close()
            self._errors = None
        shutil.rmtree(self._workdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --- the child -----------------------------------------------------------------

def _load_libcuda(stub):
    """The driver's libcuda.so.1, else the toolkit's stub in its place (its
    soname is libcuda.so.1, so the launcher then links against it)."""
    try:
        ctypes.CDLL("libcuda.so.1")
        return
    except OSError:
        pass
    if not stub:
        raise QMatError("no NVIDIA driver (libcuda.so.1) is installed, and the CUDA toolkit "
                        "has no stub libcuda (lib64/stubs/libcuda.so) to load the launcher with")
    ctypes.CDLL(stub, mode=ctypes.RTLD_GLOBAL)


def _send(out, message, payload=None):
    out.write(json.dumps(message).encode() + b"\n")
    if payload is not None:
        out.write(payload)
    out.flush()


def main(argv):
    library_path, directory, prefix, stub = argv
    out = os.fdopen(os.dup(1), "wb")   # the answers; anything printed goes to stderr
    os.dup2(2, 1)
    try:
        from ..bundle import Bundle
        from ..launcher import Library
        _load_libcuda(stub)
        library = Library(library_path, Bundle.open(directory, prefix))
    except QMatError as e:
        _send(out, {"error": str(e)})
        return 1
    _send(out, {"ready": True})
    source = sys.stdin.buffer
    while True:
        line = source.readline()
        if not line:
            return 0
        request = json.loads(line)
        data = source.read(int(request["nbytes"]))
        if len(data) != int(request["nbytes"]):
            return 1
        try:
            prepared = library.prepare_weights(request["layer"], data)
        except QMatError as e:
            _send(out, {"error": str(e)})
            continue
        _send(out, {"nbytes": len(prepared)}, prepared)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
