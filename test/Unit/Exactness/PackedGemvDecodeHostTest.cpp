//===- PackedGemvDecodeHostTest.cpp - The GEMV's decodes, run on the CPU --===//
//
// Every function called here is the packed decode the tensor-core GEMV and
// fused GEMM kernels contain (qmat.decode_tile expanded by
// qmat-expand-decode-tile), compiled for the host by
// PackedGemvDecodeProbes.cpp. Each runs over every code against every
// scale byte (fp4), every f16 / bf16 scale and every zero point (int4), and
// its pairs are compared bit for bit with lib/Reference:
// - nvfp4: e2m1 x scale x 2^-7 exactly (the kernels apply 2^7 and the
//   global scale to the fp32 sums);
// - mxfp4: the reference's rne(e2m1 x 2^(e - 127)), through the two-step
//   products for every scale byte and through the one-multiply arm for the
//   bytes of its range (the arm a warp takes when all of its step's bytes
//   are there);
// - int4: the reference's rne((q - zp) x scale), zp = 8 without zero points.
// The host model takes the generic conversions where a GPU has its own
// instruction (e4m3 pairs to f16 pairs), both exact.
//
//===----------------------------------------------------------------------===//

#include "qmat/Conversion/QMatToGPU/PackedFp4Placement.h"
#include "qmat/Reference/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace qmat::ref;

namespace {

/// The C interface of a memref<NxT>.
struct Memref1D {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};

template <typename T> Memref1D view(std::vector<T> &data) {
  return {data.data(), data.data(), 0, int64_t(data.size()), 1};
}

using ProbeFn = void (*)(Memref1D *, Memref1D *, Memref1D *, Memref1D *);

/// The decoded element k (0..31) of a call: pair 4w + j holds elements
/// 8w + j (low half) and 8w + j + 4 (high half).
uint16_t elementOf(const std::vector<uint16_t> &pairs, int k) {
  int w = k / 8, e = k % 8, j = e % 4;
  return pairs[2 * (4 * w + j) + e / 4];
}

/// Runs `probe` on 16 code bytes, four scale elements (as bits) and four
/// zero-point bytes; returns the 32 decoded elements in K order.
template <typename ScaleBits>
std::vector<uint16_t> run(ProbeFn probe, const std::vector<uint8_t> &codeBytes,
                          std::vector<ScaleBits> scales,
                          std::vector<uint8_t> zeroPoints = {0, 0, 0, 0}) {
  std::vector<uint8_t> codes = codeBytes;
  std::vector<uint16_t> pairs(32, 0xDEAD);
  Memref1D c = view(codes), s = view(scales), z = view(zeroPoints),
           p = view(pairs);
  probe(&c, &s, &z, &p);
  std::vector<uint16_t> elements(32);
  for (int k = 0; k < 32; ++k)
    elements[k] = elementOf(pairs, k);
  return elements;
}

/// Element k's code is k % 16: every code twice, each word (8 elements)
/// eight distinct codes.
std::vector<uint8_t> everyCode() {
  std::vector<uint8_t> bytes(16);
  for (int i = 0; i < 16; ++i)
    bytes[i] = uint8_t((2 * i) % 16 | ((2 * i + 1) % 16) << 4);
  return bytes;
}

bool sameWeight(ActType act, uint16_t got, uint16_t want) {
  return got == want || (std::isnan(actBitsToFloat(act, got)) &&
                         std::isnan(actBitsToFloat(act, want)));
}

} // namespace

#define QMAT_PROBE(name)                                                       \
  extern "C" void _mlir_ciface_##name(Memref1D *, Memref1D *, Memref1D *,      \
                                      Memref1D *);
QMAT_PROBE(packed_decode_nvfp4_f16)
QMAT_PROBE(packed_decode_nvfp4_bf16)
QMAT_PROBE(packed_decode_mxfp4_f16)
QMAT_PROBE(packed_decode_mxfp4_bf16)
QMAT_PROBE(packed_decode_mxfp4_f16_one)
QMAT_PROBE(packed_decode_mxfp4_bf16_one)
QMAT_PROBE(packed_decode_int4_f16)
QMAT_PROBE(packed_decode_int4_bf16)
QMAT_PROBE(packed_decode_int4_f16_zp)
QMAT_PROBE(packed_decode_int4_bf16_zp)
QMAT_PROBE(packed_decode_nvfp4_f16_pairs)
QMAT_PROBE(packed_decode_nvfp4_bf16_pairs)
QMAT_PROBE(packed_decode_mxfp4_f16_pairs)
QMAT_PROBE(packed_decode_mxfp4_bf16_pairs)
QMAT_PROBE(packed_decode_int4_f16_zp_pairs)
QMAT_PROBE(packed_decode_int4_bf16_zp_pairs)
#undef QMAT_PROBE

