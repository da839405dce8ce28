//===- ExactnessTest.cpp - GPU kernel arithmetic, run on the CPU ----------===//
//
// Every function called here was produced by the qmat-host-dequant pipeline
// from a qmat.dequantize: the same per-thread arithmetic and the same decode
// rewrites (byte lookup, magic bias, plain arithmetic) the GPU kernels
// contain, with byte_perm lowered to integer arithmetic. Each is compared
// bit for bit with lib/Reference over every packed byte value against every
// scale byte (fp4), every e4m3 byte (fp8) and every zero point (int4).
//
//===----------------------------------------------------------------------===//

#include "qmat/Reference/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace qmat::ref;

namespace {

/// The C interface of a memref<?xNxT> (MLIR's strided memref descriptor).
struct Memref2D {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};
struct Memref0D {
  void *allocated;
  void *aligned;
  int64_t offset;
};

template <typename T>
Memref2D view(std::vector<T> &data, int64_t rows, int64_t cols) {
  return {data.data(), data.data(), 0, {rows, cols}, {cols, 1}};
}

} // namespace

#define QMAT_VARIANT(name, arity, ...)                                         \
  extern "C" void _mlir_ciface_##name(QMAT_ARGS_##arity);
#define QMAT_ARGS_3 void *, void *, void *
#define QMAT_ARGS_4 void *, void *, void *, void *
#include "ExactnessVariants.inc"
#undef QMAT_VARIANT

namespace {

struct Variant {
  const char *name;
  int arity;
  Scheme scheme;
  ActType act;
  int64_t k, blockSize;
  bool zeroPoints;
  void *function;
};

void PrintTo(const Variant &v, std::ostream *os) { *os << v.name; }

#define QMAT_VARIANT(name, arity, scheme, act, k, bs, zp)                      \
  {#name,                                                                      \
   arity,                                                                      \
   Scheme::scheme,                                                             \
   ActType::act,                                                               \
   k,                                                                          \
   bs,                                                                         \
   zp,                                                                         \
   reinterpret_cast<void *>(&_mlir_ciface_##name)},
const Variant kVariants[] = {
#include "ExactnessVariants.inc"
};
#undef QMAT_VARIANT

float bitsFloat(uint32_t u) { return bitsToFloat(u); }

/// fp32 scales that exercise every corner of the fp8 product: zeros,
/// subnormals, overflow towards inf, inf and NaN, then random magnitudes.
std::vector<float> fp8ScaleTable(std::mt19937 &rng) {
  std::vector<float> t = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          0.5f,
                          448.0f,
                          1e-3f,
                          bitsFloat(1),
                          bitsFloat(0x007FFFFF),
                          1e-40f,
                          std::numeric_limits<float>::max(),
                          1e36f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          146.28f,
                          2.0e-8f,
                          6.1e-5f};
  std::uniform_int_distribution<int> exp(-40, 40);
  std::uniform_real_distribution<float> mant(-2.0f, 2.0f);
  while (t.size() < 256)
    t.push_back(std::ldexp(mant(rng), exp(rng)));
  return t;
}

/// Activation-type scale bit patterns for int4: every class of value.
std::vector<uint16_t> actScaleTable(ActType act, std::mt19937 &rng) {
  std::vector<uint16_t> t;
  if (act == ActType::F16)
    t = {0x0000, 0x8000, 0x3C00, 0xBC00, 0x0001, 0x03FF,
         0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x2E66, 0x1400};
  else
    t = {0x0000, 0x8000, 0x3F80, 0xBF80, 0x0001, 0x007F,
         0x7F7F, 0x7F80, 0xFF80, 0x7FC0, 0x3C23, 0x0080};
  std::uniform_int_distribution<int> bits(0, 0xFFFF);
  while (t.size() < 256) {
    uint16_t b = static_cast<uint16_t>(bits(rng));
    // Mostly finite values: the classes above already cover the rest.
    if (act == ActType::F16 && (b & 0x7C00) == 0x7C00)
      continue;
    if (act == ActType::BF16 && (b & 0x7F80) == 0x7F80)
      continue;
    t.push_back(b);
  }
  return t;
}

class HostExactness : public ::testing::TestWithParam<Variant> {};

TEST_P(HostExactness, MatchesReferenceBitForBit) {
  const Variant &v = GetParam();
  std::mt19937 rng(0x9E3779B9u ^
                   static_cast<uint32_t>(v.k * 131 + v.blockSize));
  const int64_t rows = 256;
  QuantizedWeight w;
  w.scheme = v.scheme;
  w.act = v.act;
  w.n = rows;
  w.k = v.k;
  w.blockSize = v.blockSize;
  const int64_t blocks = w.numScaleBlocks();
  const bool packed = v.scheme != Scheme::FP8;
  const int64_t codeCols = packed ? v.k / 2 : v.k;

  // Byte j of every row is j mod 256 and the scale of (row, block) is
  // (row + block) mod 256: as the row runs over 256 values, every code
  // byte meets every scale byte.
  w.codes.resize(rows * codeCols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < codeCols; ++j)
      w.codes[r * codeCols + j] = static_cast<uint8_t>(j);
  std::vector<float> fp8Scales = fp8ScaleTable(rng);
  std::vector<uint16_t> actScales = actScaleTable(v.act, rng);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < blocks; ++b) {
      uint8_t index = static_cast<uint8_t>(r + b);
      w.scaleBytes.push_back(index);
      w.scaleF32.push_back(fp8Scales[index]);
      w.scaleAct.push_back(actScales[index]);
    }
  if (v.scheme != Scheme::NVFP4 && v.scheme != Scheme::MXFP4)
    w.scaleBytes.clear();
  if (v.scheme != Scheme::FP8)
    w.scaleF32.clear();
  if (v.scheme != Scheme::INT4)
    w.scaleAct.clear();
  const int64_t zpCols = (blocks + 1) / 2;
  if (v.zeroPoints)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < zpCols; ++c)
        w.zeroPoints.push_back(static_cast<uint8_t>(r * 7 + c * 13));
  ASSERT_EQ(validate(w), "");

