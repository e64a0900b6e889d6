"""Host-side pieces of the plugin: the NumPy tensor wrapper, the launch plan
(which launch arguments become kernel parameters), benchmarking through the
emulator driver, and `python -m triton_metal.check`."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import triton
import triton.language as tl
from triton._C.libtriton import native_specialize_impl
from triton.backends.compiler import BaseBackend

import triton_metal
from triton_metal import LaunchError
from triton_metal.launch_plan import LaunchPlan

from conftest import REPO_ROOT, require_stage


def abi(*params):
    return {"params": [{"name": n, "pointer": p, "dtype": d, "binding": i} for i, (n, p, d) in enumerate(params)]}


# ---- HostTensor ----------------------------------------------------------------


def test_host_tensor_is_specialized_like_a_device_tensor():
    x = triton_metal.tensor(np.zeros(64, np.float32))
    assert native_specialize_impl(BaseBackend, x, False, True, True) == ("*fp32", "D")
    bf16 = triton_metal.tensor(np.zeros(8, np.uint16), tl.bfloat16)
    assert native_specialize_impl(BaseBackend, bf16, False, True, True)[0] == "*bf16"
    assert native_specialize_impl(BaseBackend, triton_metal.tensor(np.zeros(4, np.int64)), False, True,
                                  True)[0] == "*i64"


def test_host_tensor_wraps_without_copying():
    a = np.arange(10, dtype=np.float32)
    t = triton_metal.tensor(a)
    assert t.numpy() is a and t.data_ptr() == a.ctypes.data
    assert t.nbytes == 40 and t.shape == (10, ) and t.numel() == 10 and t.element_size() == 4
    view = triton_metal.tensor(a[4:])
    assert view.data_ptr() == a.ctypes.data + 16 and view.nbytes == 24  # to the end of the allocation
    assert triton_metal.tensor(np.zeros((3, 4), np.float32)).stride() == (4, 1)


def test_host_tensor_rejections():
    with pytest.raises(TypeError, match="wraps a numpy.ndarray"):
        triton_metal.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="bfloat16 data must be stored as uint16"):
        triton_metal.tensor(np.zeros(4, np.float32), tl.bfloat16)
    read_only = np.zeros(4, np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        triton_metal.tensor(read_only)


def test_bare_numpy_arrays_are_rejected_by_triton_itself():
    # Why triton_metal.tensor exists: Triton's specializer needs data_ptr().
    with pytest.raises(TypeError, match="failed to specialize argument of type: numpy.ndarray"):
        native_specialize_impl(BaseBackend, np.zeros(4, np.float32), False, True, True)


# ---- launch plans ---------------------------------------------------------------


def test_plan_skips_constexprs_and_flattens_tuples():
    signature = {"x": "*fp32", "BLOCK": "constexpr", "pair": ("i32", "constexpr", "*fp16"), "n": "i32"}
    plan = LaunchPlan(signature, abi(("x", True, "f32"), ("p0", False, "i32"), ("p2", True, "f16"),
                                     ("n", False, "i32")), "k")
    args = ("X", 128, (7, None, "H"), 5)
    assert plan.select(args) == ["X", 7, "H", 5]


def test_plan_rejects_a_mismatching_kernel():
    with pytest.raises(LaunchError, match="2 runtime arguments but the compiled kernel takes 1"):
        LaunchPlan({"x": "*fp32", "n": "i32"}, abi(("x", True, "f32")), "k")
    with pytest.raises(LaunchError, match="'n' is i32 in Triton's signature but a pointer"):
        LaunchPlan({"x": "*fp32", "n": "i32"}, abi(("x", True, "f32"), ("n", True, "i32")), "k")


# ---- benchmarking on the emulator driver ---------------------------------------------


def test_do_bench_times_host_work(emulator_driver):
    import time

    def sleep_1ms():
        time.sleep(0.001)

    mean_ms = triton.testing.do_bench(sleep_1ms, warmup=5, rep=20)
    assert 0.9 < mean_ms < 50
    quantiles = triton.testing.do_bench(sleep_1ms, warmup=5, rep=20, quantiles=[0.2, 0.5, 0.8])
    assert len(quantiles) == 3 and quantiles[0] <= quantiles[1] <= quantiles[2]


def test_host_events():
    from triton_metal.emulator_driver import HostDeviceInterface
    start, end = HostDeviceInterface.Event(enable_timing=True), HostDeviceInterface.Event(enable_timing=True)
    start.record()
    end.record()
    assert start.elapsed_time(end) >= 0
    with pytest.raises(RuntimeError, match="both events recorded"):
        HostDeviceInterface.Event().elapsed_time(end)


# ---- the check command ------------------------------------------------------------


def test_check_command_reports_every_line():
    done = subprocess.run([sys.executable, "-m", "triton_metal.check"], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=300)
    lines = done.stdout.splitlines()
    for name in ("OS", "chip", "Metal", "Metal compiler", "PyTorch", "Triton", "plugin", "C++ core",
                 "hardware profile", "emulator", "Triton kernel", "device"):
        assert any(line.startswith(("[PASS] " + name + ":", "[FAIL] " + name + ":", "[INFO] " + name + ":"))
                   for line in lines), f"no line for {name}:\n{done.stdout}"
    for i, line in enumerate(lines):
        if line.startswith("[FAIL]"):
            assert lines[i + 1].startswith("       fix: "), f"a failure without a fix:\n{done.stdout}"
    assert "[PASS] Triton: 3.6" in done.stdout
    assert "[PASS] plugin: Triton backend 'metal'" in done.stdout
    from triton_metal._native import capabilities
    can_run = all(capabilities().values())
    assert done.returncode == (0 if can_run else 1), done.stdout + done.stderr


def test_check_emulator_line_passes_when_the_emulator_is_built():
    require_stage("emulator")
    from triton_metal.check import PASS, check_emulator
    result = check_emulator()
    assert result.status == PASS, result.detail
