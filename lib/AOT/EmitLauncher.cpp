//===- EmitLauncher.cpp - Launcher sources, manifest and summary ----------===//

#include "qmat/AOT/BinarySelection.h"
#include "qmat/AOT/Bundle.h"
#include "qmat/AOT/FusedGemmPolicy.h"
#include "qmat/Conversion/QMatToGPU/GemvKernelBuilder.h"
#include "qmat/Transforms/KernelConfig.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include "qmat/Version.h"

#include <optional>

using namespace mlir;
using namespace mlir::qmat;

namespace {

const char *kLauncherABI =
#include "LauncherABISource.inc"
    ;
const char *kBundleTables =
#include "BundleTablesSource.inc"
    ;
const char *kRuntimeCommon =
#include "LauncherCommonSource.inc"
    ;
const char *kRuntimeCUDA =
#include "LauncherCUDASource.inc"
    ;
const char *kRuntimeHIP =
#include "LauncherHIPSource.inc"
    ;
const char *kGemvPolicy =
#include "GemvPolicySource.inc"
    ;
const char *kFusedPolicy =
#include "FusedGemmPolicySource.inc"
    ;
const char *kBinarySelection =
#include "BinarySelectionSource.inc"
    ;
const char *kPreparedWeights =
#include "PreparedWeightsSource.inc"
    ;

/// The run-time policy's traits of GEMV variant `variant` of layer
/// `layerIndex`, from the config its kernel was built by. Every target of a
/// bundle builds a variant with the same decode (the table is per layer),
/// so the first target's kernel answers.
GemvPolicyTraits getPolicyTraits(const Bundle &bundle, size_t layerIndex,
                                 size_t variant) {
  const Layer &layer = bundle.layers[layerIndex];
  const GemvVariant &v = layer.gemvVariants[variant];
  return getGemvPolicyTraits(
      layer.scheme, layer.bf16, layer.plan.getPreparedWeights(),
      bundle.vendor == Vendor::cuda, v.wholeLines,
      bundle.targets.front().gemvLaunches[layerIndex][variant].config);
}

StringRef getWideTilesName(qmat_policy::WideTiles wide) {
  switch (wide) {
  case qmat_policy::WideTiles::never:
    return "qmat_policy::WideTiles::never";
  case qmat_policy::WideTiles::manyTiles:
    return "qmat_policy::WideTiles::manyTiles";
  case qmat_policy::WideTiles::manyTilesOrRows:
    return "qmat_policy::WideTiles::manyTilesOrRows";
  case qmat_policy::WideTiles::manyTilesFromRows:
    return "qmat_policy::WideTiles::manyTilesFromRows";
  case qmat_policy::WideTiles::fourOnManyTiles:
    return "qmat_policy::WideTiles::fourOnManyTiles";
  }
  llvm_unreachable("unknown WideTiles");
}

size_t gemvKernelCount(const Bundle &bundle) {
  size_t count = 0;
  for (const Layer &layer : bundle.layers)
    count += layer.gemvVariants.size();
  return count;
}

size_t fusedKernelCount(const Bundle &bundle) {
  size_t count = 0;
  for (const Layer &layer : bundle.layers)
    count += layer.fusedVariants.size();
  return count;
}

std::string upper(StringRef s) { return s.upper(); }

std::string formatCapability(int capability) {
  return std::to_string(capability / 10) + "." +
         std::to_string(capability % 10);
}

/// Of the known NVIDIA devices (BinarySelection.h), those that load the
/// cubin and those that compile the PTX of the bundle's target `index`.
std::pair<std::vector<std::string>, std::vector<std::string>>
getLoadingDevices(const Bundle &bundle, size_t index) {
  std::vector<qmat_select::BinaryDesc> binaries;
  for (const TargetBinary &t : bundle.targets)
    binaries.push_back({t.computeCapability, t.archSpecific, !t.ptx.empty()});
  std::pair<std::vector<std::string>, std::vector<std::string>> devices;
  for (int device : qmat_select::KnownDevices::values) {
    qmat_select::Selection selection = qmat_select::selectBinary(
        device, binaries.data(), static_cast<int>(binaries.size()));
    if (selection.index != static_cast<int>(index))
      continue;
    (selection.kind == qmat_select::BinaryKind::cubin ? devices.first
                                                      : devices.second)
        .push_back(formatCapability(device));
  }
  return devices;
}

/// Where a target's cubin runs at all, as a phrase.
std::string describeCubinRange(const TargetBinary &t) {
  std::string own = formatCapability(t.computeCapability);
  if (t.archSpecific)
    return own + " only";
  return own + " and later " + std::to_string(t.computeCapability / 10) + ".x";
}

std::string joinDevices(const std::vector<std::string> &devices) {
  return devices.empty() ? "none" : llvm::join(devices, ", ");
}

bool isHip(const Bundle &bundle) { return bundle.vendor == Vendor::hip; }
const char *streamType(const Bundle &bundle) {
  return isHip(bundle) ? "hipStream_t" : "CUstream";
}

int64_t weightCols(const Layer &l) {
  return l.scheme == SchemeKind::fp8 ? l.k : l.k / 2;
}
int64_t scaleCols(const Layer &l) {
  return SchemeAttr::get(l.plan.getContext(), l.scheme, l.blockSize)
      .getNumBlocks(l.k);
}
int64_t scaleElementBytes(const Layer &l) {
  switch (l.scheme) {
  case SchemeKind::nvfp4:
  case SchemeKind::mxfp4:
    return 1;
  case SchemeKind::fp8:
    return 4;
  case SchemeKind::int4:
    return 2;
  }
  return 1;
}
int64_t zeroPointCols(const Layer &l) { return (scaleCols(l) + 1) / 2; }
int64_t tileCount(const Layer &l) {
  int64_t rows = l.plan.getTileRows();
  if (rows <= 0)
    return 0;
  return l.n / rows + (l.n % rows != 0);
}

/// `s` as the body of a C string literal: quotes, backslashes and control
/// characters escaped (also safe inside a // comment: no trailing '\').
std::string escapeC(StringRef s) {
  std::string escaped, result;
  llvm::raw_string_ostream os(escaped);
  // Octal escapes: a hex escape would swallow the hex digits after it.
  os.write_escaped(s, /*UseHexEscapes=*/false);
  // No trigraphs ("??="), and no comment opener in the header's comments.
  for (char c : escaped) {
    if (c == '*') {
      result += "\\052";
      continue;
    }
    if (c == '?')
      result += '\\';
    result += c;
  }
  return result;
}

/// `source` without its whole-line // comments. The embedded headers' comments
/// explain qmat's choices to its developers, with the measurements behind
/// them; the launcher carries the code alone.
std::string withoutCommentLines(StringRef source) {
  std::string kept;
  while (!source.empty()) {
    auto [line, rest] = source.split('\n');
    if (!line.ltrim().starts_with("//"))
      kept += (line + "\n").str();
    source = rest;
  }
  return kept;
}

/// `bytes` as a string literal, split in lines of 64 input bytes. A compiler
/// reads a literal an order of magnitude faster than a braced list of as many
/// integers (megabytes of cubin compile in about a second, not half a
/// minute), and the launcher stays one source file that builds wherever it
/// is copied, which an .incbin of a file beside it would not. escapeC's
/// three-digit octal escapes cannot swallow a following digit. The array is
/// one byte longer than `bytes`: the literal's terminating NUL.
void emitBinaryLiteral(StringRef bytes, llvm::raw_ostream &os) {
  if (bytes.empty())
    os << " \"\"";
  for (size_t i = 0; i < bytes.size(); i += 64)
    os << "\n    \"" << escapeC(bytes.substr(i, 64)) << "\"";
}

/// The scales' alignment on the GEMV path: one element, or the blocks of a
/// chunk that the layer's GEMV kernels read with one load.
int64_t gemvScaleAlignment(const Layer &l) {
  int64_t elements = 1;
  for (const GemvVariant &v : l.gemvVariants)
    elements = std::max(
        elements, getGemvScaleLoadElements(v.tensorCore, l.k, l.blockSize));
  return elements * scaleElementBytes(l);
}
/// The scales' alignment on the fused path: the blocks of a 32-element chunk
/// that one load reads, as the tensor-core GEMV.
int64_t fusedScaleAlignment(const Layer &l) {
  return getGemvScaleLoadElements(/*tensorCore=*/true, l.k, l.blockSize) *
         scaleElementBytes(l);
}
/// Whether the layer's GEMV is the chunked dot (16-byte vector loads).
bool usesChunkedDot(const Layer &l) {
  return llvm::any_of(l.gemvVariants, [&](const GemvVariant &v) {
    return isChunkedGemvDot(v.tensorCore, l.k, l.blockSize);
  });
}
/// The widest load a dequant thread issues from the weights (vec8).
int64_t weightAlignment(const Layer &l) {
  if (l.plan.getDequant() != DequantKernel::vec8)
    return 1;
  return l.scheme == SchemeKind::fp8 ? 8 : 4;
}

// The two entry-point signatures, written once so that the header's
// declarations and the source's definitions cannot drift apart.
void emitWorkspaceSizeSignature(const Bundle &bundle, const Layer &layer,
                                llvm::raw_ostream &os) {
  os << "size_t " << bundle.prefix << "_" << layer.symbol
     << "_workspace_size(int64_t max_m)";
}

void emitPrepareSignature(const Bundle &bundle, const Layer &layer,
                          llvm::raw_ostream &os) {
  os << "qmat_status " << bundle.prefix << "_" << layer.symbol
     << "_prepare_weights(const void *weights, void *prepared)";
}

void emitRunSignature(const Bundle &bundle, const Layer &layer,
                      llvm::raw_ostream &os) {
  os << "qmat_status " << bundle.prefix << "_" << layer.symbol << "_run("
     << streamType(bundle)
     << " stream, int64_t m, const void *a, const void *weights,\n"
     << "    const void *scales, const float *global_scale, const void "
        "*zero_points,\n"
     << "    const void *bias, void *y, void *workspace, size_t "
        "workspace_size)";
}

int64_t getGemvMaxM(const Layer &l) {
  return l.gemvVariants.empty() ? 0 : l.plan.getGemvMaxM();
}

int64_t getFusedMaxM(const Layer &l) {
  return l.fusedVariants.empty() ? 0 : l.plan.getFusedMaxM();
}

/// The largest M whose path reads no workspace (the GEMV or the fused GEMM).
int64_t getLastWorkspaceFreeM(const Layer &l) {
  return std::max(getGemvMaxM(l), getFusedMaxM(l));
}

/// The comment above a layer's _run: its operands' shapes, the path each M
/// takes and the alignment each path needs (what validateArguments checks).
void emitRunDoc(const Layer &l, llvm::raw_ostream &os) {
  int64_t gemvMaxM = getGemvMaxM(l);
  int64_t fusedMaxM = getFusedMaxM(l);
  std::string act = l.bf16 ? "bf16" : "f16";
  os << llvm::formatv("/// Y[m, {0}] = A[m, {1}] * W^T{2}, for 0 < m <= "
                      "2147483647. a: {3} [m, {1}]; y: {3} [m, {0}];\n",
                      l.n, l.k, l.hasBias ? " + bias" : "", act)
     << llvm::formatv("/// weights: {0} rows of {1} bytes; scales: {0} rows "
                      "of {2} elements of {3} bytes",
                      l.n, weightCols(l), scaleCols(l), scaleElementBytes(l));
  if (l.hasZeroPoints)
    os << llvm::formatv("; zero_points: {0} rows of {1} bytes", l.n,
                        zeroPointCols(l));
  if (l.scheme == SchemeKind::nvfp4)
    os << "; global_scale: one float";
  if (l.hasBias)
    os << "; bias: " << l.n << " x " << act;
  os << ".\n/// Alignment: a, y, bias 2 bytes, global_scale 4, and per path:\n";
  if (gemvMaxM > 0) {
    bool wide = l.gemvVariants.front().tensorCore || usesChunkedDot(l);
    os << llvm::formatv("///   m <= {0} (decode GEMV, no workspace read): "
                        "scales {1}{2};\n",
                        gemvMaxM, gemvScaleAlignment(l),
                        wide ? ", a and weights 16" : "");
  }
  if (fusedMaxM > gemvMaxM)
    os << llvm::formatv("///   m <= {0} (fused dequant-GEMM, no workspace "
                        "read): scales {1}, a and weights 16;\n",
                        fusedMaxM, fusedScaleAlignment(l));
  os << llvm::formatv("///   larger m (dequantize + GEMM): scales {0}, "
                      "weights {1}, workspace 256.\n",
                      scaleElementBytes(l), weightAlignment(l));
}

} // namespace

