//===- ExactnessTest.cpp - GPU kernel arithmetic, run on the CPU ----------===//
//
// Every function called here was produced by the qmat-host-dequant pipeline
// from a qmat.dequantize: the same per-thread arithmetic and the same decode
// rewrites (byte lookup, magic bias, plain arithmetic) the GPU kernels
// contain, with byte_perm lowered to integer arithmetic. Each is compared
// bit for bit with lib/Reference over every packed byte value against every
// scale byte (fp4), every e4m3 byte (fp8) and every zero point (int4).
//
// Variants named `..._amdgcn` went through the AMD lowering instead
// (target host-amdgcn): byte_perm's prmt selectors translated for
// v_perm_b32, and v_perm_b32 emulated in integer arithmetic. The byte_perm
// probes below check that translation against prmt over every selector.
//
//===----------------------------------------------------------------------===//

#include "qmat/Dialect/QMat/IR/PreparedWeights.h"
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

// byte_perm with its selector unknown, masked with 0x7777 (no sign
// requests) and OR-ed with 0x1111 (signs of odd bytes only), each through
// both host models; and two code bytes decoded to fp32 by byte lookup.
#define QMAT_PROBES(model)                                                     \
  extern "C" uint32_t byte_perm_general_##model(uint32_t, uint32_t, uint32_t); \
  extern "C" uint32_t byte_perm_copy_##model(uint32_t, uint32_t, uint32_t);    \
  extern "C" uint32_t byte_perm_direct_##model(uint32_t, uint32_t, uint32_t);  \
  extern "C" void _mlir_ciface_e2m1_f32_lookup_##model(uint8_t, uint8_t,       \
                                                       void *);
QMAT_PROBES(host)
QMAT_PROBES(amdgcn)
#undef QMAT_PROBES

namespace {

struct Variant {
  const char *name;
  int arity;
  Scheme scheme;
  ActType act;
  int64_t k, blockSize;
  bool zeroPoints;
  /// The codes go in in the prepared layout.
  bool prepared;
  void *function;
};

void PrintTo(const Variant &v, std::ostream *os) { *os << v.name; }

#define QMAT_VARIANT(name, arity, scheme, act, k, bs, zp, prepared)            \
  {#name,        arity,    Scheme::scheme,                                     \
   ActType::act, k,        bs,                                                 \
   zp,           prepared, reinterpret_cast<void *>(&_mlir_ciface_##name)},
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
  // Prepared codes differ per row as well, so that reading another row's
  // bytes shows.
  w.codes.resize(rows * codeCols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < codeCols; ++j)
      w.codes[r * codeCols + j] =
          static_cast<uint8_t>(j + (v.prepared ? 7 * r : 0));
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
    if (v.prepared)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < codeCols; ++j)
          codes[mlir::qmat::getPreparedCodeOffset(r, j, v.k)] =
              w.codes[r * codeCols + j];
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

/// PTX prmt.b32 in its default mode, written from PTX's definition.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t pool = (uint64_t(b) << 32) | a;
  uint32_t result = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t nibble = (c >> (4 * i)) & 15;
    uint32_t byte = (pool >> (8 * (nibble & 7))) & 0xFF;
    if (nibble & 8)
      byte = (byte & 0x80) ? 0xFF : 0x00;
    result |= byte << (8 * i);
  }
  return result;
}

using BytePermFn = uint32_t (*)(uint32_t, uint32_t, uint32_t);

