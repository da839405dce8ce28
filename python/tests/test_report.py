"""bench/report.py's tables from tiny synthetic results (no matplotlib:
--table-only), and its defaults against the recorded results."""
import json
import os

import pytest

from conftest import REPO_DIR, load_repo_script


@pytest.fixture(scope="module")
def report():
    return load_repo_script(os.path.join("bench", "report.py"), "qmat_bench_report")


def fused_case(m, fused_ms, dequant_ms, cublas_ms, act="bf16"):
    return {"layer": f"nvfp4_{act}_17408x5120", "scheme": "nvfp4", "act": act, "n": 17408,
            "k": 5120, "m": m, "fused_ms": fused_ms, "best_variant": "mt16_w1_s4_c2",
            "best_variant_ms": fused_ms, "policy_over_best": 1.0,
            "dequant_gemm_ms": dequant_ms, "cublas_ms": cublas_ms,
            f"fused_over_cublas_{act}": fused_ms / cublas_ms}


def gemv_case(layer, m, policy_us, cublas_us, bw):
    n, k = (int(x) for x in layer.rsplit("_", 1)[1].split("x"))
    return {"time": layer, "m": m, "n": n, "k": k, "policy_us": policy_us,
            "cublas_us": cublas_us, "gemv_bw_over_copy": bw}


def write(path, data):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)


def test_parse_layer(report):
    assert report.parse_layer("int4_f16_248320x5120") == ("int4", "f16", 248320, 5120)
    with pytest.raises(ValueError):
        report.parse_layer("nvfp4_bf16_17408")


def test_fused_rows_skip_checks_and_compute_ratios(report):
    data = {"cases": [
        # A correctness record: no timing, not a row.
        {"layer": "nvfp4_bf16_17408x5120", "scheme": "nvfp4", "act": "bf16", "n": 17408,
         "k": 5120, "m": 9, "variant": "policy", "rel_frobenius_error": 2e-3},
        fused_case(32, 0.040, 0.110, 0.050),
        fused_case(16, 0.025, 0.100, 0.050),
    ]}
    rows = report.fused_rows(data)
    assert [r["m"] for r in rows] == [16, 32]
    assert rows[0]["over_cublas"] == pytest.approx(0.5)
    assert rows[0]["dequant_over_cublas"] == pytest.approx(2.0)
    assert rows[1]["over_cublas"] == pytest.approx(0.8)


def test_later_gemv_file_wins(report):
    old = {"cases": [gemv_case("mxfp4_bf16_248320x5120", 1, 220.0, 630.0, 0.75),
                     gemv_case("nvfp4_bf16_248320x5120", 1, 180.0, 630.0, 0.95),
                     {"m": 1, "rel_frobenius_error": 1e-3, "layer": "x"}]}
    new = {"cases": [gemv_case("mxfp4_bf16_248320x5120", 1, 175.0, 630.0, 0.97)]}
    rows = report.gemv_rows([("old.json", old), ("new.json", new)])
    by_scheme = {r["scheme"]: r for r in rows}
    assert set(by_scheme) == {"nvfp4", "mxfp4"}
    assert by_scheme["mxfp4"]["bw_over_copy"] == 0.97
    assert by_scheme["mxfp4"]["source"] == "new.json"
    assert by_scheme["nvfp4"]["source"] == "old.json"
    assert by_scheme["nvfp4"]["over_cublas"] == pytest.approx(180.0 / 630.0)
    # Rows in scheme order: nvfp4 before mxfp4.
    assert [r["scheme"] for r in rows] == ["nvfp4", "mxfp4"]


def test_table_only_writes_the_rows(report, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    write(results / "fused.json", {"cases": [fused_case(16, 0.025, 0.100, 0.050),
                                             fused_case(64, 0.070, 0.110, 0.050)]})
    write(results / "gemv.json", {"cases": [gemv_case("nvfp4_bf16_17408x5120", 1, 17.0, 53.0,
                                                      0.70)]})
    write(results / "prefill.json", {"cases": [
        {"layer": "nvfp4_bf16_17408x5120", "m": 128, "prefill_ms": 0.2, "cublas_ms": 0.1},
        {"layer": "nvfp4_bf16_17408x5120", "m": 8192, "prefill_ms": 1.8, "cublas_ms": 2.0}]})
    out = tmp_path / "report"
    rc = report.main(["--results", str(results), "--out", str(out), "--fused", "fused.json",
                      "--gemv", "gemv.json", "--prefill", "prefill.json", "--table-only"])
    assert rc == 0
    assert sorted(os.listdir(out)) == ["report.md"]
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "| gate_up 17408x5120 | 1 | decode GEMV | 17.0 | 53.0 | 0.321 |" in text
    assert ("| gate_up 17408x5120 | 16 | launcher (fused GEMM or dequantize + cuBLASLt) "
            "| 25.0 | 50.0 | 0.500 |") in text
    assert "| gate_up 17408x5120 | 16 | dequantize + cuBLASLt | 100.0 | 50.0 | 2.000 |" in text
    # The fused table: M = 16 and 64 columns, the dequantize path's range.
    assert "| nvfp4 | bf16 | gate_up 17408x5120 | 0.50 | 1.40 | 2.00-2.20 |" in text
    # Prefill below M = 512 is the fused table's, not the prefill's.
    assert "| nvfp4 | bf16 | gate_up 17408x5120 | 8192 | 0.90 | `prefill.json` |" in text
    assert "| 128 | 2.00 |" not in text


def test_defaults_name_recorded_results(report):
    results = os.path.join(REPO_DIR, "bench", "results")
    for name in (report.DEFAULT_FUSED,) + tuple(report.DEFAULT_GEMV) + tuple(
            report.DEFAULT_PREFILL):
        assert os.path.isfile(os.path.join(results, name)), name
    fused = report.fused_rows(report.load(os.path.join(results, report.DEFAULT_FUSED)))
    series = report.headline_series(
        fused,
        report.gemv_rows([(n, report.load(os.path.join(results, n)))
                          for n in report.DEFAULT_GEMV]),
        report.prefill_rows([(n, report.load(os.path.join(results, n)))
                             for n in report.DEFAULT_PREFILL]),
        17408, 5120)
    ms = [m for m, _ in series["launcher"]]
    # The decode GEMV's M, the fused GEMM's and the prefill's, in order.
    assert ms[:3] == [1, 4, 8] and 16 in ms and 8192 in ms and ms == sorted(ms)