void mlir::qmat::emitLauncherHeader(const Bundle &bundle,
                                    llvm::raw_ostream &os) {
  std::string guard = "QMAT_BUNDLE_" + upper(bundle.prefix) + "_H";
  os << "// Generated by qmat-aot. Do not edit.\n"
     << "//\n// Every entry point validates its arguments and returns a "
        "status;\n"
     << "// nothing is allocated behind the caller's back: the caller passes "
        "a\n"
     << "// workspace of at least <layer>_workspace_size(max_m) bytes, "
        "256-byte\n"
     << "// aligned. " << bundle.prefix
     << "_last_error() describes the last failure on the\n"
     << "// calling thread.\n"
     << "//\n"
     << "// Operands of <layer>_run: device pointers to dense row-major\n"
     << "// buffers with no leading dimension: A [m, K] and Y [m, N] of the\n"
     << "// layer's activation type (f16 or bf16), the codes as the layer\n"
     << "// says (fp4 and int4: two per byte along K, the even k in the low\n"
     << "// nibble), the scales [N, ceil(K / block)], int4 zero points (u4,\n"
     << "// two blocks per byte, the even block in the low nibble), the\n"
     << "// nvfp4 global scale (one float, in device memory) and the bias\n"
     << "// [N]; docs/numerics.md defines the formats. An operand the layer\n"
     << "// does not have must be null. "
     << (isHip(bundle) ? ""
                       : "An address no CUDA allocation holds\n"
                         "// (pageable host memory) is refused with "
                         "QMAT_ERROR_INVALID_ARGUMENT,\n"
                         "// unless the device reads pageable memory "
                         "itself.")
     << "\n//\n"
     << "// Calls are asynchronous on `stream`: QMAT_OK means the work was\n"
     << "// queued, and the buffers must stay valid until it has run. The\n"
     << "// first call in a context loads the module, the first call above\n"
     << "// the fused GEMM's M range creates the GEMM library's handle; to\n"
     << "// capture _run into a graph, make one call per layer and M range\n"
     << "// before the capture. Entry points may be called from any thread:\n"
     << "// the loaded state is shared under a lock and the last error is per\n"
     << "// thread. _unload waits for the calls other threads are making, and\n"
     << "// a call after it loads the module again; work already queued on a\n"
     << "// stream must have run before _unload (synchronize first).\n"
     << "//\n"
     << "// QMAT_LOG=info logs to stderr which binary each device loads and\n"
     << "// the first call of each layer on each path and variant (and why);\n"
     << "// QMAT_LOG=debug logs every call. <prefix>_set_log_handler sends\n"
     << "// these lines to a function of the caller's instead.\n\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << (isHip(bundle) ? "#include <hip/hip_runtime_api.h>\n"
                       : "#include <cuda.h>\n")
     << "#include <stddef.h>\n#include <stdint.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << kLauncherABI << "\n"
     << "/// The message of the last failing call on this thread.\n"
     << "const char *" << bundle.prefix << "_last_error(void);\n"
     << (isHip(bundle) ? "/// Unloads the modules and hipBLASLt handles of "
                         "every device.\n"
                       : "/// Unloads the modules and cuBLASLt handles of "
                         "every context.\n")
     << "qmat_status " << bundle.prefix << "_unload(void);\n";
  if (!isHip(bundle))
    os << "/// Which binary of this bundle a device of compute capability\n"
       << "/// major.minor loads: in *target the name of its target "
          "(\"sm_86\"),\n"
       << "/// in *from_ptx (may be null) 1 when the driver compiles that\n"
       << "/// target's PTX, 0 for its cubin. QMAT_ERROR_UNSUPPORTED_DEVICE "
          "when\n"
       << "/// none runs there: a cubin runs on devices of its major version "
          "and\n"
       << "/// a minor at or above its own (sm_XYa ones on X.Y only), PTX on\n"
       << "/// its compute capability and every later one.\n"
       << "qmat_status " << bundle.prefix
       << "_selected_binary(int major, int minor, const char **target, int "
          "*from_ptx);\n";
  os << "/// Sends the launcher's log lines up to `level` (QMAT_LOG_INFO: "
        "which\n"
     << "/// binary each device loads and each layer's first call on each "
        "path\n"
     << "/// and variant; QMAT_LOG_DEBUG: every call; QMAT_LOG_OFF: none) to\n"
     << "/// `handler` with `user` instead of stderr at QMAT_LOG's level. A "
        "null\n"
     << "/// handler restores QMAT_LOG. Applies to every layer and thread.\n"
     << "qmat_status " << bundle.prefix
     << "_set_log_handler(qmat_log_fn handler, int level, void *user);\n";
  os << "/// For benchmarking: run the small-M path with this compiled GEMV\n"
     << "/// variant instead of the policy's choice; (0, 0) restores the\n"
     << "/// policy. Applies to every layer and thread. A bundle compiles\n"
     << "/// the variants the policy can choose (the manifest's\n"
     << "/// gemv_variants), or every one with qmat-aot --all-gemv-variants.\n"
     << "qmat_status " << bundle.prefix
     << "_set_gemv_override(int split_k, int col_tiles);\n"
     << "/// For benchmarking: run M above the GEMV with this compiled fused\n"
     << "/// GEMM variant instead of the policy's choice; (0, 0, 0, 0, 0) "
        "restores\n"
     << "/// the policy, m_tile = -1 sends every such M to the dequantize +\n"
     << "/// GEMM path. Applies to every layer and thread.\n"
     << "qmat_status " << bundle.prefix
     << "_set_fused_override(int m_tile, int warps_n, int split_k, int "
        "col_tiles, int stages);\n"
     << "/// The same for a variant whose K range is split across k_slices\n"
     << "/// blocks of a cluster (k_slices 1: the call above).\n"
     << "qmat_status " << bundle.prefix
     << "_set_fused_override_sliced(int m_tile, int warps_n, int split_k, "
        "int col_tiles, int stages, int k_slices);\n"
     << "/// The same for a specialized variant whose clusters of multicast\n"
     << "/// blocks share the activations (multicast 1: the first call).\n"
     << "qmat_status " << bundle.prefix
     << "_set_fused_override_multicast(int m_tile, int warps_n, int "
        "split_k, int col_tiles, int stages, int multicast);\n"
     << "/// The same for a specialized variant with the decoded weights in\n"
     << "/// the multiplying warps' registers, by its M tile and column "
        "tiles.\n"
     << "qmat_status " << bundle.prefix
     << "_set_fused_override_registers(int m_tile, int col_tiles);\n\n";
  for (const Layer &layer : bundle.layers) {
    std::string title = layer.symbol;
    if (layer.symbol != layer.name)
      title += " (\"" + escapeC(layer.name) + "\")";
    os << llvm::formatv("/// {0}: Y[m, {1}] = A[m, {2}] * W^T ({3}, block {4}, "
                        "{5}{6}).\n",
                        title, layer.n, layer.k,
                        stringifySchemeKind(layer.scheme), layer.blockSize,
                        layer.bf16 ? "bf16" : "f16",
                        layer.hasBias ? ", bias" : "");
    os << llvm::formatv("/// Workspace bytes for every m up to max_m: 0 for "
                        "max_m <= {0} (no dequantize + GEMM) and for max_m "
                        "<= 0.\n",
                        getLastWorkspaceFreeM(layer));
    emitWorkspaceSizeSignature(bundle, layer, os);
    os << ";\n";
    os << "/// Writes the codes (host memory, " << layer.n << " rows of "
       << weightCols(layer) << " bytes) in the layout `weights` of _run "
       << "takes: "
       << (layer.plan.getPreparedWeights()
               ? "the prepared layout (16-byte pieces permuted)"
               : "the checkpoint's (a copy)")
       << ".\n";
    emitPrepareSignature(bundle, layer, os);
    os << ";\n";
    emitRunDoc(layer, os);
    emitRunSignature(bundle, layer, os);
    os << ";\n";
    os << "\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif // " << guard << "\n";
}

