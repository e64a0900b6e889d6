"""Triton finds the plugin through its entry point, and the right driver
becomes active: Metal when available, the emulator when selected."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points

import pytest
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler.compiler import make_backend

import triton_metal
from triton_metal import compiler, device_selection, driver

from conftest import REPO_ROOT, require_stage


def run_python(code: str, **env_overrides) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != device_selection.ENV_DEVICE}
    env.update(env_overrides)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          cwd=REPO_ROOT, timeout=300)


def test_entry_point_is_registered():
    eps = {ep.name: ep.value for ep in entry_points().select(group="triton.backends")}
    assert eps.get("metal") == "triton_metal", (
        f"no `metal` entry point in group triton.backends ({eps}); run scripts/setup.sh or pip install .")


def test_triton_discovers_backend_and_driver():
    from triton.backends import backends
    assert "metal" in backends
    assert backends["metal"].compiler is compiler.MetalBackend
    assert backends["metal"].driver is driver.TmetalDriver


def test_make_backend_picks_metal_backend_for_metal_targets():
    backend = make_backend(GPUTarget("metal", "apple-generic", 32))
    assert isinstance(backend, compiler.MetalBackend)
    assert backend.binary_ext in ("msl", "metallib")
    emulator_backend = make_backend(compiler.make_target("m3-max", emulator=True))
    assert emulator_backend.profile_id == "m3-max" and emulator_backend.runs_on_emulator
    assert emulator_backend.binary_ext == "msl"
    assert not compiler.MetalBackend.supports_target(GPUTarget("cuda", 90, 32))


def test_emulator_selected_by_environment_variable():
    require_stage("emulator")
    done = run_python("""
        import triton
        d = triton.runtime.driver.active
        print(type(d).__name__, d.get_current_target())
    """, TRITON_METAL_DEVICE="emulator")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("EmulatorDriver GPUTarget(backend='metal', arch='emulator:"), done.stdout


@pytest.mark.skipif(sys.platform == "darwin", reason="Metal may be available on macOS")
def test_no_tmetal_driver_by_default_without_metal():
    done = run_python("""
        from triton_metal.driver import TmetalDriver
        print(TmetalDriver.is_active())
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.skipif(sys.platform == "darwin", reason="Metal may be available on macOS")
def test_requesting_metal_without_metal_says_why():
    done = run_python("""
        import triton
        from triton_metal import UnavailableError
        try:
            triton.runtime.driver.active
        except UnavailableError as e:
            print("UnavailableError:", e)
    """, TRITON_METAL_DEVICE="metal")
    assert done.returncode == 0, done.stderr
    assert "UnavailableError: the Metal driver cannot run here: Metal needs macOS" in done.stdout
    assert "TRITON_METAL_DEVICE=emulator" in done.stdout


def test_invalid_device_name_is_an_error():
    done = run_python("""
        from triton_metal import device_selection, UnavailableError
        try:
            device_selection.selected_device()
        except UnavailableError as e:
            print(e)
    """, TRITON_METAL_DEVICE="gpu")
    assert "TRITON_METAL_DEVICE='gpu' is not one of auto, metal, emulator" in done.stdout, done.stdout + done.stderr


def test_constructing_tmetal_driver_gives_the_selected_subclass(monkeypatch):
    require_stage("emulator")
    monkeypatch.setenv(device_selection.ENV_DEVICE, "emulator")
    made = driver.TmetalDriver()
    assert type(made) is triton_metal.EmulatorDriver
    assert made.get_current_target() == compiler.make_target(made.profile_id, emulator=True)


def test_set_active_emulator_driver(emulator_driver):
    from triton.runtime import driver as runtime_driver
    active = runtime_driver.active
    assert active is emulator_driver
    assert active.get_current_device() == 0 and active.get_current_stream(0) == 0
    target = active.get_current_target()
    assert target.backend == "metal" and target.warp_size == 32 and target.arch.startswith("emulator:")
    properties = active.utils.get_device_properties(0)
    assert properties["max_shared_mem"] == 32768 and properties["warpSize"] == 32
    assert active.map_python_to_cpp_type("*fp16") == "device half*"
    assert active.map_python_to_cpp_type("i64") == "long"
    assert active.get_benchmarker() is triton.testing.do_bench


def test_hardware_profile_follows_tmetal_hardware(monkeypatch):
    require_stage("emulator")
    monkeypatch.setenv("TMETAL_HARDWARE", "m3-max")
    made = triton_metal.EmulatorDriver()
    assert made.profile_id == "m3-max"
    assert made.get_current_target().arch == "emulator:m3-max"
    assert made.utils.get_device_properties(0)["multiprocessor_count"] == made.hardware_profile["gpu_cores"]