namespace {

struct ActProbe {
  ActType act;
  ProbeFn probe;
};

TEST(PackedGemvDecodeHost, Nvfp4IsCodeTimesScaleTimes2ToMinus7) {
  for (auto [act, probe] :
       {ActProbe{ActType::F16, _mlir_ciface_packed_decode_nvfp4_f16},
        ActProbe{ActType::BF16, _mlir_ciface_packed_decode_nvfp4_bf16}}) {
    for (int scale = 0; scale < 256; ++scale) {
      if ((scale & 0x7F) == 0x7F)
        continue; // NaN scale: the fp32 sum carries it, not the pair
      std::vector<uint16_t> got =
          run(probe, everyCode(), std::vector<uint8_t>(4, uint8_t(scale)));
      double s = decodeE4M3FN(uint8_t(scale));
      for (int k = 0; k < 32; ++k)
        ASSERT_EQ(double(actBitsToFloat(act, got[k])),
                  double(decodeE2M1(uint8_t(k % 16))) * s / 128.0)
            << "act " << int(act) << " code " << k % 16 << " scale " << scale;
    }
  }
}

/// Every code under every e8m0 byte of [0, lastE] (four different bytes per
/// call, one per word) against rne(e2m1 x 2^(e - 127)).
void checkMxfp4(ActType act, ProbeFn probe, int lastE) {
  for (int first = 0; first <= lastE; first += 4) {
    std::vector<uint8_t> bytes(4);
    for (int w = 0; w < 4; ++w)
      bytes[w] = uint8_t(std::min(first + w, lastE));
    std::vector<uint16_t> got = run(probe, everyCode(), bytes);
    for (int k = 0; k < 32; ++k) {
      uint8_t e = bytes[k / 8];
      uint16_t want =
          roundToAct(act, decodeE2M1(uint8_t(k % 16)) * decodeE8M0(e));
      ASSERT_TRUE(sameWeight(act, got[k], want))
          << "act " << int(act) << " code " << k % 16 << " e " << int(e)
          << ": 0x" << std::hex << got[k] << " want 0x" << want;
    }
  }
}

TEST(PackedGemvDecodeHost, Mxfp4IsTheReferenceWeightForEveryScale) {
  checkMxfp4(ActType::F16, _mlir_ciface_packed_decode_mxfp4_f16, 255);
  checkMxfp4(ActType::BF16, _mlir_ciface_packed_decode_mxfp4_bf16, 255);
}

TEST(PackedGemvDecodeHost, Mxfp4OneMultiplyIsTheReferenceWeightInItsRange) {
  for (auto [act, probe] :
       {ActProbe{ActType::F16, _mlir_ciface_packed_decode_mxfp4_f16_one},
        ActProbe{ActType::BF16, _mlir_ciface_packed_decode_mxfp4_bf16_one}}) {
    int maxE = mlir::qmat::getMxfp4OneMultiply(act == ActType::F16).maxE;
    ASSERT_GT(maxE, 127);
    checkMxfp4(act, probe, maxE);
  }
}

/// Every q under every act-typed scale and every zero point (8 without
/// zero points) against rne((q - zp) x scale).
void checkInt4(ActType act, ProbeFn probe, bool zeroPoints) {
  int64_t wrong = 0;
  for (int zp = 0; zp < (zeroPoints ? 16 : 1); ++zp) {
    // Words 0 and 2 take the low nibble of their byte, 1 and 3 the high.
    std::vector<uint8_t> zeroPointBytes(4, uint8_t(zp | zp << 4));
    int effective = zeroPoints ? zp : 8;
    for (int scale = 0; scale < 65536; scale += 4) {
      std::vector<uint16_t> scales = {uint16_t(scale), uint16_t(scale + 1),
                                      uint16_t(scale + 2), uint16_t(scale + 3)};
      std::vector<uint16_t> got =
          run(probe, everyCode(), scales, zeroPointBytes);
      for (int k = 0; k < 32; ++k) {
        float s = actBitsToFloat(act, scales[k / 8]);
        uint16_t want = roundToAct(act, float(k % 16 - effective) * s);
        if (!sameWeight(act, got[k], want) && wrong++ < 5)
          ADD_FAILURE() << "act " << int(act) << " q " << k % 16 << " zp "
                        << effective << " scale 0x" << std::hex << scales[k / 8]
                        << ": 0x" << got[k] << " want 0x" << want;
      }
    }
  }
  EXPECT_EQ(wrong, 0);
}

TEST(PackedGemvDecodeHost, Int4IsTheReferenceWeightForEveryScale) {
  checkInt4(ActType::F16, _mlir_ciface_packed_decode_int4_f16, false);
  checkInt4(ActType::BF16, _mlir_ciface_packed_decode_int4_bf16, false);
}

TEST(PackedGemvDecodeHost, Int4ZeroPointsAreTheReferenceWeightForEveryScale) {
  checkInt4(ActType::F16, _mlir_ciface_packed_decode_int4_f16_zp, true);
  checkInt4(ActType::BF16, _mlir_ciface_packed_decode_int4_bf16_zp, true);
}

/// The pair that element k (0..31) is in: pair 4w + j holds elements
/// 8w + j and 8w + j + 4.
int pairOf(int k) { return 4 * (k / 8) + k % 4; }

/// One scale per pair (the warpgroup form): every code under every scale
/// byte, sixteen different bytes per call, each element against the
/// reference with its own pair's byte.
TEST(PackedGemvDecodeHost, Fp4PairsTakeTheirOwnScale) {
  struct Fp4Probe {
    ActType act;
    ProbeFn probe;
    bool nvfp4;
  };
  for (auto [act, probe, nvfp4] :
       {Fp4Probe{ActType::F16, _mlir_ciface_packed_decode_nvfp4_f16_pairs,
                 true},
        Fp4Probe{ActType::BF16, _mlir_ciface_packed_decode_nvfp4_bf16_pairs,
                 true},
        Fp4Probe{ActType::F16, _mlir_ciface_packed_decode_mxfp4_f16_pairs,
                 false},
        Fp4Probe{ActType::BF16, _mlir_ciface_packed_decode_mxfp4_bf16_pairs,
                 false}}) {
    for (int first = 0; first < 256; first += 16) {
      std::vector<uint8_t> bytes(16);
      for (int p = 0; p < 16; ++p) {
        bytes[p] = uint8_t(first + p);
        // An nvfp4 NaN scale reaches the fp32 sums, not the pairs.
        if (nvfp4 && (bytes[p] & 0x7F) == 0x7F)
          bytes[p] = 0x38;
      }
      std::vector<uint16_t> got =
          run(probe, everyCode(), bytes, std::vector<uint8_t>(16, 0));
      for (int k = 0; k < 32; ++k) {
        uint8_t scale = bytes[pairOf(k)];
        float code = decodeE2M1(uint8_t(k % 16));
        uint16_t want =
            nvfp4 ? roundToAct(
                        act, float(double(code) * decodeE4M3FN(scale) / 128.0))
                  : roundToAct(act, code * decodeE8M0(scale));
        ASSERT_TRUE(sameWeight(act, got[k], want))
            << "act " << int(act) << (nvfp4 ? " nvfp4" : " mxfp4") << " code "
            << k % 16 << " scale " << int(scale) << ": 0x" << std::hex << got[k]
            << " want 0x" << want;
      }
    }
  }
}

/// int4 with one scale and zero point per pair: sixteen different scales
/// and zero points per call, pair p's nibble p % 2 of its byte.
TEST(PackedGemvDecodeHost, Int4PairsTakeTheirOwnScaleAndZeroPoint) {
  for (auto [act, probe] :
       {ActProbe{ActType::F16, _mlir_ciface_packed_decode_int4_f16_zp_pairs},
        ActProbe{ActType::BF16,
                 _mlir_ciface_packed_decode_int4_bf16_zp_pairs}}) {
    for (int call = 0; call < 64; ++call) {
      std::vector<uint16_t> scales(16);
      std::vector<uint8_t> zeroPoints(16);
      for (int p = 0; p < 16; ++p) {
        // Scales of both signs over the exponent range, zero points 0..15
        // in either nibble.
        scales[p] = uint16_t((call * 16 + p) * 64 + 7);
        int zp = (call + 3 * p) % 16;
        zeroPoints[p] =
            uint8_t(p % 2 ? zp << 4 | (15 - zp) : (15 - zp) << 4 | zp);
      }
      std::vector<uint16_t> got = run(probe, everyCode(), scales, zeroPoints);
      for (int k = 0; k < 32; ++k) {
        int p = pairOf(k);
        int zp = (zeroPoints[p] >> (4 * (p % 2))) & 0xF;
        float s = actBitsToFloat(act, scales[p]);
        uint16_t want = roundToAct(act, float(k % 16 - zp) * s);
        ASSERT_TRUE(sameWeight(act, got[k], want))
            << "act " << int(act) << " q " << k % 16 << " zp " << zp
            << " scale 0x" << std::hex << scales[p] << ": 0x" << got[k]
            << " want 0x" << want;
      }
    }
  }
}

} // namespace
