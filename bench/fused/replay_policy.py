#!/usr/bin/env python3
"""Replays the launcher's fused-variant policy on a recorded timing run.

For every timed case of a fused_bench JSON (per-tiling times in
`variants_ms`), compiles qmat_policy::chooseFusedVariant from a policy
header and reports the tiling it picks and that tiling's recorded time over
the fastest one. With --base=REV the header of that git revision is replayed
too, so that a policy change can be judged on the times of one run, before
any launcher with it is timed. Runs on the build machine (g++, no GPU).

The driver's occupancy (warps of each tiling one SM holds) is not in the
JSON: the warp tilings take the figures of test/Unit/AOT/FusedGemmPolicyTest
(their registers on sm_90), the tilings split across a cluster's blocks 0
(as the launcher), the others 4; 132 SMs.

Usage: replay_policy.py RESULTS_JSON OUT_JSON [--base=REV]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
HEADER = "include/qmat/AOT/FusedGemmPolicy.h"
RESIDENT_WARPS = {"mt16_w1_s4_c2": 16, "mt16_w2_s2_c2": 16, "mt32_w2_s2_c2": 12,
                  "mt64_w4_s1_c2": 8, "mt16_w1_s4_c1": 20, "mt32_w2_s2_c1": 16}
NAME = re.compile(r"mt(\d+)_w(\d+)_s(\d+)_c(\d+)_p(\d+)(_ws|_wg)?(?:_k(\d+))?(?:_x(\d+))?$")

DRIVER = r"""
#include <cstdio>
#include "policy.h"
using namespace qmat_policy;
const FusedVariantDesc kVariants[] = {%(variants)s};
const int kResident[] = {%(resident)s};
int main() {
  long long n, k, m;
  while (std::scanf("%%lld %%lld %%lld", &n, &k, &m) == 3)
    std::printf("%%d\n", chooseFusedVariant(n, k, m, 132, kVariants,
                                           %(count)d, kResident));
}
"""


def choices(header_text, names, cases, work):
    variants, resident = [], []
    for name in names:
        mt, w, s, c, p, form, slices, multicast = NAME.match(name).groups()
        form = {"_ws": "kSpecializedForm", "_wg": "kWarpgroupForm"}.get(form, "kWarpForm")
        # A header before K slices has six fields, one before multicast
        # seven; neither takes such a tiling.
        fields = [mt, w, s, c, p, form]
        if "kSlices" in header_text:
            fields.append(slices or "1")
        if "int multicast" in header_text:
            fields.append(multicast or "1")
        variants.append("{%s}" % ", ".join(fields))
        # The launcher asks no occupancy of a tiling in clusters (0).
        resident.append("0" if slices or multicast else
                        str(RESIDENT_WARPS.get(name.rsplit("_p", 1)[0], 4)))
    with open(os.path.join(work, "policy.h"), "w") as f:
        f.write(header_text)
    with open(os.path.join(work, "driver.cpp"), "w") as f:
        f.write(DRIVER % {"variants": ", ".join(variants),
                          "resident": ", ".join(resident), "count": len(names)})
    exe = os.path.join(work, "driver")
    subprocess.run(["g++", "-std=c++17", "-O1", "-I", work,
                    os.path.join(work, "driver.cpp"), "-o", exe], check=True)
    query = "".join("%d %d %d\n" % (c["n"], c["k"], c["m"]) for c in cases)
    out = subprocess.run([exe], input=query, capture_output=True, text=True,
                         check=True).stdout.split()
    return [names[int(i)] for i in out]


def main():
    results, out_path = sys.argv[1], sys.argv[2]
    base = next((a.split("=", 1)[1] for a in sys.argv[3:] if a.startswith("--base=")), None)
    cases = [c for c in json.load(open(results))["cases"] if "variants_ms" in c]
    names = list(cases[0]["variants_ms"])
    headers = {"current": open(os.path.join(ROOT, HEADER)).read()}
    if base:
        headers["base"] = subprocess.run(["git", "-C", ROOT, "show", "%s:%s" % (base, HEADER)],
                                         capture_output=True, text=True, check=True).stdout
    picks = {}
    with tempfile.TemporaryDirectory() as work:
        for label, text in headers.items():
            picks[label] = choices(text, names, cases, work)
    rows = []
    for i, c in enumerate(cases):
        best = min(c["variants_ms"].values())
        row = {key: c[key] for key in ("layer", "scheme", "n", "k", "m")}
        row["recorded_policy_over_best"] = c["fused_ms"] / best
        for label in headers:
            row[label] = picks[label][i]
            row[label + "_over_best"] = c["variants_ms"][picks[label][i]] / best
        rows.append(row)
    summary = {}
    for label in headers:
        ratios = [r[label + "_over_best"] for r in rows]
        summary[label] = {"over_best_max": max(ratios),
                          "cases_over_1_05": sum(x > 1.05 for x in ratios)}
    if base:
        changed = [r for r in rows if r["current"] != r["base"]]
        summary["changed"] = len(changed)
        summary["faster"] = sum(r["current_over_best"] < r["base_over_best"] for r in changed)
        summary["slower"] = sum(r["current_over_best"] > r["base_over_best"] for r in changed)
    summary["recorded_within_3_percent"] = sum(
        abs(c["variants_ms"][p] / c["fused_ms"] - 1) < 0.03
        for c, p in zip(cases, picks["base" if base else "current"]))
    summary["cases"] = len(rows)
    json.dump({"results": os.path.basename(results), "base": base, "summary": summary,
               "cases": rows}, open(out_path, "w"), indent=1)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
