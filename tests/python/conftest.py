"""Shared set-up of the plugin tests (tests/python/test_plugin_*.py).

The plugin is imported from the source tree (scripts/setup.sh builds
triton_metal._core into python/triton_metal/ and registers the package in
.venv). Tests that need a pipeline stage the core was not built with skip
with the stage's name; everything else runs everywhere.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
# The kernel suite (tests/kernels/suite.py), imported as `suite` as its README asks.
sys.path.insert(0, str(REPO_ROOT / "tests" / "kernels"))
# The package from the source tree, also when the editable install is missing.
sys.path.insert(0, str(REPO_ROOT / "python"))

import triton  # noqa: E402
import triton_metal  # noqa: E402
from triton_metal import _native  # noqa: E402


def require_stage(stage: str):
    """Skips the calling test when triton_metal._core lacks `stage`; fails
    when the core itself cannot be imported (a build problem, not a stage
    that has not landed)."""
    _native.core()
    if not _native.capabilities().get(stage):
        pytest.skip(f"triton_metal._core was built without the {stage} stage (it has not landed in tmetal yet)")


@pytest.fixture
def emulator_driver():
    """Makes the emulator driver Triton's active driver for one test."""
    require_stage("emulator")
    from triton.runtime import driver
    previous = driver._active
    emulator = triton_metal.EmulatorDriver()
    driver.set_active(emulator)
    yield emulator
    driver._active = previous  # not reset_active(): on machines without Metal no default driver exists


@pytest.fixture
def codegen_emulator(emulator_driver):
    """The emulator driver, for tests that compile kernels to MSL."""
    require_stage("codegen")
    return emulator_driver


def wrap_case_args(case, args: dict) -> list:
    """A suite case's arguments as kernel arguments: arrays wrapped (no copy)
    as triton_metal tensors, bf16 arrays typed as bfloat16."""
    import numpy as np
    import triton.language as tl

    out = []
    for name, value in args.items():
        if isinstance(value, np.ndarray):
            out.append(triton_metal.tensor(value, tl.bfloat16 if name in case.bf16_args else None))
        else:
            out.append(value)
    return out