void mlir::qmat::emitLauncherSource(const Bundle &bundle,
                                    llvm::raw_ostream &os) {
  os << "// Generated by qmat-aot. Do not edit.\n\n"
     << (isHip(bundle) ? "#define QMAT_LAUNCHER_HIP 1\n\n" : "")
     << "#include \"" << bundle.prefix << ".h\"\n\n"
     << (isHip(bundle) ? "#include <dlfcn.h>\n\n" : "#include <cublasLt.h>\n\n")
     << "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
     << "#include <algorithm>\n#include <atomic>\n#include <climits>\n#include "
        "<cstdint>\n"
     << "#include <array>\n#include <initializer_list>\n#include "
        "<map>\n#include <mutex>\n#include <set>\n#include "
        "<shared_mutex>\n#include "
        "<string>\n#include <tuple>\n#include <type_traits>\n#include "
        "<utility>\n"
     << "#include <vector>\n\n"
     // The policies, the binary selection and the prepared layout, as
     // qmat's own code uses them, inside this file's anonymous namespace:
     // their inline functions then have internal linkage, so two bundles
     // (of two qmat versions, say) in one program never share one. Their
     // standard headers are included above, so their #includes add nothing
     // here.
     // A launcher uses only some of them (a HIP one no binary selection).
     << "// The dispatch policies and helpers qmat compiles with (internal to\n"
     << "// this file; not all of them are used by every bundle).\n"
     << "namespace {\n"
     << "#pragma GCC diagnostic push\n"
     << "#pragma GCC diagnostic ignored \"-Wunused-function\"\n"
     << withoutCommentLines(kGemvPolicy) << "\n"
     << withoutCommentLines(kFusedPolicy) << "\n"
     << (isHip(bundle) ? "" : withoutCommentLines(kBinarySelection)) << "\n"
     << withoutCommentLines(kPreparedWeights) << "\n"
     << "#pragma GCC diagnostic pop\n"
     << "}  // namespace\n\n"
     << kBundleTables << "\n"
     << "// This bundle's tables.\n"
     << "namespace {\n\n"
     << "const char kBundlePrefix[] = \"" << escapeC(bundle.prefix) << "\";\n"
     << "constexpr size_t kGemmWorkspaceBytes = " << kGemmWorkspaceBytes
     << ";\n\n";
  for (const TargetBinary &target : bundle.targets) {
    os << "alignas(64) const unsigned char k"
       << (isHip(bundle) ? "Hsaco_" : "Cubin_") << target.chip << "["
       << target.cubin.size() + 1 << "] =";
    emitBinaryLiteral(target.cubin, os);
    os << ";\n\n";
    if (!target.ptx.empty()) {
      // The driver compiles this for newer GPUs that have no cubin here.
      os << "const char kPtx_" << target.chip << "[] =";
      StringRef rest = target.ptx;
      while (!rest.empty()) {
        auto [line, tail] = rest.split('\n');
        os << "\n    \"";
        os.write_escaped(line);
        os << "\\n\"";
        rest = tail;
      }
      os << ";\n\n";
    }
  }
  os << "const TargetDesc kTargets[] = {\n";
  for (const TargetBinary &target : bundle.targets)
    if (isHip(bundle))
      os << llvm::formatv(
          "    {{\"{0}\", kHsaco_{0}, sizeof(kHsaco_{0}) - 1},\n", target.chip);
    else
      os << llvm::formatv("    {{\"{0}\", {1}, kCubin_{0}, sizeof(kCubin_{0}) "
                          "- 1, {2}, {3}},\n",
                          target.chip, target.computeCapability,
                          target.ptx.empty() ? "nullptr"
                                             : "kPtx_" + target.chip,
                          target.archSpecific ? "true" : "false");
  os << "};\nconstexpr size_t kNumTargets = " << bundle.targets.size() << ";\n";
  if (!isHip(bundle)) {
    os << "// What a device may load of each target (BinarySelection.h).\n"
       << "const qmat_select::BinaryDesc kBinaries[kNumTargets] = {\n";
    for (const TargetBinary &target : bundle.targets)
      os << llvm::formatv("    {{{0}, {1}, {2}},\n", target.computeCapability,
                          target.archSpecific ? "true" : "false",
                          target.ptx.empty() ? "false" : "true");
    os << "};\n";
  }
  os << "constexpr size_t kNumKernels = " << bundle.layers.size() << ";\n\n"
     << "// Per target, the dequantization kernel of each layer, as lowered.\n"
     << "const KernelDesc kKernels[kNumTargets][kNumKernels] = {\n";
  for (const TargetBinary &target : bundle.targets) {
    os << "    {\n";
    for (const KernelLaunch &launch : target.launches)
      os << llvm::formatv("        {{\"{0}\", {1}, {2}},\n", launch.symbol,
                          launch.threads, launch.gridY);
    os << "    },\n";
  }
  os << "};\n\n";
  // Zero-length arrays are not C++: a bundle without GEMV keeps one unused
  // entry.
  size_t gemvCount = gemvKernelCount(bundle);
  os << "constexpr size_t kNumGemvKernels = " << gemvCount << ";\n"
     << "// The compiled decode-GEMV variants of every layer, in layer order.\n"
     << "const qmat_policy::GemvVariantDesc kGemvVariants[] = {\n";
  for (auto [l, layer] : llvm::enumerate(bundle.layers))
    for (auto [i, v] : llvm::enumerate(layer.gemvVariants)) {
      GemvPolicyTraits traits = getPolicyTraits(bundle, l, i);
      os << llvm::formatv("    {{{0}, {1}, {2}, {3}, {4}, {5}, {6}},\n", v.maxM,
                          v.splitK, v.colTiles, v.tensorCore ? "true" : "false",
                          getWideTilesName(traits.wideTiles),
                          v.wholeLines ? "true" : "false",
                          traits.unsplitOnManyTiles ? "true" : "false");
    }
  if (gemvCount == 0)
    os << "    {0, 0, 0, false, qmat_policy::WideTiles::never, false, "
          "false},\n";
  os << "};\n"
     << "const GemvKernelDesc kGemvKernels[kNumTargets]["
     << std::max<size_t>(gemvCount, 1) << "] = {\n";
  for (const TargetBinary &target : bundle.targets) {
    os << "    {\n";
    for (const std::vector<GemvLaunch> &layerLaunches : target.gemvLaunches)
      for (const GemvLaunch &launch : layerLaunches)
        os << llvm::formatv("        {{\"{0}\", {1}, {2}, 0},\n", launch.symbol,
                            launch.threads, launch.rowsPerBlock);
    if (gemvCount == 0)
      os << "        {nullptr, 0, 0, 0},\n";
    os << "    },\n";
  }
  os << "};\n\n";
  size_t fusedCount = fusedKernelCount(bundle);
  os << "constexpr size_t kNumFusedKernels = " << fusedCount << ";\n"
     << "// The compiled fused dequant-GEMM variants of every layer, in layer "
        "order.\n"
     << "const qmat_policy::FusedVariantDesc kFusedVariants[] = {\n";
  for (const Layer &layer : bundle.layers)
    for (const FusedGemmVariant &v : layer.fusedVariants)
      os << llvm::formatv("    {{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}},\n",
                          v.mTile, v.warpsN, v.splitK, v.colTiles, v.stages,
                          int(v.registerWeights ? qmat_policy::kRegisterForm
                              : v.specialized   ? qmat_policy::kSpecializedForm
                              : v.warpgroup     ? qmat_policy::kWarpgroupForm
                                                : qmat_policy::kWarpForm),
                          v.kSlices, v.multicast);
  if (fusedCount == 0)
    os << "    {0, 0, 0, 0, 0, 0, 1, 1},\n";
  os << "};\n";
  os << "const GemvKernelDesc kFusedKernels[kNumTargets]["
     << std::max<size_t>(fusedCount, 1) << "] = {\n";
  for (const TargetBinary &target : bundle.targets) {
    os << "    {\n";
    for (const std::vector<FusedLaunch> &layerLaunches : target.fusedLaunches)
      for (const FusedLaunch &launch : layerLaunches)
        os << llvm::formatv("        {{\"{0}\", {1}, {2}, {3}},\n",
                            launch.symbol, launch.threads, launch.rowsPerBlock,
                            launch.dynamicSharedBytes);
    if (fusedCount == 0)
      os << "        {nullptr, 0, 0, 0},\n";
    os << "    },\n";
  }
  os << "};\n";
  os << "\nconst KernelDesc *kernelsOf(size_t target) { return "
        "kKernels[target]; "
        "}\n"
     << "const GemvKernelDesc *gemvKernelsOf(size_t target) {\n"
     << "  return kGemvKernels[target];\n}\n";
  os << "const GemvKernelDesc *fusedKernelsOf(size_t target) {\n"
     << "  return kFusedKernels[target];\n}\n";
  os << "\n}  // namespace\n\n";
  os << kRuntimeCommon << "\n"
     << (isHip(bundle) ? kRuntimeHIP : kRuntimeCUDA) << "\n";

  os << "extern \"C\" {\n\n"
     << "const char *" << bundle.prefix
     << "_last_error(void) { return lastError.c_str(); }\n\n"
     << "qmat_status " << bundle.prefix << "_unload(void) {\n"
     << "  return unloadWhenIdle();\n}\n\n";
  if (!isHip(bundle))
    os << "qmat_status " << bundle.prefix
       << "_selected_binary(int major, int minor, const char **target, int "
          "*from_ptx) {\n"
       << "  return selectedBinary(major, minor, target, from_ptx);\n}\n\n";
  os << "qmat_status " << bundle.prefix
     << "_set_log_handler(qmat_log_fn handler, int level, void *user) {\n"
     << "  return setLogHandler(handler, level, user);\n}\n\n";
  os << "qmat_status " << bundle.prefix
     << "_set_gemv_override(int split_k, int col_tiles) {\n"
     << "  return setGemvOverride(split_k, col_tiles);\n}\n\n"
     << "qmat_status " << bundle.prefix
     << "_set_fused_override(int m_tile, int warps_n, int split_k, int "
        "col_tiles, int stages) {\n"
     << "  return setFusedOverride(m_tile, warps_n, split_k, col_tiles, "
        "stages, 1, 1);\n}\n\n"
     << "qmat_status " << bundle.prefix
     << "_set_fused_override_sliced(int m_tile, int warps_n, int split_k, "
        "int col_tiles, int stages, int k_slices) {\n"
     << "  return setFusedOverride(m_tile, warps_n, split_k, col_tiles, "
        "stages, k_slices, 1);\n}\n\n"
     << "qmat_status " << bundle.prefix
     << "_set_fused_override_multicast(int m_tile, int warps_n, int "
        "split_k, int col_tiles, int stages, int multicast) {\n"
     << "  return setFusedOverride(m_tile, warps_n, split_k, col_tiles, "
        "stages, 1, multicast);\n}\n\n"
     << "qmat_status " << bundle.prefix
     << "_set_fused_override_registers(int m_tile, int col_tiles) {\n"
     << "  for (const qmat_policy::FusedVariantDesc &v : kFusedVariants)\n"
     << "    if (v.warpgroup == qmat_policy::kRegisterForm && v.mTile == "
        "m_tile && v.colTiles == col_tiles)\n"
     << "      return setFusedOverride(m_tile, v.warpsN, v.splitK, "
        "col_tiles, v.stages, 1, 1, true);\n"
     << "  return setFusedOverride(m_tile, 4, 1, col_tiles, 0, 1, 1, "
        "true);\n}\n\n";
  size_t gemvFirst = 0, fusedFirst = 0;
  for (size_t i = 0; i < bundle.layers.size(); ++i) {
    const Layer &l = bundle.layers[i];
    int64_t gemvMaxM = getGemvMaxM(l);
    os << "static const LayerDesc kLayer_" << l.symbol << " = {"
       << llvm::formatv(
              "\"{0}\", {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}u, "
              "{9}, {18}, {19}, {10}, {11}, {12}, {13}, {14}, {15}, {16}u, "
              "{17}u, {20}, {21}u, {22}u, {23}};\n",
              escapeC(l.name), l.n, l.k, weightCols(l), scaleCols(l),
              scaleElementBytes(l), zeroPointCols(l), l.plan.getTileRows(),
              getScratchBytes(l), weightAlignment(l),
              l.scheme == SchemeKind::nvfp4 ? "true" : "false",
              l.hasZeroPoints ? "true" : "false", l.hasBias ? "true" : "false",
              l.bf16 ? "true" : "false", i, gemvMaxM, gemvFirst,
              l.gemvVariants.size(), gemvScaleAlignment(l),
              usesChunkedDot(l) ? "true" : "false", getFusedMaxM(l), fusedFirst,
              l.fusedVariants.size(), fusedScaleAlignment(l));
    gemvFirst += l.gemvVariants.size();
    fusedFirst += l.fusedVariants.size();
    // The scratch holds W tiles, so the size does not grow with M; the
    // decode GEMV needs none.
    emitWorkspaceSizeSignature(bundle, l, os);
    os << " {\n  return workspaceSize(kLayer_" << l.symbol
       << ", max_m);\n}\n\n";
    emitPrepareSignature(bundle, l, os);
    os << " {\n  return prepareWeights(kLayer_" << l.symbol << ", "
       << (l.plan.getPreparedWeights() ? "true" : "false")
       << ", weights, prepared);\n}\n\n";
    emitRunSignature(bundle, l, os);
    os << " {\n  return runLayer(kLayer_" << l.symbol
       << ", stream, m, a, weights, scales, global_scale, zero_points, bias, "
          "y,\n"
       << "                  workspace, workspace_size);\n}\n\n";
  }
  os << "\n}  // extern \"C\"\n\n"
     << "// The entry points have the types of LauncherABI.h (at the top of "
        "the\n"
     << "// header), which bindings that load them by name rely on.\n"
     << "static_assert(std::is_same<decltype(&" << bundle.prefix
     << "_set_log_handler), qmat_set_log_handler_fn>::value,\n"
     << "              \"" << bundle.prefix
     << "_set_log_handler: not the launcher ABI\");\n";
  for (const Layer &l : bundle.layers) {
    std::string entry = bundle.prefix + "_" + l.symbol;
    os << "static_assert(std::is_same<AbiRunType<decltype(&" << entry
       << "_run)>, qmat_run_fn>::value &&\n"
       << "                  std::is_same<decltype(&" << entry
       << "_workspace_size), qmat_workspace_size_fn>::value &&\n"
       << "                  std::is_same<decltype(&" << entry
       << "_prepare_weights), qmat_prepare_weights_fn>::value,\n"
       << "              \"" << entry << ": not the launcher ABI\");\n";
  }
}

