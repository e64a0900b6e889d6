"""Every kernel of the suite, compiled from its TTIR (tests/ttir/<case>.ttir)
to MSL by tmetal's code generator and run on the MSL emulator, against the
case's NumPy reference.

Each case runs under every MemoryLayout policy (at the case's num_warps) and
under every num_warps in 1, 2, 4, 8 (COALESCED): the layout decides how the
threads share the work, never the result.

Uses triton_metal._core (compile_ttir, emulator_compile), built into
python/triton_metal by the project's build; the tests skip when the core lacks
the code generator or the emulator.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import suite

REPO_ROOT = Path(__file__).resolve().parents[2]
TTIR_DIR = REPO_ROOT / "tests" / "ttir"
sys.path.insert(0, str(REPO_ROOT / "python"))

POLICIES = ["COALESCED", "ROW_MAJOR", "COLUMN_MAJOR", "TILED", "DEFAULT"]
WARPS = [1, 2, 4, 8]

CASES = suite.all_cases()
CASE_IDS = [c.name for c in CASES]


def _core():
    try:
        from triton_metal import _core  # noqa: PLC0415
    except ImportError as error:  # a build problem, not a missing stage
        pytest.fail(f"triton_metal._core cannot be imported: {error}")
    caps = _core.capabilities()
    for stage in ("frontend", "codegen", "emulator"):
        if not caps.get(stage):
            pytest.skip(f"triton_metal._core was built without the {stage} stage")
    return _core


def _manifest() -> dict:
    return json.loads((TTIR_DIR / "MANIFEST.json").read_text())


def compile_case(case: suite.Case, layout: str, num_warps: int):
    core = _core()
    ttir = TTIR_DIR / f"{case.name}.ttir"
    msl, metadata = core.compile_ttir(ttir.read_text(), str(ttir.relative_to(REPO_ROOT)), num_warps=num_warps,
                                      layout=layout, hardware="apple-generic")
    return msl, metadata, core.emulator_compile(msl, metadata)


def run_case(case: suite.Case, layout: str, num_warps: int):
    """Runs the case; returns a list of mismatch descriptions."""
    entry = _manifest()[case.name]
    args = case.args()
    expected = case.expected(args)
    msl, _, kernel = compile_case(case, layout, num_warps)
    launch_args = [None] * sum(1 for p in entry["args"] if p["ttir_index"] is not None)
    for param in entry["args"]:
        if param["ttir_index"] is not None:
            launch_args[param["ttir_index"]] = args[param["name"]]
    kernel.launch(launch_args, list(case.grid))
    problems = [problem for name in case.outputs
                if (problem := suite.compare(case, name, args[name], expected[name]))]
    return problems, msl


@pytest.mark.parametrize("layout", POLICIES)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_case_under_each_layout_policy(case, layout):
    problems, msl = run_case(case, layout, case.num_warps)
    assert not problems, f"{case.name} with layout {layout}, num_warps {case.num_warps}:\n" + "\n".join(problems)


@pytest.mark.parametrize("num_warps", WARPS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_case_under_each_num_warps(case, num_warps):
    if num_warps == case.num_warps:
        pytest.skip("covered by the layout-policy test")
    problems, msl = run_case(case, "COALESCED", num_warps)
    assert not problems, f"{case.name} with num_warps {num_warps}:\n" + "\n".join(problems)


def test_results_do_not_depend_on_the_layout():
    """The same outputs, bit for bit where the reduction order agrees: at
    least the integer kernels must match exactly across every policy."""
    case = suite.get_case("integer_ops")
    outputs = []
    for layout in POLICIES:
        args = case.args()
        _, _, kernel = compile_case(case, layout, case.num_warps)
        entry = _manifest()[case.name]
        launch_args = [None] * sum(1 for p in entry["args"] if p["ttir_index"] is not None)
        for param in entry["args"]:
            if param["ttir_index"] is not None:
                launch_args[param["ttir_index"]] = args[param["name"]]
        kernel.launch(launch_args, list(case.grid))
        outputs.append({name: args[name].copy() for name in case.outputs})
    for other in outputs[1:]:
        for name in case.outputs:
            np.testing.assert_array_equal(other[name], outputs[0][name])