  std::vector<float> globals = {1.0f};
  if (v.scheme == Scheme::NVFP4)
    globals = {1.0f,    0.5f,   0.0078125f,
               3.3e-5f, 1.7f,   -2.25f,
               1e30f,   1e-30f, std::numeric_limits<float>::quiet_NaN()};

  for (float global : globals) {
    w.globalScale = global;
    std::vector<uint16_t> expected = dequantize(w);
    // Poison: any element the kernel forgets to write is a mismatch.
    std::vector<uint16_t> out(rows * v.k, 0xAAAA);
    std::vector<uint8_t> codes = w.codes;
    std::vector<uint8_t> scaleBytes = w.scaleBytes;
    std::vector<float> scaleF32 = w.scaleF32;
    std::vector<uint16_t> scaleAct = w.scaleAct;
    std::vector<uint8_t> zp = w.zeroPoints;
    float globalCopy = global;
    Memref2D mw = view(codes, rows, codeCols);
    Memref2D ms = v.scheme == Scheme::FP8    ? view(scaleF32, rows, blocks)
                  : v.scheme == Scheme::INT4 ? view(scaleAct, rows, blocks)
                                             : view(scaleBytes, rows, blocks);
    Memref0D mg = {&globalCopy, &globalCopy, 0};
    Memref2D mz = view(zp, rows, zpCols);
    Memref2D mo = view(out, rows, v.k);
    switch (v.arity) {
    case 3:
      reinterpret_cast<void (*)(QMAT_ARGS_3)>(v.function)(&mw, &ms, &mo);
      break;
    case 4:
      if (v.scheme == Scheme::NVFP4)
        reinterpret_cast<void (*)(QMAT_ARGS_4)>(v.function)(&mw, &ms, &mg, &mo);
      else
        reinterpret_cast<void (*)(QMAT_ARGS_4)>(v.function)(&mw, &ms, &mz, &mo);
      break;
    default:
      FAIL() << "unexpected arity " << v.arity;
    }
    int64_t mismatches = 0;
    for (int64_t i = 0; i < rows * v.k; ++i) {
      if (out[i] == expected[i])
        continue;
      if (mismatches++ < 5) {
        int64_t r = i / v.k, c = i % v.k;
        ADD_FAILURE() << v.name << " global=" << global << " row " << r
                      << " col " << c << ": got 0x" << std::hex << out[i]
                      << " want 0x" << expected[i] << std::dec << " (code "
                      << int(codeAt(w, r, c)) << ")";
      }
    }
    EXPECT_EQ(mismatches, 0) << v.name << " global=" << global;
  }
}

std::string variantName(const ::testing::TestParamInfo<Variant> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(AllKernels, HostExactness,
                         ::testing::ValuesIn(kVariants), variantName);

// The byte lookup, the magic bias and plain arithmetic are three different
// sequences: the table above must hold each of them for each fp4 scheme,
// or a rewrite would go unproven.
TEST(HostExactnessCoverage, EveryRewriteIsExercised) {
  for (const char *needle :
       {"nvfp4_k512_bs16_vec8_lookup", "nvfp4_k512_bs16_vec8_magic_bias",
        "mxfp4_k512_bs32_vec8_magic_bias", "int4_k512_bs32_vec8_magic_bias",
        "nvfp4_k510_bs17_scalar_lookup", "fp8_k255_bs128_scalar"}) {
    bool found = false;
    for (const Variant &v : kVariants)
      found |= std::string(v.name).find(needle) != std::string::npos;
    EXPECT_TRUE(found) << needle;
  }
}

} // namespace