@triton.jit
def persistent_softmax_kernel(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    # Each program takes every num_programs-th row, as a grid sized from the
    # device's occupancy runs.
    cols = tl.arange(0, BLOCK)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=2):
        x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


def test_occupancy_arithmetic_written_for_nvidia_gives_threadgroups_by_threads(codegen_emulator):
    # Triton's fused-softmax tutorial sizes a persistent grid as
    # max_num_regs // (n_regs * warpSize * num_warps) programs a core: with
    # the nominal registers (driver.NOMINAL_REGISTERS_PER_THREAD) that is the
    # threadgroups a core keeps resident by thread count, never zero.
    import numpy as np
    properties = codegen_emulator.utils.get_device_properties(0)
    resident = codegen_emulator.hardware_profile["max_resident_threads_per_core"]
    assert properties["max_num_regs"] == resident > 0
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 100)).astype(np.float32)
    out = np.zeros_like(x)
    num_warps = 8
    kernel = persistent_softmax_kernel.warmup(triton_metal.tensor(out), triton_metal.tensor(x), 300, 100, BLOCK=128,
                                              num_warps=num_warps, grid=(1, ))
    kernel._init_handles()
    assert kernel.n_regs == driver.NOMINAL_REGISTERS_PER_THREAD
    occupancy = properties["max_num_regs"] // (kernel.n_regs * properties["warpSize"] * num_warps)
    assert occupancy == resident // (32 * num_warps)
    assert kernel.metadata.shared > 0  # the row maximum and sum combine 8 SIMD groups
    occupancy = min(occupancy, properties["max_shared_mem"] // kernel.metadata.shared)
    programs = min(properties["multiprocessor_count"] * occupancy, 300)
    assert 0 < programs < 300  # each program takes several rows
    kernel[(programs, 1, 1)](triton_metal.tensor(out), triton_metal.tensor(x), 300, 100, 128)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


TUTORIAL_LIKE = '''
import numpy as np
import triton
import triton.language as tl
import triton_metal


@triton.jit
def add_one_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) + 1, mask=offsets < n)


def add_one(x):
    y = np.zeros_like(x)
    add_one_kernel[(triton.cdiv(x.size, 64), )](triton_metal.tensor(x), triton_metal.tensor(y), x.size, BLOCK=64)
    return y


def test_add_one():
    x = np.arange(100, dtype=np.float32)
    np.testing.assert_array_equal(add_one(x), x + OFF_BY)


@triton.testing.perf_report([])
def benchmark():
    raise AssertionError("benchmarks are off")


if __name__ == "__main__":
    import sys
    x = np.arange(100, dtype=np.float32)
    assert sys.argv[1:] == ["--size", "100"], sys.argv
    np.testing.assert_array_equal(add_one(x), x + OFF_BY)
    print("tutorial checked on", type(triton.runtime.driver.active).__name__)
    benchmark.run(print_data=True)
'''


@pytest.mark.parametrize("off_by", [1, 2])
def test_triton_tutorials_script_runs_a_tutorial_and_its_tests_through_tmetal(codegen_emulator, tmp_path, off_by):
    # scripts/triton_tutorials.sh, on a file shaped like Triton's tutorials:
    # the checks of its __main__ (with its own arguments) on tmetal's driver,
    # its benchmark turned off; with --test its pytest tests. A wrong result
    # is a failing exit.
    tutorial = tmp_path / "01-add-one.py"
    tutorial.write_text(TUTORIAL_LIKE.replace("OFF_BY", str(off_by)))
    env = dict(os.environ, TRITON_METAL_DEVICE="emulator", PYTHON=sys.executable)
    script = str(REPO_ROOT / "scripts" / "triton_tutorials.sh")
    run = subprocess.run(["bash", script, str(tutorial), "--size", "100"], env=env, capture_output=True, text=True)
    test = subprocess.run(["bash", script, "--test", str(tutorial)], env=env, capture_output=True, text=True)
    if off_by == 1:
        assert run.returncode == 0, run.stderr
        assert run.stdout.splitlines() == ["tutorial checked on EmulatorDriver", "(benchmark skipped)"], run.stdout
        assert test.returncode == 0 and "1 passed" in test.stdout, test.stdout + test.stderr
    else:
        assert run.returncode == 1 and "Mismatched elements" in run.stderr, run.stderr
        assert test.returncode == 1 and "1 failed" in test.stdout, test.stdout + test.stderr
