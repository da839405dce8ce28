#!/usr/bin/env python3
"""Plots and a Markdown table from the recorded benchmark results.

Usage: python3 bench/report.py [--results DIR] [--out DIR] [--table-only]
                               [--fused FILE] [--gemv FILE] [--prefill FILE ...]

Reads the JSON that the harnesses under bench/ wrote (bench/results/, see
bench/README.md) and writes to --out (default bench/report/):

  report.md               the tables: every figure below as numbers
  headline.png            nvfp4 bf16, 17408x5120 and the lm_head 248320x5120:
                          the launcher's time over cuBLAS bf16 against M
                          (decode GEMV, fused dequant-GEMM, dequantize +
                          cuBLASLt), and the dequantize + cuBLASLt path alone
  fused_over_cublas.png   the same ratio per scheme and shape, M = 16..256
  gemv_bw_over_copy.png   the decode GEMV's weight bandwidth over the device
                          copy rate, per scheme and shape, M = 1, 4, 8
  gemv_over_cublas.png    the decode GEMV's time over cuBLAS, M = 1, 4, 8

The table needs only the standard library; the plots need matplotlib
(`pip install matplotlib`). --table-only writes the table alone.

The defaults are the latest runs of each harness; --fused, --gemv and
--prefill (relative to --results, or absolute) choose others. A GEMV or
prefill figure comes from the last of its files that has it, so later
files override earlier ones.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# bench/fused/run.sh: the default bundle, every scheme x f16/bf16 x the
# example model's layers, M = 16..256.
DEFAULT_FUSED = "2026-12-01-fused-sm90-all-schemes.json"
# bench/gemv/run.sh on prepared bundles (the main bundle's timed layers),
# oldest first: the last full run of every scheme, then the mxfp4 layers
# re-measured with their current decode and policy.
DEFAULT_GEMV = (
    "2026-12-01-gemv-sm90-prepared-monitored-main.json",
    "2026-12-01-gemv-sm90-mxfp4-vote-outliers-prepared-main.json",
)
# bench/prefill/run.sh, oldest first: M = 1024 and 8192 (the fused results
# stop at M = 256).
DEFAULT_PREFILL = (
    "2026-11-29-prefill-sm90-v1.json",
    "2026-11-29-prefill-sm90-lmhead-aligned.json",
    "2026-11-29-prefill-sm90-nvfp4-algo-cache.json",
)

# The example model's layers (examples/qwen-like-27b-nvfp4.mlir).
SHAPE_NAMES = {
    (6144, 5120): "qkv",
    (5120, 6144): "o",
    (17408, 5120): "gate_up",
    (5120, 17408): "down",
    (248320, 5120): "lm_head",
}
SCHEMES = ("nvfp4", "mxfp4", "fp8", "int4")
HEADLINE_SHAPES = ((17408, 5120), (248320, 5120))

_LAYER = re.compile(r"^(nvfp4|mxfp4|fp8|int4)_(bf16|f16)_(\d+)x(\d+)$")


def parse_layer(name):
    """'nvfp4_bf16_17408x5120' -> ('nvfp4', 'bf16', 17408, 5120)."""
    match = _LAYER.match(name)
    if not match:
        raise ValueError(f"not a benchmark layer name: {name!r}")
    scheme, act, n, k = match.groups()
    return scheme, act, int(n), int(k)


def _shape_key(n, k):
    """The example model's layers in model order, other shapes first."""
    names = list(SHAPE_NAMES)
    return (names.index((n, k)) if (n, k) in names else -1, n, k)


def _row_key(r):
    return (SCHEMES.index(r["scheme"]), r["act"]) + _shape_key(r["n"], r["k"]) + (r["m"],)


def shape_label(n, k):
    name = SHAPE_NAMES.get((n, k))
    return f"{name} {n}x{k}" if name else f"{n}x{k}"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _cases(data):
    return data.get("cases", []) if isinstance(data, dict) else []


