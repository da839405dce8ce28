#!/usr/bin/env python3
"""Summary of an Nsight Compute source page (bench/gemv/profile.sh writes
ncu-LAYER-sass.csv): executed instructions and stall samples per opcode, the
L2 sectors each kind of load requests (and how many of them an ideal access
would), and the leading stall reasons.

Usage: python3 bench/gemv/ncu_summary.py ncu-LAYER-sass.csv
"""
import collections
import csv
import re
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
LOADS_AND_STORES = ("LDG", "STG", "LD.", "LDS", "STS")


def number(row, index, column):
    try:
        return float(row[index[column]].replace(",", ""))
    except ValueError:
        return 0.0


def main():
    rows = list(csv.reader(open(sys.argv[1])))
    header, data = rows[1], rows[2:]
    index = {name: i for i, name in enumerate(header)}
    total_samples = sum(number(r, index, SAMPLES) for r in data)
    executed = collections.Counter()
    samples = collections.Counter()
    sectors = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for row in data:
        source = row[index["Source"]].strip()
        opcode = re.sub(r"^@!?U?P\w+\s+", "", source).split(" ")[0]
        executed[opcode] += number(row, index, "Instructions Executed")
        samples[opcode] += number(row, index, SAMPLES)
        size = row[index["Access Size"]]
        if opcode.startswith(LOADS_AND_STORES) and size not in ("", "-"):
            entry = sectors[(opcode, size)]
            entry[0] += number(row, index, "L2 Theoretical Sectors Global")
            entry[1] += number(row, index, "L2 Theoretical Sectors Global Excessive")
            entry[2] += number(row, index, "L2 Theoretical Sectors Global Ideal")
    print(f"stall samples: {total_samples:.0f}")
    print(f"{'opcode':30s} {'executed (M)':>12s} {'samples %':>9s}")
    for opcode, count in executed.most_common(25):
        share = 100 * samples[opcode] / total_samples if total_samples else 0
        print(f"{opcode:30s} {count / 1e6:12.2f} {share:9.1f}")
    print(f"{'load (bits)':36s} {'sectors (M)':>11s} {'excessive':>9s} {'ideal':>9s}")
    for (opcode, size), (total, excessive, ideal) in sorted(sectors.items()):
        print(f"{opcode + ' (' + size + ')':36s} {total / 1e6:11.2f} "
              f"{excessive / 1e6:9.2f} {ideal / 1e6:9.2f}")
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    totals = {r: sum(number(row, index, r) for row in data) for r in reasons}
    leading = sorted(totals.items(), key=lambda item: -item[1])[:8]
    print("stall reasons, % of samples: " + ", ".join(
        f"{reason[len('stall_'):]} {100 * value / total_samples:.1f}"
        for reason, value in leading if total_samples))


if __name__ == "__main__":
    main()
