"""Every kernel of the suite, compiled from its TTIR (tests/ttir/<case>.ttir)
to MSL by tmetal's code generator and run on the MSL emulator
(`tmetal run --device emulator`), against the case's NumPy reference.

Each case runs under every MemoryLayout policy and every num_warps in 1, 2,
4, 8: the layout decides how the threads share the work, never the result. test_kernel_suite.py covers each
case's own configuration; this file covers the layout space.

The tool is $TMETAL_BIN, or build/bin/tmetal in the repository. The emulator
runs in sanitize mode (guarded buffers in a child process), so that an
out-of-bounds access is a failure and not a crash of the test run.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import suite
from test_kernel_suite import TTIR_DIR, _describe, _manifest, _tmetal, run_command

POLICIES = ["coalesced", "row_major", "column_major", "tiled", "default"]
WARPS = [1, 2, 4, 8]

CASES = suite.all_cases()
CASE_IDS = [c.name for c in CASES]


def run_on_emulator(case: suite.Case, layout: str, num_warps: int, work) -> tuple[list[str], dict]:
    """Runs the case; returns (mismatch descriptions, {output name: array})."""
    entry = _manifest()[case.name]
    args = case.args()
    expected = case.expected(args)
    command, outputs = run_command(case, entry, TTIR_DIR / f"{case.name}.ttir", args, work, "emulator")
    command += ["--layout", layout, "--num-warps", str(num_warps), "--sanitize"]
    proc = _tmetal(*command)
    assert proc.returncode == 0, _describe(proc)
    got = {name: np.load(path) for name, path in outputs.items()}
    problems = [problem for name in case.outputs
                if (problem := suite.compare(case, name, got[name], expected[name]))]
    return problems, got


@pytest.mark.parametrize("num_warps", WARPS)
@pytest.mark.parametrize("layout", POLICIES)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_case_under_each_layout(case, layout, num_warps, tmp_path):
    problems, _ = run_on_emulator(case, layout, num_warps, tmp_path)
    assert not problems, f"{case.name} with layout {layout}, num_warps {num_warps}:\n" + "\n".join(problems)


@pytest.mark.parametrize("case_name", ["integer_ops", "argmax_argmin_rows", "cumsum_1d_i32", "atomic_histogram"])
def test_integer_results_are_identical_under_every_layout(case_name, tmp_path):
    case = suite.get_case(case_name)
    results = []
    for i, layout in enumerate(POLICIES):
        work = tmp_path / layout
        work.mkdir()
        _, got = run_on_emulator(case, layout, case.num_warps, work)
        results.append(got)
    for layout, got in zip(POLICIES[1:], results[1:]):
        for name in case.outputs:
            if got[name].dtype.kind in "iub":
                np.testing.assert_array_equal(got[name], results[0][name], err_msg=f"{name} under {layout}")


def test_metadata_reports_the_layout_decisions(tmp_path):
    out = tmp_path / "softmax.json"
    proc = _tmetal("compile", str(TTIR_DIR / "softmax_rows.ttir"), "-o", str(tmp_path / "softmax.metal"),
                   "--metadata", str(out))
    assert proc.returncode == 0, _describe(proc)
    layouts = json.loads(out.read_text())["layouts"]
    assert layouts["policy"] == "COALESCED"
    assert [r["lanes"]["combine"] for r in layouts["reductions"]] == ["simd_max", "simd_sum"]