def fused_rows(data):
    """The timed records of a bench/fused result, one dict per layer and M:
    the launcher's time (`policy_ms`: the fused GEMM up to the bundle's
    fused_max_m, the dequantize + cuBLASLt path above), the forced
    dequantize + cuBLASLt path and cuBLAS on dense weights of the same
    activation type, and their ratios."""
    rows = []
    for case in _cases(data):
        if "cublas_ms" not in case or "fused_ms" not in case:
            continue
        rows.append({
            "scheme": case["scheme"], "act": case["act"], "n": case["n"], "k": case["k"],
            "m": case["m"], "policy_ms": case["fused_ms"],
            "dequant_ms": case["dequant_gemm_ms"], "cublas_ms": case["cublas_ms"],
            "over_cublas": case["fused_ms"] / case["cublas_ms"],
            "dequant_over_cublas": case["dequant_gemm_ms"] / case["cublas_ms"],
            "best_variant": case.get("best_variant", ""),
            "policy_over_best": case.get("policy_over_best"),
        })
    rows.sort(key=_row_key)
    return rows


def _latest(named_data, rows_of):
    """rows_of(data) for each (file name, parsed JSON) of `named_data`,
    oldest first: one row per layer and M, from the last file that has it,
    with its file name as "source"."""
    latest = {}
    for name, data in named_data:
        for row in rows_of(data):
            latest[(row["scheme"], row["act"], row["n"], row["k"], row["m"])] = dict(
                row, source=name)
    return sorted(latest.values(), key=_row_key)


def _gemv_records(data):
    for case in _cases(data):
        if "policy_us" not in case or "time" not in case:
            continue
        scheme, act, n, k = parse_layer(case["time"])
        yield {
            "scheme": scheme, "act": act, "n": n, "k": k, "m": case["m"],
            "policy_us": case["policy_us"], "cublas_us": case["cublas_us"],
            "over_cublas": case["policy_us"] / case["cublas_us"],
            "bw_over_copy": case["gemv_bw_over_copy"],
        }


def gemv_rows(named_data):
    """The timed records of bench/gemv results (the layer named in "time"):
    the policy's time, cuBLAS on dense weights of the same activation type
    and the weight bandwidth over the device copy rate of that run.
    `named_data` is a list of (file name, parsed JSON), oldest first; of
    several files the last that has a layer and M wins."""
    return _latest(named_data, _gemv_records)


def prefill_rows(named_data, min_m=512):
    """The timed records of bench/prefill results at M >= min_m (the
    dequantize + cuBLASLt path), as gemv_rows."""
    def records(data):
        for case in _cases(data):
            if "prefill_ms" not in case or case.get("m", 0) < min_m:
                continue
            scheme, act, n, k = parse_layer(case["layer"])
            yield {
                "scheme": scheme, "act": act, "n": n, "k": k, "m": case["m"],
                "prefill_ms": case["prefill_ms"], "cublas_ms": case["cublas_ms"],
                "over_cublas": case["prefill_ms"] / case["cublas_ms"],
            }
    return _latest(named_data, records)


def headline_series(fused, gemv, prefill, n, k, act="bf16", scheme="nvfp4"):
    """(M, ratio) points of one layer: `launcher` is what the bundle runs
    at each M (GEMV, fused GEMM, dequantize + cuBLASLt), `dequant` the
    dequantize + cuBLASLt path at every M it was timed."""
    def pick(rows):
        return [r for r in rows if (r["scheme"], r["act"], r["n"], r["k"]) == (scheme, act, n, k)]
    launcher = [(r["m"], r["over_cublas"]) for r in pick(gemv)]
    launcher += [(r["m"], r["over_cublas"]) for r in pick(fused)]
    dequant = [(r["m"], r["dequant_over_cublas"]) for r in pick(fused)]
    big = [(r["m"], r["over_cublas"]) for r in pick(prefill)]
    return {"launcher": sorted(launcher + big), "dequant": sorted(dequant + big)}


def _fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def _group(rows, key_fields):
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[f] for f in key_fields), []).append(r)
    return groups


