//===- PackedGemvDecodeProbes.cpp - The GEMV's decodes, for the host ------===//
//
// Writes, as LLVM-dialect MLIR, one host function per packed GEMV decode
// (nvfp4, mxfp4 with both of its arms, int4 with and without zero points;
// f16 and bf16): a qmat.decode_tile of one row, as the tensor-core kernels
// take it, expanded by the same qmat-expand-decode-tile as theirs, then
// lowered by the qmat-host-dequant pipeline (bf16 arithmetic moved to fp32
// with one rounding back in between):
//
//   packed_decode_<scheme>_<act>[_zp][_one][_pairs](codes: memref<16xi8>,
//       scales: memref<4xS>, zero_points: memref<4xi8>,
//       pairs: memref<32xact>)
//
// Word w of the 16 code bytes takes scales[w] (scale block w) and, with
// zero points, the nibble w % 2 of zero_points[w]; pairs[2p], pairs[2p + 1]
// receive pair p. The `_pairs` probes (nvfp4, mxfp4, int4 with zero points:
// the warpgroup form's decode) take 16 scales and zero-point bytes instead,
// pair p's at p (block p). PackedGemvDecodeHostTest.cpp runs them over
// every code, scale and zero point against lib/Reference.
//
// Usage: qmat-packed-decode-probes OUT.mlir
//
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/Passes.h"
#include "qmat/InitAll.h"
#include "qmat/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::qmat;

namespace {

struct Probe {
  SchemeKind scheme;
  int64_t blockSize;
  bool f16, zeroPoints, oneMultiply;
  /// One scale (and zero-point byte and block) per pair, as the warpgroup
  /// form decodes, instead of one per word.
  bool perPair = false;

  std::string name() const {
    return ("packed_decode_" + stringifySchemeKind(scheme) +
            (f16 ? "_f16" : "_bf16") + (zeroPoints ? "_zp" : "") +
            (oneMultiply ? "_one" : "") + (perPair ? "_pairs" : ""))
        .str();
  }
  int64_t scalesPerRow() const { return perPair ? 16 : 4; }
};

void buildProbe(OpBuilder &b, const Probe &probe) {
  MLIRContext *ctx = b.getContext();
  Location loc = b.getUnknownLoc();
  Type act = probe.f16 ? Type(b.getF16Type()) : Type(b.getBF16Type());
  Type scale =
      probe.scheme == SchemeKind::nvfp4   ? Type(b.getType<Float8E4M3FNType>())
      : probe.scheme == SchemeKind::mxfp4 ? Type(b.getType<Float8E8M0FNUType>())
                                          : act;
  Type i8 = b.getI8Type();
  int64_t perRow = probe.scalesPerRow();
  SmallVector<Type> args = {
      MemRefType::get({16}, i8), MemRefType::get({perRow}, scale),
      MemRefType::get({perRow}, i8), MemRefType::get({32}, act)};
  auto func =
      func::FuncOp::create(b, loc, probe.name(), b.getFunctionType(args, {}));
  func->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  OpBuilder::InsertionGuard guard(b);
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);

  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value codes =
      vector::LoadOp::create(b, loc, VectorType::get({16}, i8),
                             body->getArgument(0), ValueRange{index(0)});
  SmallVector<Value> blocks, scales, zeroPoints;
  for (int64_t i = 0; i < perRow; ++i) {
    scales.push_back(memref::LoadOp::create(b, loc, body->getArgument(1),
                                            ValueRange{index(i)}));
    if (probe.zeroPoints) {
      blocks.push_back(index(i));
      zeroPoints.push_back(memref::LoadOp::create(b, loc, body->getArgument(2),
                                                  ValueRange{index(i)}));
    }
  }
  auto tile = DecodeTileOp::create(
      b, loc, VectorType::get({1, 16, 2}, act),
      SchemeAttr::get(ctx, probe.scheme, probe.blockSize), ValueRange{codes},
      scales, zeroPoints, blocks, /*word=*/IntegerAttr(), probe.oneMultiply);
  for (int64_t p = 0; p < 16; ++p)
    vector::StoreOp::create(
        b, loc,
        vector::ExtractOp::create(b, loc, tile, ArrayRef<int64_t>{0, p}),
        body->getArgument(3), ValueRange{index(2 * p)});
  func::ReturnOp::create(b, loc);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: qmat-packed-decode-probes OUT.mlir\n";
    return 2;
  }
  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  qmat::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  OpBuilder b(&context);
  b.setInsertionPointToEnd(module->getBody());
  for (bool f16 : {true, false}) {
    buildProbe(b, {SchemeKind::nvfp4, 16, f16, false, false});
    buildProbe(b, {SchemeKind::mxfp4, 32, f16, false, false});
    buildProbe(b, {SchemeKind::mxfp4, 32, f16, false, true});
    buildProbe(b, {SchemeKind::int4, 32, f16, false, false});
    buildProbe(b, {SchemeKind::int4, 32, f16, true, false});
    buildProbe(b, {SchemeKind::nvfp4, 16, f16, false, false, true});
    buildProbe(b, {SchemeKind::mxfp4, 32, f16, false, false, true});
    buildProbe(b, {SchemeKind::int4, 32, f16, true, false, true});
  }

  PassManager pm(&context);
  QMatExpandDecodeTileOptions tiles;
  tiles.target = "host";
  pm.addPass(createQMatExpandDecodeTile(tiles));
  // The host has no bf16 arithmetic: each bf16 operation in fp32, exact for
  // the decodes' products and differences of two bf16 values, then one
  // rounding to bf16 (the GPU's mul.rn.bf16x2 / sub.rn.bf16x2).
  arith::ArithEmulateUnsupportedFloatsOptions bf16InF32;
  bf16InF32.sourceTypeStrs = {"bf16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(bf16InF32));
  buildHostDequantPipeline(pm, HostPipelineOptions());
  if (failed(pm.run(*module)))
    return 1;
  std::error_code ec;
  llvm::raw_fd_ostream out(argv[1], ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << argv[1] << ": " << ec.message() << "\n";
    return 1;
  }
  module->print(out);
  return 0;
}
