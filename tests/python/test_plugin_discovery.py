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