def markdown(fused, gemv, prefill, sources):
    """The report's Markdown text."""
    out = ["# Benchmark report", "",
           "Generated by `python3 bench/report.py` from the recorded results "
           "(bench/README.md says how each was measured). Ratios are times over "
           "cuBLAS on dense weights of the same activation type in the same run "
           "(below 1: faster than cuBLAS), bandwidths over the device copy rate "
           "of that run.", "", "Sources:", ""]
    out += [f"* {what}: `bench/results/{name}`" for what, name in sources]
    out.append("")

    out += ["## nvfp4 bf16: the launcher over cuBLAS bf16", "",
            "![headline](headline.png)", "",
            "| layer | M | path | time (µs) | cuBLAS bf16 (µs) | over cuBLAS |",
            "|---|---|---|---|---|---|"]
    for n, k in HEADLINE_SHAPES:
        for r in gemv:
            if (r["scheme"], r["act"], r["n"], r["k"]) == ("nvfp4", "bf16", n, k):
                out.append(f"| {shape_label(n, k)} | {r['m']} | decode GEMV | "
                           f"{r['policy_us']:.1f} | {r['cublas_us']:.1f} | {r['over_cublas']:.3f} |")
        for r in fused:
            if (r["scheme"], r["act"], r["n"], r["k"]) == ("nvfp4", "bf16", n, k):
                out.append(f"| {shape_label(n, k)} | {r['m']} | launcher (fused GEMM or "
                           f"dequantize + cuBLASLt) | {r['policy_ms'] * 1e3:.1f} | "
                           f"{r['cublas_ms'] * 1e3:.1f} | {r['over_cublas']:.3f} |")
                out.append(f"| {shape_label(n, k)} | {r['m']} | dequantize + cuBLASLt | "
                           f"{r['dequant_ms'] * 1e3:.1f} | {r['cublas_ms'] * 1e3:.1f} | "
                           f"{r['dequant_over_cublas']:.3f} |")
        for r in prefill:
            if (r["scheme"], r["act"], r["n"], r["k"]) == ("nvfp4", "bf16", n, k):
                out.append(f"| {shape_label(n, k)} | {r['m']} | dequantize + cuBLASLt | "
                           f"{r['prefill_ms'] * 1e3:.1f} | {r['cublas_ms'] * 1e3:.1f} | "
                           f"{r['over_cublas']:.3f} |")
    out.append("")

    ms = sorted({r["m"] for r in fused})
    out += ["## Fused dequant-GEMM: the launcher over cuBLAS", "",
            "![fused](fused_over_cublas.png)", "",
            "The launcher's time at each M over cuBLAS (bf16 layers over cuBLAS bf16, "
            "f16 over cuBLAS f16); the last column is the dequantize + cuBLASLt path "
            "over the same M.", "",
            "| scheme | act | layer | " + " | ".join(f"M = {m}" for m in ms)
            + " | dequantize + cuBLASLt |",
            "|---|---|---|" + "---|" * len(ms) + "---|"]
    for (scheme, act, n, k), rows in _group(fused, ("scheme", "act", "n", "k")).items():
        by_m = {r["m"]: r for r in rows}
        cells = [_fmt(by_m[m]["over_cublas"]) if m in by_m else "-" for m in ms]
        dq = [r["dequant_over_cublas"] for r in rows]
        out.append(f"| {scheme} | {act} | {shape_label(n, k)} | " + " | ".join(cells)
                   + f" | {min(dq):.2f}-{max(dq):.2f} |")
    out.append("")

    gms = sorted({r["m"] for r in gemv})
    out += ["## Decode GEMV", "",
            "![gemv bandwidth](gemv_bw_over_copy.png)", "",
            "![gemv over cuBLAS](gemv_over_cublas.png)", "",
            "The policy's time over cuBLAS of the same activation type, and the "
            "bandwidth of the weights and scales over the device copy rate.", "",
            "| scheme | act | layer | " + " | ".join(f"M = {m} over cuBLAS" for m in gms)
            + " | " + " | ".join(f"M = {m} bw / copy" for m in gms) + " | source |",
            "|---|---|---|" + "---|" * (2 * len(gms)) + "---|"]
    for (scheme, act, n, k), rows in _group(gemv, ("scheme", "act", "n", "k")).items():
        by_m = {r["m"]: r for r in rows}
        ratio = [_fmt(by_m[m]["over_cublas"], 3) if m in by_m else "-" for m in gms]
        bw = [_fmt(by_m[m]["bw_over_copy"], 3) if m in by_m else "-" for m in gms]
        sources = sorted({f"`{r['source']}`" for r in rows})
        out.append(f"| {scheme} | {act} | {shape_label(n, k)} | " + " | ".join(ratio + bw)
                   + f" | {', '.join(sources)} |")
    out.append("")

    if prefill:
        out += ["## Prefill: dequantize + cuBLASLt at large M", "",
                "| scheme | act | layer | M | over cuBLAS bf16 | source |",
                "|---|---|---|---|---|---|"]
        for r in prefill:
            out.append(f"| {r['scheme']} | {r['act']} | {shape_label(r['n'], r['k'])} | "
                       f"{r['m']} | {r['over_cublas']:.2f} | `{r['source']}` |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _log2_axis(ax, ms):
    # Ticks at the powers of two only: M = 100 next to 128 would overprint.
    ticks = [m for m in ms if m & (m - 1) == 0] or ms
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(m) for m in ticks], fontsize=7)
    ax.minorticks_off()
    ax.grid(True, which="major", alpha=0.3)