void mlir::qmat::emitManifest(const Bundle &bundle, llvm::raw_ostream &os) {
  llvm::json::Array targets, layers;
  for (const TargetBinary &t : bundle.targets)
    if (isHip(bundle))
      targets.push_back(llvm::json::Object{
          {"chip", t.chip},
          {"hsaco_bytes", static_cast<int64_t>(t.cubin.size())}});
    else {
      size_t index = &t - bundle.targets.data();
      auto [cubinDevices, ptxDevices] = getLoadingDevices(bundle, index);
      llvm::json::Object target{
          {"chip", t.chip},
          {"compute_capability", t.computeCapability},
          {"arch_specific", t.archSpecific},
          {"kernel_class", t.kernelClass},
          {"cubin_bytes", static_cast<int64_t>(t.cubin.size())},
          {"ptx_bytes", static_cast<int64_t>(t.ptx.size())},
          {"cubin_runs_on", describeCubinRange(t)},
          // The known devices for which the launcher picks this target's
          // cubin, and those for which it has the driver compile its PTX.
          {"loaded_by",
           llvm::json::Object{{"cubin", llvm::json::Array(cubinDevices)},
                              {"ptx", llvm::json::Array(ptxDevices)}}}};
      if (!t.ptx.empty())
        target["ptx_runs_on"] =
            formatCapability(t.computeCapability) +
            (t.archSpecific ? std::string(" only") : " and later");
      targets.push_back(std::move(target));
    }
  for (size_t i = 0; i < bundle.layers.size(); ++i) {
    const Layer &l = bundle.layers[i];
    llvm::json::Object kernels;
    for (const TargetBinary &t : bundle.targets) {
      const KernelLaunch &k = t.launches[i];
      kernels[t.chip] = llvm::json::Object{
          {"symbol", k.symbol},
          {"block", llvm::json::Array{k.threads, 1, 1}},
          {"grid", llvm::json::Array{"tile rows", k.gridY, 1}}};
    }
    PlanAttr p = l.plan;
    llvm::json::Array gemv;
    for (auto [v, variant] : llvm::enumerate(l.gemvVariants)) {
      llvm::json::Object symbols;
      for (const TargetBinary &t : bundle.targets)
        symbols[t.chip] = llvm::json::Object{
            {"symbol", t.gemvLaunches[i][v].symbol},
            {"block", llvm::json::Array{t.gemvLaunches[i][v].threads, 1, 1}},
            {"rows_per_block", t.gemvLaunches[i][v].rowsPerBlock}};
      gemv.push_back(llvm::json::Object{{"index", static_cast<int64_t>(v)},
                                        {"max_m", variant.maxM},
                                        {"split_k", variant.splitK},
                                        {"col_tiles", variant.colTiles},
                                        {"tensor_core", variant.tensorCore},
                                        {"kernels", std::move(symbols)}});
    }
    llvm::json::Array fused;
    for (auto [v, variant] : llvm::enumerate(l.fusedVariants)) {
      llvm::json::Object symbols;
      for (const TargetBinary &t : bundle.targets)
        symbols[t.chip] = llvm::json::Object{
            {"symbol", t.fusedLaunches[i][v].symbol},
            {"block", llvm::json::Array{t.fusedLaunches[i][v].threads, 1, 1}},
            {"rows_per_block", t.fusedLaunches[i][v].rowsPerBlock},
            {"dynamic_shared_bytes", t.fusedLaunches[i][v].dynamicSharedBytes}};
      fused.push_back(
          llvm::json::Object{{"index", static_cast<int64_t>(v)},
                             {"m_tile", variant.mTile},
                             {"warps_n", variant.warpsN},
                             {"split_k", variant.splitK},
                             {"col_tiles", variant.colTiles},
                             {"stages", variant.stages},
                             {"warpgroup", variant.warpgroup},
                             {"specialized", variant.specialized},
                             {"weights_as_b", variant.weightsAsB},
                             {"k_slices", variant.kSlices},
                             {"multicast", variant.multicast},
                             {"weights_in_registers", variant.registerWeights},
                             {"decoders", variant.getDecoderGroups()},
                             {"kernels", std::move(symbols)}});
    }
    int64_t fusedMaxM = getFusedMaxM(l);
    layers.push_back(llvm::json::Object{
        {"name", l.name},
        {"symbol", l.symbol},
        {"scheme", stringifySchemeKind(l.scheme).str()},
        {"block_size", l.blockSize},
        {"n", l.n},
        {"k", l.k},
        {"dtype", l.bf16 ? "bf16" : "f16"},
        {"bias", l.hasBias},
        {"zero_points", l.hasZeroPoints},
        {"prepared_weights", p.getPreparedWeights()},
        {"strategy",
         llvm::json::Object{
             {"gemv_max_m", p.getGemvMaxM()},
             {"small_m", stringifyDecodePath(p.getSmallM()).str()},
             {"small_m_compiled", !l.gemvVariants.empty()},
             {"gemv_variants", std::move(gemv)},
             {"gemv_policy", "launcher: qmat_policy::chooseGemvVariant(n, k, "
                             "m, multiprocessors)"},
             {"fused_max_m", fusedMaxM},
             {"fused_variants", std::move(fused)},
             {"fused_policy", "launcher: qmat_policy::chooseFusedVariant(n, "
                              "k, m, multiprocessors)"},
             {"prefill", isHip(bundle) ? "dequantize + hipBLASLt GEMM"
                                       : "dequantize + cuBLASLt GEMM"},
             {"dequant", stringifyDequantKernel(p.getDequant()).str()},
             {"decode", stringifyDecodeMethod(p.getDecode()).str()},
             {"scratch_cap_mib", p.getScratchCapMiB()},
             {"tile_rows", p.getTileRows()},
             {"tiles", tileCount(l)}}},
        {"workspace",
         llvm::json::Object{
             {"formula", "round_up(tile_rows * k * 2, 256) + gemm_workspace; "
                         "0 when max_m <= gemv_max_m or max_m <= "
                         "fused_max_m"},
             {"scratch_bytes", getScratchBytes(l)},
             {"gemm_workspace_bytes", kGemmWorkspaceBytes},
             {"bytes", getScratchBytes(l) + kGemmWorkspaceBytes}}},
        {"kernels", std::move(kernels)}});
  }
  llvm::json::Object root{
      {"prefix", bundle.prefix},
      {"generator", "qmat-aot"},
      {"generator_version", QMAT_VERSION " (" QMAT_GIT_DESCRIBE ")"},
      {"runtime", isHip(bundle) ? "hip" : "cuda"},
      {"targets", std::move(targets)},
      {"layers", std::move(layers)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

LayerPaths mlir::qmat::getLayerPaths(const Layer &l) {
  int64_t gemvMaxM = getGemvMaxM(l);
  int64_t fusedMaxM = getFusedMaxM(l);
  LayerPaths paths;
  if (gemvMaxM > 0)
    paths.gemv = {
        llvm::formatv("1-{0}", gemvMaxM).str(),
        llvm::formatv("{0} x{1}",
                      l.gemvVariants.front().tensorCore ? "mma" : "scalar",
                      l.gemvVariants.size())
            .str()};
  // SelectStrategy keeps a fused range only above the GEMV's.
  if (fusedMaxM > 0) {
    auto specialized =
        llvm::count_if(l.fusedVariants,
                       [](const FusedGemmVariant &v) { return v.specialized; });
    paths.fused = {llvm::formatv("{0}-{1}", gemvMaxM + 1, fusedMaxM).str(),
                   "x" + std::to_string(l.fusedVariants.size())};
    if (specialized)
      paths.fused.detail += llvm::formatv(", {0} specialized", specialized);
  }
  int64_t tiles = tileCount(l);
  paths.dequant = {std::to_string(std::max(gemvMaxM, fusedMaxM) + 1) + "+",
                   llvm::formatv("{0} tile{1} of {2} rows", tiles,
                                 tiles == 1 ? "" : "s", l.plan.getTileRows())
                       .str()};
  return paths;
}

namespace {

/// `rows` as columns as wide as their widest cell, two spaces apart; the
/// columns `rightAligned` names are aligned right.
void printTable(llvm::raw_ostream &os,
                const std::vector<std::vector<std::string>> &rows,
                const std::vector<bool> &rightAligned) {
  std::vector<size_t> widths;
  for (const auto &row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto &row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      bool right = c < rightAligned.size() && rightAligned[c];
      std::string pad(widths[c] - row[c].size(), ' ');
      bool last = c + 1 == row.size();
      line += right ? pad + row[c] : row[c] + (last ? "" : pad);
      if (!last)
        line += "  ";
    }
    os << line << "\n";
  }
}

} // namespace

void mlir::qmat::emitSummary(const Bundle &bundle, llvm::raw_ostream &os) {
  std::vector<std::vector<std::string>> paths = {
      {"layer", "scheme", "N", "K", "dtype", "M: GEMV", "M: fused GEMM",
       "M: dequantize + GEMM", "workspace"}};
  std::vector<std::vector<std::string>> kernels = {{"layer"}};
  for (const TargetBinary &t : bundle.targets)
    kernels.front().push_back("dequantize kernel (" + t.chip + ")");
  for (auto [i, l] : llvm::enumerate(bundle.layers)) {
    LayerPaths p = getLayerPaths(l);
    auto cell = [](const LayerPath &path) {
      return path.range.empty() ? std::string("-")
                                : path.range + ": " + path.detail;
    };
    double mib = double(getScratchBytes(l) + kGemmWorkspaceBytes) / (1 << 20);
    paths.push_back(
        {l.name,
         (stringifySchemeKind(l.scheme) + "/" + std::to_string(l.blockSize))
             .str(),
         std::to_string(l.n), std::to_string(l.k), l.bf16 ? "bf16" : "f16",
         cell(p.gemv), cell(p.fused), cell(p.dequant),
         llvm::formatv("{0:f1} MiB", mib).str()});
    kernels.push_back({l.name});
    for (const TargetBinary &t : bundle.targets)
      kernels.back().push_back(t.launches[i].symbol);
  }
  printTable(os, paths,
             {false, false, true, true, false, false, false, false, true});
  os << "(M: the rows each path takes; xN: the variants compiled, chosen per "
        "call by the launcher's policy; mma: on the matrix units, scalar: "
        "without; workspace: what "
        "workspace_size(max_m) asks once max_m reaches the dequantize + GEMM "
        "range, 0 below it)\n";
  printTable(os, kernels, {});
  for (auto [index, t] : llvm::enumerate(bundle.targets)) {
    os << llvm::formatv(
        "target {0}: {1} {2} bytes{3}\n", t.chip, getBinaryExtension(bundle),
        t.cubin.size(),
        t.ptx.empty() ? std::string()
                      : ", ptx " + std::to_string(t.ptx.size()) + " bytes");
    if (isHip(bundle))
      continue;
    auto [cubinDevices, ptxDevices] = getLoadingDevices(bundle, index);
    os << "  " << t.kernelClass << "-class kernels; cubin runs on "
       << describeCubinRange(t) << "; loaded by " << joinDevices(cubinDevices);
    if (!t.ptx.empty())
      os << "; PTX compiled by " << joinDevices(ptxDevices);
    os << "\n";
  }
}
