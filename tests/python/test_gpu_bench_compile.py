"""bench/gpu_bench.py's compile step without a GPU: the threadgroups per core
it passes reach `tmetal compile`, 0 (the planner's stages) included, which
declares no minimum instead of leaving the CUDA target its own choice for
loops of loads (docs/codegen.md, "Registers for loops of loads").

The binary is $TMETAL_BIN, else build/bin/tmetal (what scripts/test.sh builds).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "bench"))

import gpu_bench  # noqa: E402

# An 8x128 float32 accumulator and 8 halves a trip: 64 registers a thread,
# 8 blocks of 128 threads.
LOOP_KERNEL = REPO_ROOT / "tests" / "ttir" / "row_sum_loop_f16.ttir"


def tmetal_binary() -> Path:
    path = Path(os.environ.get("TMETAL_BIN", REPO_ROOT / "build" / "bin" / "tmetal"))
    if not path.is_file():
        pytest.fail(f"tmetal binary not found at {path}; build it first (scripts/setup.sh) or set TMETAL_BIN")
    return path


@pytest.fixture
def cli(tmp_path):
    return gpu_bench.TmetalCli(str(tmetal_binary()), tmp_path, "h100")


def signature(source: str) -> str:
    return next(line for line in source.splitlines() if "__global__" in line)


def test_unset_leaves_tmetal_its_choice_for_loops_of_loads(cli):
    compiled = cli.compile(LOOP_KERNEL)
    assert "__launch_bounds__(128, 8) row_sum_loop_kernel(" in signature(compiled.source)
    assert "// __launch_bounds__ minimum 8 blocks: the loop at tests/kernels/reductions.py:400:" in compiled.source
    assert compiled.path.name == "row_sum_loop_f16.coalesced.w4.cu"


@pytest.mark.parametrize("minimum,bounds", [(0, "__launch_bounds__(128)"), (2, "__launch_bounds__(128, 2)")])
def test_a_given_minimum_wins_zero_included(cli, minimum, bounds):
    compiled = cli.compile(LOOP_KERNEL, min_threadgroups_per_core=minimum)
    assert f"{bounds} row_sum_loop_kernel(" in signature(compiled.source)
    assert "__launch_bounds__ minimum" not in compiled.source
    assert compiled.path.name == f"row_sum_loop_f16.coalesced.w4.m{minimum}.cu"


def test_a_negative_minimum_is_refused_by_the_command_line():
    r = subprocess.run([str(tmetal_binary()), "compile", str(LOOP_KERNEL), "--target", "cuda",
                        "--min-threadgroups-per-core", "-1"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "--min-threadgroups-per-core" in r.stderr
