"""Checks every suite reference against Triton's own CPU interpreter.

This proves that the NumPy references (and the kernels) are right before any
tmetal backend is checked against them. The interpreter needs
TRITON_INTERPRET=1 before the kernels are imported, so all cases run in one
child process (interpret.py), once per session; each case is then its own
test. Triton 3.6's interpreter is driven with NumPy arrays through a small
tensor adapter (see interpret.py), not PyTorch.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import suite

KERNELS_DIR = Path(__file__).resolve().parent
CASES = suite.all_cases()


@pytest.fixture(scope="module")
def interpreter_results(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("interpreter")
    env = dict(os.environ, TRITON_INTERPRET="1")
    proc = subprocess.run([sys.executable, str(KERNELS_DIR / "interpret.py"), str(out_dir)], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"interpret.py failed:\n{proc.stdout}\n{proc.stderr}"
    return out_dir


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_reference_matches_triton_interpreter(case, interpreter_results):
    error = interpreter_results / f"{case.name}.error"
    if error.exists():
        pytest.fail(f"Triton's interpreter failed on {case.name}:\n{error.read_text()}")
    got = np.load(interpreter_results / f"{case.name}.npz")
    expected = case.expected(case.args())
    problems = [suite.compare(case, name, got[name], expected[name], interpreter=True) for name in case.outputs]
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)


def test_suite_has_unique_names_and_valid_args():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))
    for case in CASES:
        args = case.args()
        assert case.outputs, case.name
        for name in case.outputs:
            assert isinstance(args[name], np.ndarray), f"{case.name}: output {name} is not an array"
        # Inputs must be deterministic: the TTIR and the references rely on it.
        again = case.args()
        for name, value in args.items():
            if isinstance(value, np.ndarray):
                assert np.array_equal(value, again[name]), f"{case.name}: {name} differs between calls"
            else:
                assert value == again[name]


def test_bf16_conversion_helpers():
    values = np.array([0.0, -0.0, 1.0, 1.00390625, 1.01171875, 65504.0, -3.3e38, np.inf, -np.inf], np.float32)
    bits = suite.f32_to_bf16_bits(values)
    # 1 + 2**-8 is a tie between 1 and 1 + 2**-7: to even gives 1.
    # 1 + 3 * 2**-8 is a tie between 1 + 2**-7 and 1 + 2**-6: to even gives 1 + 2**-6.
    assert bits.tolist() == [0x0000, 0x8000, 0x3F80, 0x3F80, 0x3F82, 0x4780, 0xFF78, 0x7F80, 0xFF80]
    assert np.isnan(suite.bf16_bits_to_f32(suite.f32_to_bf16_bits(np.array([np.nan], np.float32))))[0]
    assert np.array_equal(suite.bf16_bits_to_f32(bits[:3]), values[:3])
