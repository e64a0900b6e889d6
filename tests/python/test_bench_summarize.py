"""bench/summarize.py: the Markdown tables of the GPU benchmark results, on
synthetic result files that exercise every kind of cell (measured, wrong,
failed, skipped, shortfall)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "bench"))

import summarize  # noqa: E402

ENV = {"device": "NVIDIA H100 80GB HBM3", "date": "2025-01-02T03:04:05Z", "commit": "abc1234", "cuda_driver": "13.0",
       "torch_cuda": "12.8", "nvrtc": "13.0", "torch": "2.11.0", "triton": "3.6.0", "cupy": "13.6.0"}


TIMING = "torch CUDA events, median; before each run the L2 is flushed clean"


def _doc(benchmark: str, rows: list) -> dict:
    return {"benchmark": benchmark, "schema_version": 1, "environment": ENV, "settings": {"hardware_profile": "h100", "timing": TIMING},
            "copy_bandwidth_gbs": 2957.4, "results": rows, "summary": {}}


def _layout_row(dtype, size, layout, us=None, gbs=None, pct=None, correct=True, status="ok", error=None,
                mbytes=268.4):
    row = {"key": f"{dtype}/{size}/{layout}", "status": status, "dtype": dtype, "size": size, "layout": layout,
           "mbytes": mbytes}
    if error:
        row["error"] = error
    else:
        row.update(time_us=us, gbs=gbs, pct_copy=pct, correct=correct)
    return row


LAYOUTS = _doc("layouts", [
    _layout_row("float32", "8192x8192", "DEFAULT", 90.0, 2983.0, 100.9),
    _layout_row("float32", "8192x8192", "ROW_MAJOR", 120.0, 2237.0, 75.6),
    _layout_row("float32", "8192x8192", "COLUMN_MAJOR", 400.5, 670.2, 22.7),
    _layout_row("float32", "8192x8192", "TILED", 150.0, 1790.0, 60.5),
    _layout_row("float32", "8192x8192", "COALESCED", 90.0, 2983.0, 100.9),
    _layout_row("float32", "8192x8192", "torch.sum", 95.0, 2826.0, 95.5),
    _layout_row("float32", "128x1024", "DEFAULT", 5.0, 105.0, 3.5, mbytes=0.5),
    _layout_row("float32", "128x1024", "ROW_MAJOR", 4.0, 131.2, 4.4, mbytes=0.5),
    _layout_row("float32", "128x1024", "COLUMN_MAJOR", error="NVRTC (x.cu): error | something", status="error",
                mbytes=0.5),
    _layout_row("float32", "128x1024", "TILED", 3.0, 175.0, 5.9, correct=False, status="mismatch", mbytes=0.5),
    _layout_row("float32", "128x1024", "COALESCED", 5.0, 105.0, 3.5, mbytes=0.5),
    _layout_row("float32", "128x1024", "torch.sum", error="skipped: time budget spent", status="skipped", mbytes=0.5),
])

GRAPH = _doc("graph", [
    {"key": "a", "status": "ok", "op": "tt.sum", "dtype": "float32", "shape": [8192, 8192], "axes": [1],
     "stages": [{"name": "sum_f32_rows", "threadgroups": 8192, "threads": 1024}], "tmetal_us": 100.0,
     "torch_us": 110.0, "tmetal_gbs": 2684.7, "torch_gbs": 2440.6, "tmetal_pct_copy": 90.8, "torch_pct_copy": 82.5,
     "speedup_vs_torch": 1.1, "correct": True, "check": "ok"},
    {"key": "b", "status": "mismatch", "op": "tt.argmax", "dtype": "float16", "shape": [32, 4194304], "axes": [1],
     "stages": [{"name": "p", "threadgroups": 288, "threads": 1024}, {"name": "c", "threadgroups": 16, "threads": 32}],
     "tmetal_us": 200.0, "torch_us": 100.0, "tmetal_gbs": 1342.2, "torch_gbs": 2684.4, "tmetal_pct_copy": 45.4,
     "torch_pct_copy": 90.8, "speedup_vs_torch": 0.5, "correct": False,
     "check": "3 of 32 indices | do not point at a maximum"},
    {"key": "c", "status": "error", "op": "tt.max", "dtype": "float32", "shape": [512, 512, 512], "axes": [0, 2],
     "error": "tmetal compile failed: boom"},
    {"key": "d", "status": "skipped", "op": "tt.sum", "dtype": "float16", "shape": [128, 1024], "axes": [0],
     "error": "skipped: time budget spent"},
])

SUITE = _doc("suite", [
    {"key": "vector_add_f32", "status": "ok", "case": "vector_add_f32", "source": "suite", "bytes": 12000,
     "tmetal_us": 3.1, "triton_us": 2.9, "tmetal_correct": True, "tmetal_check": "ok", "triton_correct": True,
     "triton_check": "ok", "tmetal_gbs": 3.9, "triton_gbs": 4.1, "tmetal_pct_copy": 0.1, "triton_pct_copy": 0.1,
     "speedup_vs_triton": 0.935},
    {"key": "big_softmax_rows_32768x1024", "status": "ok", "case": "big_softmax_rows_32768x1024", "source": "large",
     "bytes": 268435456, "tmetal_us": 100.0, "triton_us": 120.0, "tmetal_correct": True, "tmetal_check": "ok",
     "triton_correct": True, "triton_check": "ok", "tmetal_gbs": 2684.4, "triton_gbs": 2237.0,
     "tmetal_pct_copy": 90.8, "triton_pct_copy": 75.6, "speedup_vs_triton": 1.2},
    {"key": "matmul_f16_f32acc", "status": "error", "case": "matmul_f16_f32acc", "source": "suite", "bytes": 9000,
     "tmetal_error": "tmetal compile failed: no dot", "triton_us": 5.0, "triton_correct": True, "triton_check": "ok",
     "tmetal_gbs": None, "triton_gbs": 1.8, "tmetal_pct_copy": None, "triton_pct_copy": 0.1,
     "speedup_vs_triton": None},
    {"key": "cumsum_1d_i32", "status": "mismatch", "case": "cumsum_1d_i32", "source": "suite", "bytes": 8000,
     "tmetal_us": 4.0, "tmetal_correct": False, "tmetal_check": "out_ptr: 3 of 1000 differ",
     "triton_error": "RuntimeError: launch failed", "tmetal_gbs": 2.0, "triton_gbs": None, "tmetal_pct_copy": 0.1,
     "triton_pct_copy": None, "speedup_vs_triton": None},
])

ENV_LINE = ("Measured on NVIDIA H100 80GB HBM3, 2025-01-02, tmetal abc1234; CUDA driver 13.0, torch CUDA 12.8, "
            "NVRTC 13.0, torch 2.11.0, Triton 3.6.0, CuPy 13.6.0. Device-to-device copy: 2957 GB/s (read + write); "
            "tmetal hardware profile h100. Timing: torch CUDA events, median; before each run the L2 is flushed "
            "clean.")

EXPECTED_LAYOUTS = f"""### Layout policies: row sum

