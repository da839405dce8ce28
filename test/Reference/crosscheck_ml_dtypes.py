#!/usr/bin/env python3
"""Cross-check qmat's reference numerics against ml_dtypes and numpy.

Usage: crosscheck_ml_dtypes.py PATH/TO/qmat-ref-dump

The C++ reference (lib/Reference/Numerics.cpp) is written with integer bit
manipulation; this script recomputes every table it dumps with independent
implementations (ml_dtypes decoders, numpy float32 arithmetic, numpy's float16
and ml_dtypes' bfloat16 casts) and compares bits exactly. NaN is the one
permitted difference in representation: qmat must produce the canonical
0x7FFF, the other side merely some NaN.

Prints one summary line and exits nonzero on any mismatch.
"""

import subprocess
import sys

import ml_dtypes
import numpy as np

CANONICAL_NAN = 0x7FFF
MAX_REPORTED = 10

ACT_DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}
NVFP4_GLOBALS = ["1", "0.5", "0.3333333", "1e-6", "3e4"]


class Checker:
    def __init__(self, tool):
        self.tool = tool
        self.results = []  # (name, matched, total)
        self.failed = False

    def run(self, args, stdin=None):
        proc = subprocess.run(
            [self.tool] + args,
            input=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        if proc.returncode != 0:
            sys.stderr.write(
                "qmat-ref-dump %s failed (%d): %s"
                % (" ".join(args), proc.returncode, proc.stderr)
            )
            sys.exit(2)
        return proc.stdout

    def record(self, name, ok, describe):
        """ok: boolean array; describe(i) explains mismatch i."""
        ok = np.asarray(ok, dtype=bool).ravel()
        bad = np.flatnonzero(~ok)
        for i in bad[:MAX_REPORTED]:
            sys.stderr.write("mismatch [%s] %s\n" % (name, describe(int(i))))
        if bad.size:
            self.failed = True
        self.results.append((name, int(ok.size - bad.size), int(ok.size)))


def parse_table(text):
    """Lines 'CODE BITS VALUE' -> (codes, fp32 bits)."""
    codes, bits = [], []
    for line in text.splitlines():
        fields = line.split()
        codes.append(int(fields[0], 16))
        bits.append(int(fields[1], 16))
    return np.array(codes), np.array(bits, dtype=np.uint32)


def f32_of_bits(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def check_decoder(chk, name, subcommand, their_dtype, count):
    codes, ours = parse_table(chk.run([subcommand]))
    ours_ok_codes = np.array_equal(codes, np.arange(count))
    theirs = (
        np.arange(count, dtype=np.uint8)
        .view(their_dtype)
        .astype(np.float32)
    )
    theirs_bits = theirs.view(np.uint32)
    ours_f = f32_of_bits(ours)
    both_nan = np.isnan(theirs) & np.isnan(ours_f)
    ok = (ours == theirs_bits) | both_nan
    if not ours_ok_codes or ok.size != count:
        ok = np.zeros(count, dtype=bool)
    chk.record(
        name,
        ok,
        lambda i: "code 0x%02X: qmat 0x%08X, ml_dtypes 0x%08X"
        % (i, ours[i], theirs_bits[i]),
    )


def act_bits_match(ours, theirs):
    """ours: uint16 bits; theirs: array of the activation dtype."""
    theirs_bits = theirs.view(np.uint16)
    theirs_nan = np.isnan(theirs.astype(np.float32))
    return np.where(theirs_nan, ours == CANONICAL_NAN, ours == theirs_bits)


def rounding_patterns():
    """Every upper half with tie-prone lower halves, plus seeded randoms."""
    hi = np.arange(0x10000, dtype=np.uint32) << np.uint32(16)
    lows = np.array(
        [0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001,
         0x8000, 0x7FFF, 0xFFFF, 0x2000, 0x3000],
        dtype=np.uint32,
    )
    grid = (hi[:, None] | lows[None, :]).ravel()
    rng = np.random.default_rng(20240611)
    rand = rng.integers(0, 1 << 32, size=100000, dtype=np.uint64)
    return np.concatenate([grid, rand.astype(np.uint32)])


def check_rounding(chk, name, subcommand, act):
    patterns = rounding_patterns()
    stdin = "\n".join("%08X" % p for p in patterns.tolist()) + "\n"
    lines = chk.run([subcommand], stdin=stdin).split()
    echoed = np.array([int(x, 16) for x in lines[0::2]], dtype=np.uint32)
    ours = np.array([int(x, 16) for x in lines[1::2]], dtype=np.uint16)
    if echoed.size != patterns.size or not np.array_equal(echoed, patterns):
        chk.record(name, np.zeros(patterns.size, dtype=bool),
                   lambda i: "tool output does not echo its input")
        return
    with np.errstate(all="ignore"):
        theirs = f32_of_bits(patterns).astype(ACT_DTYPES[act])
    ok = act_bits_match(ours, theirs)
    theirs_bits = theirs.view(np.uint16)
    chk.record(
        name,
        ok,
        lambda i: "fp32 0x%08X: qmat 0x%04X, reference 0x%04X"
        % (patterns[i], ours[i], theirs_bits[i]),
    )


def parse_dequant(text):
    """-> (global fp32 bits, [(row label fields, uint16 values)])."""
    lines = text.splitlines()
    header = lines[0].split()
    assert header[0] == "#" and header[1] == "dequant", header
    global_bits = int(header[4].split("=")[1], 16)
    rows = []
    for line in lines[1:]:
        label, values = line.split(":")
        fields = dict(f.split("=") for f in label.split())
        rows.append(
            (fields, np.array([int(v, 16) for v in values.split()],
                              dtype=np.uint16))
        )
    return global_bits, rows


E2M1 = np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn)
E2M1 = E2M1.astype(np.float32)
ALL_BYTES = np.arange(256, dtype=np.uint8)
E4M3 = ALL_BYTES.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
E8M0 = ALL_BYTES.view(ml_dtypes.float8_e8m0fnu).astype(np.float32)
# Column c holds nibble (c & 1 ? high : low) of packed byte c // 2.
FP4_NIBBLES = np.stack([ALL_BYTES & 0xF, ALL_BYTES >> 4], axis=1).ravel()


def compare_rows(chk, name, rows, expected_of):
    oks, details = [], []
    for fields, ours in rows:
        with np.errstate(all="ignore"):
            theirs = expected_of(fields)
        if theirs.shape != ours.shape:
            oks.append(np.zeros(max(ours.size, 1), dtype=bool))
            details.append((fields, ours, np.zeros_like(ours)))
            continue
        oks.append(act_bits_match(ours, theirs))
        details.append((fields, ours, theirs.view(np.uint16)))
    ok = np.concatenate(oks)
    offsets = np.cumsum([0] + [o.size for o in oks])

    def describe(i):
        r = int(np.searchsorted(offsets, i, side="right") - 1)
        fields, ours, theirs = details[r]
        c = i - offsets[r]
        return "%s col %d: qmat 0x%04X, reference 0x%04X" % (
            fields, c, ours[c], theirs[c])

    chk.record(name, ok, describe)


def check_fp4(chk, scheme, act, global_arg=None):
    args = ["dequant", scheme, act] + ([global_arg] if global_arg else [])
    global_bits, rows = parse_dequant(chk.run(args))
    global_scale = f32_of_bits(np.array([global_bits]))[0]
    codes = E2M1[FP4_NIBBLES]

    def expected(fields):
        s = int(fields["s"], 16)
        if scheme == "nvfp4":
            # Left to right in fp32, as docs/numerics.md specifies.
            value = (codes * E4M3[s]) * global_scale
        else:
            value = codes * E8M0[s]
        assert value.dtype == np.float32
        return value.astype(ACT_DTYPES[act])

    label = scheme if global_arg is None else "%s*%s" % (scheme, global_arg)
    compare_rows(chk, "%s/%s" % (label, act), rows, expected)


def check_fp8(chk, act):
    _, rows = parse_dequant(chk.run(["dequant", "fp8", act]))

    def expected(fields):
        scale = f32_of_bits(np.array([int(fields["s"], 16)]))[0]
        value = E4M3 * scale
        assert value.dtype == np.float32
        return value.astype(ACT_DTYPES[act])

    compare_rows(chk, "fp8/%s" % act, rows, expected)


def check_int4(chk, act):
    _, rows = parse_dequant(chk.run(["dequant", "int4", act]))
    q = np.arange(16, dtype=np.float32)

    def expected(fields):
        zp = 8 if fields["zp"] == "-" else int(fields["zp"], 16)
        scale_bits = np.array([int(fields["s"], 16)], dtype=np.uint16)
        scale = scale_bits.view(ACT_DTYPES[act]).astype(np.float32)[0]
        value = (q - np.float32(zp)) * scale
        assert value.dtype == np.float32
        return value.astype(ACT_DTYPES[act])

    compare_rows(chk, "int4/%s" % act, rows, expected)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    chk = Checker(argv[1])
    check_decoder(chk, "e2m1", "e2m1", ml_dtypes.float4_e2m1fn, 16)
    check_decoder(chk, "e4m3", "e4m3", ml_dtypes.float8_e4m3fn, 256)
    check_decoder(chk, "e8m0", "e8m0", ml_dtypes.float8_e8m0fnu, 256)
    check_rounding(chk, "f16-round", "f16-round", "f16")
    check_rounding(chk, "bf16-round", "bf16-round", "bf16")
    summary = {}
    for act in ("f16", "bf16"):
        for g in NVFP4_GLOBALS:
            check_fp4(chk, "nvfp4", act, g)
        check_fp4(chk, "mxfp4", act)
        check_fp8(chk, act)
        check_int4(chk, act)

    # Fold per-configuration results into one count per family.
    for name, matched, total in chk.results:
        family = name.split("/")[0].split("*")[0]
        m, t = summary.get(family, (0, 0))
        summary[family] = (m + matched, t + total)
    print("crosscheck: " + " ".join(
        "%s %d/%d" % (k, m, t) for k, (m, t) in summary.items()))
    print("crosscheck: %s" % ("FAIL" if chk.failed else "PASS"))
    return 1 if chk.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
