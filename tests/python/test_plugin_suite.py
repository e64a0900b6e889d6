"""Every kernel of the kernel suite (tests/kernels), launched unchanged with
`kernel[grid](...)` through the plugin on the emulator, against the suite's
NumPy references: one test per case, and per extra launch configuration."""
from __future__ import annotations

import numpy as np
import pytest

import suite

from conftest import wrap_case_args

CASES = suite.all_cases()
# Launch configurations besides each case's own: num_warps changes the
# threadgroup size and so every layout decision; the layout policies must
# all compute the same results.
CONFIGS = {
    "default": {},
    "warps1": {"num_warps": 1},
    "warps8": {"num_warps": 8},
    "row_major": {"layout": "ROW_MAJOR"},
}


def run_case(case: suite.Case, launch_options: dict):
    args = case.args()
    expected = case.expected(args)
    options = {"num_warps": case.num_warps, **launch_options}
    case.kernel[case.grid](*wrap_case_args(case, args), **case.constexprs, **options)
    problems = [problem for name in case.outputs
                if (problem := suite.compare(case, name, args[name], expected[name]))]
    assert not problems, f"{case.name} with {options}:\n" + "\n".join(problems)


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_suite_case_on_emulator(codegen_emulator, case, config):
    run_case(case, CONFIGS[config])


def test_outputs_are_written_in_place(codegen_emulator):
    case = suite.get_case("vector_add_f32")
    args = case.args()
    out = args["out_ptr"]
    case.kernel[case.grid](*wrap_case_args(case, args), **case.constexprs)
    assert out is args["out_ptr"]
    np.testing.assert_allclose(out, args["x_ptr"] + args["y_ptr"], rtol=1e-6)


def test_compiled_kernel_exposes_msl_and_metadata(codegen_emulator):
    case = suite.get_case("vector_add_f32")
    compiled = case.kernel.warmup(*wrap_case_args(case, case.args()), **case.constexprs, grid=case.grid)
    # The MSL is the emulator target's binary: Triton keeps binaries as bytes.
    assert b"kernel void add_kernel" in compiled.asm["msl"]
    assert "tt.func" in compiled.asm["ttir"]
    abi = compiled.metadata.tmetal_abi
    assert abi["threads_per_threadgroup"] == 4 * 32
    assert [p["name"] for p in abi["params"]] == ["x_ptr", "y_ptr", "out_ptr", "n_elements"]
    assert compiled.metadata.target.arch.startswith("emulator:")