{ENV_LINE}

| dtype | size | MB | DEFAULT | ROW_MAJOR | COLUMN_MAJOR | TILED | COALESCED | torch.sum | COALESCED % copy | COALESCED vs best other |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| float32 | 8192x8192 | 268.4 | 90.0 us, 2983 GB/s | 120.0 us, 2237 GB/s | 400.5 us, 670 GB/s | 150.0 us, 1790 GB/s | 90.0 us, 2983 GB/s | 95.0 us, 2826 GB/s | 101% | 1.33x vs ROW_MAJOR |
| float32 | 128x1024 | 0.5 | 5.0 us, 105 GB/s | 4.0 us, 131 GB/s | FAILED | 3.0 us, 175 GB/s WRONG | 5.0 us, 105 GB/s | skipped | 4% | **0.80x** vs ROW_MAJOR (shortfall) |

- float32 128x1024 COLUMN_MAJOR: FAILED: NVRTC (x.cu): error / something
"""  # noqa: E501

EXPECTED_GRAPH = f"""### Graph reductions: planner stage kernels vs torch

{ENV_LINE}

| op | dtype | shape | axes | stages (blocks x threads) | tmetal | % copy | torch | torch % copy | vs torch | check |
| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |
| tt.sum | float32 | 8192x8192 | 1 | 8192x1024 | 100.0 us, 2685 GB/s | 91% | 110.0 us, 2441 GB/s | 82% | 1.10x | ok |
| tt.argmax | float16 | 32x4194304 | 1 | 288x1024 + 16x32 | 200.0 us, 1342 GB/s | 45% | 100.0 us, 2684 GB/s | 91% | **0.50x** (shortfall) | WRONG: 3 of 32 indices / do not point at a maximum |
| tt.max | float32 | 512x512x512 | 0,2 | - | - | - | - | - | - | FAILED: tmetal compile failed: boom |
| tt.sum | float16 | 128x1024 | 0 | - | - | - | - | - | - | skipped |

4 cases, 1 correct, 1 correct and timed; geometric mean vs torch 1.10x; slower than torch in 0.
"""  # noqa: E501

EXPECTED_SUITE = f"""### Kernel suite: tmetal CUDA target vs Triton

{ENV_LINE}

| case | MB | tmetal | % copy | Triton | Triton % copy | vs Triton | check |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |
| big_softmax_rows_32768x1024 (large) | 268.4 | 100.0 us, 2684 GB/s | 91% | 120.0 us, 2237 GB/s | 76% | 1.20x | ok |
| cumsum_1d_i32 | 0.008 | 4.0 us, 2 GB/s | 0% | - | - | - | WRONG: out_ptr: 3 of 1000 differ; Triton FAILED: RuntimeError: launch failed |
| matmul_f16_f32acc | 0.009 | - | - | 5.0 us, 2 GB/s | 0% | - | FAILED: tmetal compile failed: no dot |
| vector_add_f32 | 0.012 | 3.1 us, 4 GB/s | 0% | 2.9 us, 4 GB/s | 0% | **0.94x** (shortfall) | ok |

