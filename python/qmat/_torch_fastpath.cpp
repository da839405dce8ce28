// qmat.torch's optional fast path: QuantLinear.forward's common case in C++.
//
// Built at first use by qmat/torch.py with torch.utils.cpp_extension (CPU
// headers only: the stream and the current device come through c10's
// device-guard interface, so no CUDA headers are needed). A Runner holds one
// layer's constant launcher arguments; Runner.forward(x, out) checks x (and
// out) with plain field reads, allocates the output from the allocator torch.empty
// uses (at::detail::empty_generic, as empty_cuda does), and calls
// the launcher's <prefix>_<layer>_run through its address, all without
// creating a Python object other than the result. Whenever anything is
// unusual (wrong dtype, device, shape or layout, grad mode, another current
// device, an M larger than the workspace was set up for, another stream) it
// returns None and launches nothing: QuantLinear then takes its Python path,
// which raises the precise error or handles the case. A non-zero launcher
// status is passed to the Python `on_error(status)`, which raises.
#include <Python.h>

#include <ATen/EmptyTensor.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/csrc/autograd/python_variable.h>

#include <cstdint>
#include <vector>

#define QMAT_STR2(x) #x
#define QMAT_STR(x) QMAT_STR2(x)
#define TORCH_EXTENSION_NAME_STR QMAT_STR(TORCH_EXTENSION_NAME)

