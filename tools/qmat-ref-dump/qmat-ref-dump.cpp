//===- qmat-ref-dump.cpp - Print reference decoder and rounding tables ----===//
//
// Emits the reference numerics as plain text so that an independent
// implementation (test/Reference/crosscheck_ml_dtypes.py, using ml_dtypes and
// numpy) can compare them bit for bit. Output is deterministic and stable:
// lit tests match it line by line.
//
// Built without exceptions (LLVM tool flags), so all parsing is by hand.
//
//===----------------------------------------------------------------------===//

#include "qmat/Reference/Numerics.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace qmat::ref;

namespace {

const char *const kUsage =
    "usage: qmat-ref-dump e2m1|e4m3|e8m0\n"
    "       qmat-ref-dump f16-round|bf16-round   (fp32 hex bits on stdin, "
    "one per line)\n"
    "       qmat-ref-dump dequant nvfp4|mxfp4|fp8|int4 f16|bf16 "
    "[global-scale]\n";

int fail(const std::string &message) {
  std::fprintf(stderr, "qmat-ref-dump: error: %s\n%s", message.c_str(), kUsage);
  return 1;
}

uint32_t bitsOf(float f) { return floatToBits(f); }
float floatOf(uint32_t u) { return bitsToFloat(u); }

void printDecodeLine(unsigned code, float value) {
  // libcs disagree on how a signed NaN prints; the bits already carry it.
  if (std::isnan(value)) {
    std::printf("0x%02X 0x%08X nan\n", code, unsigned(bitsOf(value)));
    return;
  }
  std::printf("0x%02X 0x%08X %.9g\n", code, unsigned(bitsOf(value)),
              double(value));
}

int dumpTable(float (*decode)(uint8_t), unsigned count) {
  for (unsigned c = 0; c < count; ++c)
    printDecodeLine(c, decode(uint8_t(c)));
  return 0;
}

/// Accepts 1-8 hex digits with an optional 0x prefix and surrounding blanks.
bool parseHex32(const char *text, uint32_t &out) {
  while (*text == ' ' || *text == '\t')
    ++text;
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text += 2;
  uint32_t value = 0;
  int digits = 0;
  for (; *text; ++text) {
    char c = *text;
    unsigned d;
    if (c >= '0' && c <= '9')
      d = unsigned(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = unsigned(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = unsigned(c - 'A' + 10);
    else
      break;
    if (++digits > 8)
      return false;
    value = (value << 4) | d;
  }
  while (*text == ' ' || *text == '\t' || *text == '\r' || *text == '\n')
    ++text;
  if (digits == 0 || *text != '\0')
    return false;
  out = value;
  return true;
}

int roundStdin(ActType act) {
  std::string line;
  long lineNo = 0;
  int ch;
  bool more = true;
  while (more) {
    line.clear();
    while ((ch = std::getchar()) != EOF && ch != '\n')
      line.push_back(char(ch));
    more = ch != EOF;
    ++lineNo;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    uint32_t bits;
    if (!parseHex32(line.c_str(), bits))
      return fail("line " + std::to_string(lineNo) +
                  ": expected an fp32 bit pattern in hex, got '" + line + "'");
    std::printf("0x%08X 0x%04X\n", unsigned(bits),
                unsigned(roundToAct(act, floatOf(bits))));
  }
  return 0;
}

void printRow(const std::vector<uint16_t> &d, int64_t row, int64_t k) {
  for (int64_t c = 0; c < k; ++c)
    std::printf(" %04X", unsigned(d[size_t(row * k + c)]));
  std::printf("\n");
}

/// nvfp4/mxfp4: row r uses scale byte r; columns 2b and 2b+1 are the low and
/// high nibble of packed byte b, so every (packed byte, scale byte) pair
/// appears exactly once.
int dumpFp4(Scheme scheme, ActType act, float global) {
  QuantizedWeight w;
  w.scheme = scheme;
  w.act = act;
  w.n = 256;
  w.k = 512;
  w.blockSize = 512;
  w.globalScale = global;
  for (int r = 0; r < 256; ++r) {
    w.scaleBytes.push_back(uint8_t(r));
    for (int b = 0; b < 256; ++b)
      w.codes.push_back(uint8_t(b));
  }
  std::vector<uint16_t> d = dequantize(w);
  for (int64_t r = 0; r < w.n; ++r) {
    std::printf("s=0x%02X:", unsigned(r));
    printRow(d, r, w.k);
  }
  return 0;
}

/// fp8: every e4m3 byte (column = byte) against a fixed set of fp32 scales
/// chosen to reach fp16/bf16 subnormals, overflow, signed zero, inf and NaN.
int dumpFp8(ActType act) {
  static const uint32_t kScales[] = {
      0x3F800000, // 1
      0x3F000000, // 0.5
      0x40000000, // 2
      0x3EAAAAAB, // 1/3 (inexact products)
      0x3DCCCCCD, // 0.1
      0x3B124925, // ~1/448
      0x35800000, // 2^-20 (fp16 subnormals)
      0x30800000, // 2^-30 (fp16 underflow)
      0x43120000, // 146: 448 * 146 still fits fp16
      0x43130000, // 147: 448 * 147 overflows fp16
      0x7149F2CA, // 1e30 (fp32 overflow)
      0x00000001, // smallest fp32 subnormal
      0xBF800000, // -1
      0x80000000, // -0
      0x00000000, // +0
      0x7F800000, // inf (0 * inf is NaN)
      0x7FC00000, // NaN
  };
  const size_t count = sizeof(kScales) / sizeof(kScales[0]);
  QuantizedWeight w;
  w.scheme = Scheme::FP8;
  w.act = act;
  w.n = int64_t(count);
  w.k = 256;
  w.blockSize = 256;
  for (size_t r = 0; r < count; ++r) {
    w.scaleF32.push_back(floatOf(kScales[r]));
    for (int b = 0; b < 256; ++b)
      w.codes.push_back(uint8_t(b));
  }
  std::vector<uint16_t> d = dequantize(w);
  for (size_t r = 0; r < count; ++r) {
    std::printf("s=0x%08X:", unsigned(kScales[r]));
    printRow(d, int64_t(r), w.k);
  }
  return 0;
}

/// int4: columns are q = 0..15; rows are every explicit zero point 0..15 and
/// then the default (no zero-point buffer), each against a set of scales.
int dumpInt4(ActType act) {
  static const uint16_t kF16Scales[] = {0x3C00, 0x3800, 0x3555, 0x2E66,
                                        0x0001, 0x03FF, 0x5140, 0x7BFF,
                                        0x8000, 0xBC00, 0x7C00, 0x7E00};
  static const uint16_t kBF16Scales[] = {0x3F80, 0x3F00, 0x3EAB, 0x3DCD,
                                         0x0001, 0x007F, 0x4228, 0x7F7F,
                                         0x8000, 0xBF80, 0x7F80, 0x7FC0};
  const uint16_t *scales = act == ActType::F16 ? kF16Scales : kBF16Scales;
  const size_t numScales = sizeof(kF16Scales) / sizeof(kF16Scales[0]);

  for (int variant = 0; variant <= 16; ++variant) {
    bool defaultZp = variant == 16;
    QuantizedWeight w;
    w.scheme = Scheme::INT4;
    w.act = act;
    w.n = int64_t(numScales);
    w.k = 16;
    w.blockSize = 16;
    for (size_t r = 0; r < numScales; ++r) {
      w.scaleAct.push_back(scales[r]);
      for (int q = 0; q < 16; q += 2)
        w.codes.push_back(uint8_t(q | ((q + 1) << 4)));
      if (!defaultZp)
        w.zeroPoints.push_back(uint8_t(variant));
    }
    std::string err = validate(w);
    if (!err.empty())
      return fail("internal: " + err);
    std::vector<uint16_t> d = dequantize(w);
    for (size_t r = 0; r < numScales; ++r) {
      if (defaultZp)
        std::printf("zp=- s=0x%04X:", unsigned(scales[r]));
      else
        std::printf("zp=%X s=0x%04X:", unsigned(variant), unsigned(scales[r]));
      printRow(d, int64_t(r), w.k);
    }
  }
  return 0;
}

int dequantCommand(int argc, char **argv) {
  if (argc < 4)
    return fail("dequant needs a scheme and an activation type");
  std::string schemeName = argv[2], actName = argv[3];
  Scheme scheme;
  if (schemeName == "nvfp4")
    scheme = Scheme::NVFP4;
  else if (schemeName == "mxfp4")
    scheme = Scheme::MXFP4;
  else if (schemeName == "fp8")
    scheme = Scheme::FP8;
  else if (schemeName == "int4")
    scheme = Scheme::INT4;
  else
    return fail("unknown scheme '" + schemeName + "'");
  ActType act;
  if (actName == "f16")
    act = ActType::F16;
  else if (actName == "bf16")
    act = ActType::BF16;
  else
    return fail("unknown activation type '" + actName + "'");

  float global = 1.0f;
  if (argc > 5)
    return fail("too many arguments");
  if (argc == 5) {
    if (scheme != Scheme::NVFP4)
      return fail("a global scale is only meaningful for nvfp4");
    char *end = nullptr;
    global = std::strtof(argv[4], &end);
    if (end == argv[4] || *end != '\0')
      return fail(std::string("invalid global scale '") + argv[4] + "'");
  }

  std::printf("# dequant %s %s global=0x%08X\n", schemeName.c_str(),
              actName.c_str(), unsigned(bitsOf(global)));
  switch (scheme) {
  case Scheme::NVFP4:
  case Scheme::MXFP4:
    return dumpFp4(scheme, act, global);
  case Scheme::FP8:
    return dumpFp8(act);
  case Scheme::INT4:
    return dumpInt4(act);
  }
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return fail("missing subcommand");
  std::string cmd = argv[1];
  bool takesNoArgs = cmd == "e2m1" || cmd == "e4m3" || cmd == "e8m0" ||
                     cmd == "f16-round" || cmd == "bf16-round";
  if (takesNoArgs && argc != 2)
    return fail("'" + cmd + "' takes no arguments");
  if (cmd == "e2m1")
    return dumpTable(decodeE2M1, 16);
  if (cmd == "e4m3")
    return dumpTable(decodeE4M3FN, 256);
  if (cmd == "e8m0")
    return dumpTable(decodeE8M0, 256);
  if (cmd == "f16-round")
    return roundStdin(ActType::F16);
  if (cmd == "bf16-round")
    return roundStdin(ActType::BF16);
  if (cmd == "dequant")
    return dequantCommand(argc, argv);
  return fail("unknown subcommand '" + cmd + "'");
}