4 cases, 2 correct on tmetal; geometric mean vs Triton, larger configurations: 1.20x (0 of 1 slower); geometric mean vs Triton, suite cases: 0.94x (1 of 1 slower).
"""  # noqa: E501


def test_layouts_table():
    assert summarize.render_layouts(LAYOUTS) == EXPECTED_LAYOUTS


def test_graph_table():
    assert summarize.render_graph(GRAPH) == EXPECTED_GRAPH


def test_suite_table():
    assert summarize.render_suite(SUITE) == EXPECTED_SUITE


def test_folder_in_benchmark_order_and_cli_output(tmp_path):
    # Files of a result folder come out as layouts, graph, suite, whatever the order they were written in.
    for name, doc in (("suite", SUITE), ("graph", GRAPH), ("layouts", LAYOUTS)):
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    expected = EXPECTED_LAYOUTS + "\n" + EXPECTED_GRAPH + "\n" + EXPECTED_SUITE
    assert summarize.render_paths([tmp_path]) == expected
    out = tmp_path / "summary.md"
    assert summarize.main([str(tmp_path), "--output", str(out)]) == 0
    assert out.read_text() == expected


def test_single_file_and_nothing_measured(tmp_path):
    path = tmp_path / "graph-run-2.json"
    path.write_text(json.dumps(GRAPH))
    assert summarize.render_paths([path]) == EXPECTED_GRAPH
    (tmp_path / "empty").mkdir()
    assert summarize.render_paths([tmp_path / "empty"]) == "No GPU benchmark results found (not measured yet).\n"


def test_environment_without_versions_or_bandwidth():
    doc = {"benchmark": "graph", "environment": {"device": "none (dry run)", "date": "2025-01-02T00:00:00Z",
                                                 "commit": "abc1234"}, "results": []}
    assert summarize.render_environment(doc) == "Measured on none (dry run), 2025-01-02, tmetal abc1234."


def test_headlines(tmp_path):
    for name, doc in (("layouts", LAYOUTS), ("graph", GRAPH), ("suite", SUITE)):
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    assert summarize.headline_paths([tmp_path]) == (
        "layouts: 12 cases, 9 ok; COALESCED vs the best other policy: geometric mean 1.03x, from 0.80x to 1.33x.\n"
        "graph: 4 cases, 1 correct, 1 correct and timed; geometric mean vs torch 1.10x; slower than torch in 0.\n"
        "suite: 4 cases, 2 correct on tmetal; geometric mean vs Triton, larger configurations: 1.20x (0 of 1 slower); "
        "geometric mean vs Triton, suite cases: 0.94x (1 of 1 slower).")


def test_speedup_cells():
    assert summarize.fmt_speedup(None) == "-"
    assert summarize.fmt_speedup(1.5, "TILED") == "1.50x vs TILED"
    assert summarize.fmt_speedup(0.996) == "1.00x"
    assert summarize.fmt_speedup(0.994, "ROW_MAJOR") == "**0.99x** vs ROW_MAJOR (shortfall)"


def test_suite_table_with_rounds():
    # With --rounds, the environment line says so and a last column gives each side's range.
    doc = _doc("suite", [
        {"case": "vector_add_f16", "source": "suite", "status": "ok", "bytes": 12288, "tmetal_us": 4.58,
         "tmetal_gbs": 2.7, "tmetal_pct_copy": 0.1, "triton_us": 4.58, "triton_gbs": 2.7, "triton_pct_copy": 0.1,
         "speedup_vs_triton": 1.0, "tmetal_correct": True, "triton_correct": True,
         "tmetal_us_rounds": [4.58, 4.61, 4.54], "triton_us_rounds": [4.58, 4.58, 4.58]},
        {"case": "cumsum_1d_i32", "source": "suite", "status": "error", "bytes": 8000, "tmetal_error": "boom",
         "triton_us": 4.0, "triton_gbs": 2.0, "triton_pct_copy": 0.1, "triton_correct": True},
    ])
    doc["settings"]["rounds"] = 3
    lines = summarize.render_suite(doc).splitlines()
    assert lines[2].endswith(" Rounds: 3 a side, the two taking turns to go first; each time is the median of "
                             "its side's rounds, whose range the last column gives.")
    assert lines[4].endswith("| check | rounds: tmetal; Triton (us) |")
    assert lines[5] == "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"
    assert lines[6].endswith("| FAILED: boom | -; - |")  # rows by name: cumsum first
    assert lines[7].endswith("| 1.00x | ok | 4.54-4.61; 4.58-4.58 |")