/// Every 16-bit selector, on operands whose eight bytes all differ and
/// whose signs differ between even and odd bytes (and then all flipped), so
/// that a wrong byte or a wrong sign shows.
void checkEverySelector(const char *name, BytePermFn fn, uint32_t force) {
  const uint32_t operands[][2] = {{0x8A7B9C0Du, 0xF1E25364u},
                                  {0x0AFB1C8Du, 0x71626BE4u},
                                  {0x00FF80FFu, 0x7F01FE80u}};
  int64_t mismatches = 0;
  for (auto [lo, hi] : operands)
    for (uint32_t selector = 0; selector < 0x10000; ++selector) {
      uint32_t applied = force == 0x7777 ? (selector & force)
                         : force         ? (selector | force)
                                         : selector;
      // The high 16 bits are ignored: set them to catch a lowering that
      // reads them.
      uint32_t got = fn(lo, hi, selector | 0xA5C30000u);
      uint32_t want = prmt(lo, hi, applied);
      if (got != want && mismatches++ < 5)
        ADD_FAILURE() << name << " selector 0x" << std::hex << applied
                      << " on 0x" << lo << ", 0x" << hi << ": got 0x" << got
                      << " want 0x" << want;
    }
  EXPECT_EQ(mismatches, 0) << name;
}

TEST(BytePermExactness, HostModelIsPrmt) {
  checkEverySelector("byte_perm_general_host", byte_perm_general_host, 0);
  checkEverySelector("byte_perm_copy_host", byte_perm_copy_host, 0x7777);
  checkEverySelector("byte_perm_direct_host", byte_perm_direct_host, 0x1111);
}

// The three v_perm_b32 translations (lib/Target/ROCDL/BytePermToPerm.cpp).
TEST(BytePermExactness, AMDGCNTranslationIsPrmt) {
  checkEverySelector("byte_perm_general_amdgcn", byte_perm_general_amdgcn, 0);
  checkEverySelector("byte_perm_copy_amdgcn", byte_perm_copy_amdgcn, 0x7777);
  checkEverySelector("byte_perm_direct_amdgcn", byte_perm_direct_amdgcn,
                     0x1111);
}

using DecodeF32Fn = void (*)(uint8_t, uint8_t, void *);

void checkE2M1F32(const char *name, DecodeF32Fn fn) {
  struct Memref1D {
    void *allocated;
    void *aligned;
    int64_t offset;
    int64_t sizes[1];
    int64_t strides[1];
  };
  int64_t mismatches = 0;
  for (int a = 0; a < 256; ++a)
    for (int b = 0; b < 256; ++b) {
      float out[4] = {1.0f, 1.0f, 1.0f, 1.0f};
      Memref1D view = {out, out, 0, {4}, {1}};
      fn(uint8_t(a), uint8_t(b), &view);
      const uint8_t codes[4] = {uint8_t(a & 15), uint8_t(a >> 4),
                                uint8_t(b & 15), uint8_t(b >> 4)};
      for (int j = 0; j < 4; ++j) {
        float want = decodeE2M1(codes[j]);
        if (std::memcmp(&out[j], &want, 4) != 0 && mismatches++ < 5)
          ADD_FAILURE() << name << " code " << int(codes[j]) << ": got "
                        << out[j] << " want " << want;
      }
    }
  EXPECT_EQ(mismatches, 0) << name;
}

TEST(E2M1F32LookupExactness, BothHostModels) {
  checkE2M1F32("e2m1_f32_lookup_host", _mlir_ciface_e2m1_f32_lookup_host);
  checkE2M1F32("e2m1_f32_lookup_amdgcn", _mlir_ciface_e2m1_f32_lookup_amdgcn);
}

// Every lookup variant also exists in its AMD build.
TEST(HostExactnessCoverage, EveryLookupHasAnAMDGCNBuild) {
  int64_t lookups = 0, amdgcn = 0;
  for (const Variant &v : kVariants) {
    std::string name = v.name;
    // The prepared variants test addressing, not the decode.
    if (name.find("_lookup_") == std::string::npos || v.prepared)
      continue;
    bool isAMD = name.size() > 7 && name.substr(name.size() - 7) == "_amdgcn";
    (isAMD ? amdgcn : lookups) += 1;
  }
  EXPECT_GT(lookups, 0);
  EXPECT_EQ(lookups, amdgcn);
}

} // namespace