namespace {

// LauncherABI.h's qmat_run_fn (tests/test_abi.py checks it there).
using RunFn = int (*)(void *stream, int64_t m, const void *a, const void *weights,
                      const void *scales, const float *global_scale, const void *zero_points,
                      const void *bias, void *y, void *workspace, size_t workspace_size);

// Bumped whenever a shared workspace is freed or replaced: a Runner's cached
// workspace is only used while its generation is the current one.
uint64_t workspaceGeneration = 1;

struct Runner {
  PyObject_HEAD
  RunFn run;
  void *weights, *scales, *zeroPoints, *bias;
  float *globalScale;
  int64_t n, k;
  c10::ScalarType dtype;
  c10::DeviceType deviceType;
  c10::DeviceIndex deviceIndex;
  // The allocator and backend key torch's own empty() used for the probe
  // tensor: outputs are allocated like at::detail::empty_cuda does, without
  // the dispatcher (null: use at::empty).
  c10::Allocator *allocator;
  c10::DispatchKey backendKey;
  PyObject *onError;
  // The workspace set up by the Python path: valid for m <= maxM on `stream`
  // while `generation` is current. maxM = 0: nothing set up yet.
  int64_t maxM;
  bool needsWorkspace;
  void *wsStream;
  void *ws;
  size_t wsBytes;
  uint64_t generation;
  uint64_t hits;
};

bool unsignedArg(PyObject *value, unsigned long long &out) {
  out = PyLong_AsUnsignedLongLong(value);
  return !(out == (unsigned long long)-1 && PyErr_Occurred());
}

// Runner(probe, run_address, weights, scales, global_scale, zero_points, bias,
//        n, k, on_error): `probe` is any tensor of the layer's activation dtype
// on its device; pointers are ints (0 for absent operands).
int Runner_init(PyObject *self_, PyObject *args, PyObject *kwargs) {
  auto *self = reinterpret_cast<Runner *>(self_);
  PyObject *probe, *onError;
  unsigned long long run, weights, scales, globalScale, zeroPoints, bias;
  long long n, k;
  if (kwargs && PyDict_Size(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "Runner takes positional arguments only");
    return -1;
  }
  if (!PyArg_ParseTuple(args, "OKKKKKKLLO", &probe, &run, &weights, &scales, &globalScale,
                        &zeroPoints, &bias, &n, &k, &onError))
    return -1;
  if (!THPVariable_Check(probe)) {
    PyErr_SetString(PyExc_TypeError, "probe must be a torch.Tensor");
    return -1;
  }
  if (!run || n <= 0 || k <= 0 || !PyCallable_Check(onError)) {
    PyErr_SetString(PyExc_ValueError, "Runner needs a run address, n > 0, k > 0 and a callable");
    return -1;
  }
  const at::Tensor &t = THPVariable_Unpack(probe);
  self->run = reinterpret_cast<RunFn>(static_cast<uintptr_t>(run));
  self->weights = reinterpret_cast<void *>(static_cast<uintptr_t>(weights));
  self->scales = reinterpret_cast<void *>(static_cast<uintptr_t>(scales));
  self->globalScale = reinterpret_cast<float *>(static_cast<uintptr_t>(globalScale));
  self->zeroPoints = reinterpret_cast<void *>(static_cast<uintptr_t>(zeroPoints));
  self->bias = reinterpret_cast<void *>(static_cast<uintptr_t>(bias));
  self->n = n;
  self->k = k;
  self->dtype = t.scalar_type();
  self->deviceType = t.device().type();
  self->deviceIndex = t.device().index();
  self->allocator = nullptr;
  if (t.has_storage() && (self->deviceType == c10::DeviceType::CUDA ||
                          self->deviceType == c10::DeviceType::CPU)) {
    self->allocator = t.storage().allocator();
    self->backendKey = self->deviceType == c10::DeviceType::CUDA ? c10::DispatchKey::CUDA
                                                                  : c10::DispatchKey::CPU;
  }
  Py_INCREF(onError);
  Py_XDECREF(self->onError);
  self->onError = onError;
  self->maxM = 0;
  self->needsWorkspace = false;
  self->wsStream = nullptr;
  self->ws = nullptr;
  self->wsBytes = 0;
  self->generation = 0;
  self->hits = 0;
  return 0;
}

void Runner_dealloc(PyObject *self_) {
  auto *self = reinterpret_cast<Runner *>(self_);
  Py_CLEAR(self->onError);
  Py_TYPE(self_)->tp_free(self_);
}

// The stream handle of the current stream on the runner's device, and whether
// that device is the current one. CPU (the tests): stream 0, always current.
bool currentStream(const Runner *self, void *&stream) {
  if (self->deviceType == c10::DeviceType::CPU) {
    stream = nullptr;
    return true;
  }
  const auto *impl = c10::impl::getDeviceGuardImpl(self->deviceType);
  c10::Device device(self->deviceType, self->deviceIndex);
  if (impl->getDevice() != device)
    return false;
  stream = impl->getStream(device).native_handle();
  return true;
}

bool fits(const Runner *self, const at::Tensor &t) {
  return t.scalar_type() == self->dtype && t.device().type() == self->deviceType &&
         t.device().index() == self->deviceIndex && t.is_contiguous();
}

// Calls the launcher; false with a Python exception set on a non-zero status.
bool launch(Runner *self, void *stream, int64_t m, const at::Tensor &x, void *y, void *ws,
            size_t wsBytes) {
  int status = self->run(stream, m, x.const_data_ptr(), self->weights, self->scales,
                         self->globalScale, self->zeroPoints, self->bias, y, ws, wsBytes);
  if (!status) {
    ++self->hits;
    return true;
  }
  PyObject *raised = PyObject_CallFunction(self->onError, "i", status);
  Py_XDECREF(raised);
  if (!PyErr_Occurred())
    PyErr_Format(PyExc_RuntimeError, "qmat launcher failed with status %d", status);
  return false;
}

// forward(x, out=None) -> the output tensor, or None where the Python path
// must decide (nothing was launched then). A C++ exception before the launch
// (say, at::empty out of memory) is a None too: the Python path repeats the
// step and torch raises its own Python exception for it.
PyObject *Runner_forward(PyObject *self_, PyObject *const *args, Py_ssize_t nargs) {
  auto *self = reinterpret_cast<Runner *>(self_);
  if (nargs < 1 || nargs > 2) {
    PyErr_SetString(PyExc_TypeError, "forward(x, out=None)");
    return nullptr;
  }
  PyObject *xObj = args[0];
  PyObject *outObj = nargs == 2 && args[1] != Py_None ? args[1] : nullptr;
  if (!THPVariable_Check(xObj) || (outObj && !THPVariable_Check(outObj)))
    Py_RETURN_NONE;
  try {
    const at::Tensor &x = THPVariable_Unpack(xObj);
    int64_t dims = x.dim();
    if (dims < 1 || x.size(-1) != self->k || !fits(self, x))
      Py_RETURN_NONE;
    if (x.requires_grad() && c10::GradMode::is_enabled())
      Py_RETURN_NONE;
    int64_t m = dims == 2 ? x.size(0) : x.numel() / self->k;
    if (m <= 0 || m > self->maxM)
      Py_RETURN_NONE;
    void *stream;
    if (!currentStream(self, stream))
      Py_RETURN_NONE;
    void *ws = nullptr;
    size_t wsBytes = 0;
    if (self->needsWorkspace) {
      if (stream != self->wsStream || self->generation != workspaceGeneration)
        Py_RETURN_NONE;
      ws = self->ws;
      wsBytes = self->wsBytes;
    }
    if (outObj) {
      const at::Tensor &out = THPVariable_Unpack(outObj);
      if (out.dim() != dims || out.size(-1) != self->n || !fits(self, out))
        Py_RETURN_NONE;
      for (int64_t d = 0; d + 1 < dims; ++d)
        if (out.size(d) != x.size(d))
          Py_RETURN_NONE;
      if (!launch(self, stream, m, x, out.data_ptr(), ws, wsBytes))
        return nullptr;
      return Py_NewRef(outObj);
    }
    int64_t matrix[2] = {m, self->n};
    std::vector<int64_t> leading;  // x.shape[:-1] + [n], for inputs of other ranks
    c10::IntArrayRef sizes(matrix, 2);
    if (dims != 2) {
      leading.assign(x.sizes().begin(), x.sizes().end());
      leading.back() = self->n;
      sizes = leading;
    }
    // The current device is the layer's (checked above), where the CUDA
    // caching allocator allocates.
    at::Tensor y = self->allocator
        ? at::Tensor(at::detail::empty_generic(sizes, self->allocator,
                                               c10::DispatchKeySet(self->backendKey),
                                               self->dtype, std::nullopt))
        : at::empty(sizes, x.options());
    PyObject *result = THPVariable_Wrap(y);
    if (!result)
      return nullptr;
    if (!launch(self, stream, m, x, y.data_ptr(), ws, wsBytes)) {
      Py_DECREF(result);
      return nullptr;
    }
    return result;
  } catch (const std::exception &) {
    Py_RETURN_NONE;
  }
}

// set_workspace(max_m, stream, pointer, nbytes): calls with m <= max_m may run;
// with nbytes > 0 only on `stream`, with that workspace, until the next
// invalidate(). nbytes = 0: the layer needs no workspace up to max_m.
PyObject *Runner_set_workspace(PyObject *self_, PyObject *args) {
  auto *self = reinterpret_cast<Runner *>(self_);
  long long maxM;
  unsigned long long stream, pointer, nbytes;
  if (!PyArg_ParseTuple(args, "LKKK", &maxM, &stream, &pointer, &nbytes))
    return nullptr;
  self->maxM = maxM;
  self->needsWorkspace = nbytes != 0;
  self->wsStream = reinterpret_cast<void *>(static_cast<uintptr_t>(stream));
  self->ws = reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
  self->wsBytes = nbytes;
  self->generation = workspaceGeneration;
  Py_RETURN_NONE;
}

PyObject *Runner_get_hits(PyObject *self_, void *) {
  return PyLong_FromUnsignedLongLong(reinterpret_cast<Runner *>(self_)->hits);
}

PyObject *Runner_get_max_m(PyObject *self_, void *) {
  return PyLong_FromLongLong(reinterpret_cast<Runner *>(self_)->maxM);
}

PyMethodDef RunnerMethods[] = {
    {"forward", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(Runner_forward)),
     METH_FASTCALL, "forward(x, out=None) -> tensor, or None where the Python path decides"},
    {"set_workspace", Runner_set_workspace, METH_VARARGS,
     "set_workspace(max_m, stream, pointer, nbytes)"},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef RunnerGetSet[] = {
    {"hits", Runner_get_hits, nullptr, "calls the fast path completed", nullptr},
    {"max_m", Runner_get_max_m, nullptr, "the largest M the fast path takes", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject RunnerType = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject *invalidate(PyObject *, PyObject *) {
  ++workspaceGeneration;
  Py_RETURN_NONE;
}

PyMethodDef ModuleMethods[] = {
    {"invalidate", invalidate, METH_NOARGS,
     "Forgets every Runner's workspace (call when a shared workspace is freed or replaced)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef ModuleDef = {PyModuleDef_HEAD_INIT, TORCH_EXTENSION_NAME_STR, nullptr, -1,
                         ModuleMethods};

} // namespace

#define QMAT_CONCAT2(a, b) a##b
#define QMAT_CONCAT(a, b) QMAT_CONCAT2(a, b)

extern "C" PyMODINIT_FUNC QMAT_CONCAT(PyInit_, TORCH_EXTENSION_NAME)() {
  RunnerType.tp_name = TORCH_EXTENSION_NAME_STR ".Runner";
  RunnerType.tp_basicsize = sizeof(Runner);
  RunnerType.tp_flags = Py_TPFLAGS_DEFAULT;
  RunnerType.tp_doc = "One QuantLinear layer's launcher call, precomputed";
  RunnerType.tp_new = PyType_GenericNew;
  RunnerType.tp_init = Runner_init;
  RunnerType.tp_dealloc = Runner_dealloc;
  RunnerType.tp_methods = RunnerMethods;
  RunnerType.tp_getset = RunnerGetSet;
  if (PyType_Ready(&RunnerType) < 0)
    return nullptr;
  PyObject *module = PyModule_Create(&ModuleDef);
  if (!module)
    return nullptr;
  Py_INCREF(&RunnerType);
  if (PyModule_AddObject(module, "Runner", reinterpret_cast<PyObject *>(&RunnerType)) < 0) {
    Py_DECREF(&RunnerType);
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