def write_plots(out_dir, fused, gemv, prefill):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # The headline: nvfp4 bf16, 17408x5120 and the lm_head.
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, (n, k) in zip(axes, HEADLINE_SHAPES):
        series = headline_series(fused, gemv, prefill, n, k)
        for key, style, label in (("launcher", "o-", "qmat launcher (what the bundle runs at M)"),
                                  ("dequant", "s--", "dequantize + cuBLASLt")):
            pts = series[key]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
        ms = sorted({p[0] for pts in series.values() for p in pts})
        if ms:
            _log2_axis(ax, ms)
            ax.set_xlim(ms[0] / 1.3, ms[-1] * 1.3)
        ax.axhline(1.0, color="gray", lw=1)
        # The launcher's paths with the default bundle (gemv_max_m 8,
        # fused_max_m 128).
        for lo, hi, color, text in ((ms[0] / 1.3 if ms else 0.8, 11.3, "tab:green", "GEMV"),
                                    (11.3, 181, "tab:blue", "fused GEMM"),
                                    (181, ms[-1] * 1.3 if ms else 8192, "tab:orange",
                                     "dequantize + cuBLASLt")):
            ax.axvspan(lo, hi, color=color, alpha=0.07)
            ax.text((lo * hi) ** 0.5, 0.97, text, ha="center", va="top", fontsize=8,
                    transform=ax.get_xaxis_transform())
        ax.set_title(f"nvfp4 bf16, {shape_label(n, k)}")
        ax.set_xlabel("M (rows of activations)")
    axes[0].set_ylabel("time / cuBLAS bf16 (dense weights)")
    top = max([p[1] for n, k in HEADLINE_SHAPES
               for pts in headline_series(fused, gemv, prefill, n, k).values() for p in pts]
              + [1.0])
    axes[0].set_ylim(0, top * 1.12)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(os.path.join(out_dir, "headline.png"), dpi=120)
    plt.close(fig)

    # The fused results per scheme and shape.
    shapes = sorted({(r["n"], r["k"]) for r in fused}, key=lambda s: _shape_key(*s))
    schemes = [s for s in SCHEMES if any(r["scheme"] == s for r in fused)]
    if shapes and schemes:
        fig, axes = plt.subplots(len(schemes), len(shapes), figsize=(3.2 * len(shapes),
                                 2.6 * len(schemes)), sharex=True, squeeze=False)
        ms = sorted({r["m"] for r in fused})
        for i, scheme in enumerate(schemes):
            for j, (n, k) in enumerate(shapes):
                ax = axes[i][j]
                for act, color in (("bf16", "tab:blue"), ("f16", "tab:orange")):
                    rows = [r for r in fused if (r["scheme"], r["act"], r["n"], r["k"])
                            == (scheme, act, n, k)]
                    if not rows:
                        continue
                    ax.plot([r["m"] for r in rows], [r["over_cublas"] for r in rows], "o-",
                            color=color, ms=3, label=f"launcher, {act}")
                    ax.plot([r["m"] for r in rows], [r["dequant_over_cublas"] for r in rows],
                            "s--", color=color, ms=3, alpha=0.6,
                            label=f"dequantize + cuBLASLt, {act}")
                ax.axhline(1.0, color="gray", lw=1)
                _log2_axis(ax, ms)
                ax.set_title(f"{scheme} {shape_label(n, k)}", fontsize=9)
                if j == 0:
                    ax.set_ylabel("time / cuBLAS", fontsize=8)
                if i == len(schemes) - 1:
                    ax.set_xlabel("M", fontsize=8)
        axes[0][0].legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "fused_over_cublas.png"), dpi=100)
        plt.close(fig)

    # The GEMV per shape.
    gshapes = sorted({(r["n"], r["k"]) for r in gemv}, key=lambda s: _shape_key(*s))
    for key, name, ylabel, ref in (
            ("bw_over_copy", "gemv_bw_over_copy.png", "weight bandwidth / copy rate", 1.0),
            ("over_cublas", "gemv_over_cublas.png", "time / cuBLAS", 1.0)):
        if not gshapes:
            break
        fig, axes = plt.subplots(1, len(gshapes), figsize=(3.4 * len(gshapes), 3.6),
                                 sharey=True, squeeze=False)
        for ax, (n, k) in zip(axes[0], gshapes):
            for scheme in SCHEMES:
                for act, style in (("bf16", "o-"), ("f16", "s--")):
                    rows = [r for r in gemv if (r["scheme"], r["act"], r["n"], r["k"])
                            == (scheme, act, n, k)]
                    if rows:
                        ax.plot([r["m"] for r in rows], [r[key] for r in rows], style, ms=4,
                                label=f"{scheme} {act}",
                                color=f"C{SCHEMES.index(scheme)}")
            ax.axhline(ref, color="gray", lw=1)
            ax.set_xticks(sorted({r["m"] for r in gemv}))
            ax.grid(True, alpha=0.3)
            ax.set_title(shape_label(n, k), fontsize=9)
            ax.set_xlabel("M")
        axes[0][0].set_ylabel(ylabel)
        axes[0][0].legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, name), dpi=100)
        plt.close(fig)


def _resolve(results, name):
    return name if os.path.isabs(name) else os.path.join(results, name)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default=os.path.join(HERE, "results"))
    parser.add_argument("--out", default=os.path.join(HERE, "report"))
    parser.add_argument("--fused", default=DEFAULT_FUSED)
    parser.add_argument("--gemv", nargs="*", default=list(DEFAULT_GEMV))
    parser.add_argument("--prefill", nargs="*", default=list(DEFAULT_PREFILL))
    parser.add_argument("--table-only", action="store_true",
                        help="write report.md only (no matplotlib needed)")
    args = parser.parse_args(argv)

    fused = fused_rows(load(_resolve(args.results, args.fused)))
    gemv = gemv_rows([(os.path.basename(p), load(_resolve(args.results, p)))
                      for p in args.gemv])
    prefill = prefill_rows([(os.path.basename(p), load(_resolve(args.results, p)))
                            for p in args.prefill])
    sources = [("fused dequant-GEMM", os.path.basename(args.fused))]
    sources += [("decode GEMV", os.path.basename(p)) for p in args.gemv]
    sources += [("prefill", os.path.basename(p)) for p in args.prefill]

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "report.md"), "w", encoding="utf-8") as f:
        f.write(markdown(fused, gemv, prefill, sources))
    print(f"wrote {os.path.join(args.out, 'report.md')}")
    if args.table_only:
        return 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("the plots need matplotlib: pip install matplotlib "
              "(or pass --table-only)", file=sys.stderr)
        return 2
    write_plots(args.out, fused, gemv, prefill)
    print(f"wrote the plots into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
