"""The Metal driver's own logic, against a stand-in for PyTorch's MPS API
(no machine of this project has Metal or PyTorch). What is checked: how a
Triton launch becomes a torch.mps kernel call (threads, threadgroup size,
scalar casts, argument order), argument checks, and binary loading. Whether
real PyTorch accepts these calls is unverified."""
from __future__ import annotations

import sys
import types
from collections import namedtuple

import pytest

from triton_metal import LaunchError, UnavailableError, device_selection

ABI = {
    "kernel": "add_kernel", "threads_per_threadgroup": 128, "threadgroup_memory_bytes": 0,
    "params": [
        {"name": "x_ptr", "pointer": True, "dtype": "f32", "binding": 0},
        {"name": "out_ptr", "pointer": True, "dtype": "f16", "binding": 1},
        {"name": "n", "pointer": False, "dtype": "i32", "binding": 2},
        {"name": "scale", "pointer": False, "dtype": "f32", "binding": 3},
        {"name": "h", "pointer": False, "dtype": "f16", "binding": 4},
        {"name": "big", "pointer": False, "dtype": "i64", "binding": 5},
    ],
}
SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr", "scale": "fp32", "h": "fp16",
             "big": "i64"}


class FakeMpsTensor:

    class Device:
        type = "mps"

    device = Device()


class FakeKernel:

    def __init__(self):
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))


class FakeLibrary:

    def __init__(self, source):
        self.source = source
        self.add_kernel = FakeKernel()


@pytest.fixture
def fake_torch(monkeypatch):
    torch = types.ModuleType("torch")
    torch.__version__ = "2.7.0-fake"
    torch.backends = types.SimpleNamespace(mps=types.SimpleNamespace(is_available=lambda: True))
    torch.mps = types.SimpleNamespace(compile_shader=FakeLibrary, synchronize=lambda: None,
                                      Event=lambda enable_timing=True: ("event", enable_timing),
                                      device_count=lambda: 1)
    torch.device = lambda kind: f"device({kind})"
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(sys, "platform", "darwin")
    device_selection.metal_status.cache_clear()
    yield torch
    device_selection.metal_status.cache_clear()


def make_launcher():
    from triton_metal.metal_driver import MetalLauncher
    Source = namedtuple("Source", "signature")
    Meta = namedtuple("Meta", "name tmetal_abi")
    return MetalLauncher(Source(SIGNATURE), Meta("add_kernel", ABI))


def test_metal_is_selected_when_mps_is_there(fake_torch, monkeypatch):
    monkeypatch.delenv(device_selection.ENV_DEVICE, raising=False)
    assert device_selection.metal_status()[0]
    assert device_selection.selected_device() == "metal"


def test_launch_becomes_one_dispatch_of_whole_threadgroups(fake_torch):
    from triton_metal.metal_driver import MetalUtils
    launcher = make_launcher()
    _, program, _, _, max_threads = MetalUtils({"max_threads_per_threadgroup": 1024}).load_binary(
        "add_kernel", b"kernel void add_kernel() {}", 0, 0)
    assert program.library.source == "kernel void add_kernel() {}" and max_threads == 1024
    x, out = FakeMpsTensor(), FakeMpsTensor()
    launcher(5, 3, 2, 0, program, None, None, None, None, x, out, 1000, 256, 0.5, 1.5, 2**40)
    (args, kwargs), = program.library.add_kernel.calls
    assert args == (x, out, 1000, 0.5, 1.5, 2**40)  # the constexpr BLOCK=256 is not a kernel argument
    assert kwargs["threads"] == (5 * 128, 3, 2) and kwargs["group_size"] == (128, 1, 1)
    assert kwargs["arg_casts"] == {2: "int32", 4: "fp16"}  # f32 and i64 are PyTorch's defaults


def test_grids_beyond_32_bit_program_ids_are_refused(fake_torch):
    from triton_metal.metal_driver import MetalUtils
    launcher = make_launcher()
    _, program, _, _, _ = MetalUtils({"max_threads_per_threadgroup": 1024}).load_binary(
        "add_kernel", b"kernel void add_kernel() {}", 0, 0)
    with pytest.raises(LaunchError, match=r"kernel 'add_kernel': grid \(2147483648, 1, 1\): 2147483648 programs "
                       r"along x, more than the 2147483647 that tt.get_program_id \(a 32-bit integer\) can number"):
        launcher(2**31, 1, 1, 0, program, None, None, None, None, FakeMpsTensor(), FakeMpsTensor(), 4, 4, 1.0, 1.0, 1)
    assert not program.library.add_kernel.calls


def test_host_memory_is_refused(fake_torch):
    import numpy as np
    import triton_metal
    launcher = make_launcher()
    with pytest.raises(LaunchError, match="'x_ptr' must be a tensor on the 'mps' device"):
        launcher(1, 1, 1, 0, None, None, None, None, None, triton_metal.tensor(np.zeros(4, np.float32)),
                 FakeMpsTensor(), 4, 4, 1.0, 1.0, 1)


def test_metallib_needs_load_metallib(fake_torch):
    from triton_metal.metal_driver import MetalUtils
    with pytest.raises(UnavailableError, match="TRITON_METAL_METALLIB=0"):
        MetalUtils({"max_threads_per_threadgroup": 1024}).load_binary("k", b"MTLB\x01\x02", 0, 0)
    fake_torch.mps.load_metallib = lambda data: ("library from", data)
    _, program, *_ = MetalUtils({"max_threads_per_threadgroup": 1024}).load_binary("k", b"MTLB\x01\x02", 0, 0)
    assert program.library == ("library from", b"MTLB\x01\x02")


def test_fp64_scalars_cannot_reach_metal(fake_torch):
    from triton_metal.metal_driver import MetalLauncher
    Source = namedtuple("Source", "signature")
    Meta = namedtuple("Meta", "name tmetal_abi")
    abi = dict(ABI, params=[{"name": "d", "pointer": False, "dtype": "f64", "binding": 0}])
    with pytest.raises(LaunchError, match="of type f64 cannot be passed"):
        MetalLauncher(Source({"d": "fp64"}), Meta("k", abi))


def test_driver_pieces(fake_torch, monkeypatch):
    from triton_metal import _native
    _native.core()
    from triton_metal.metal_driver import MetalDriver, MpsDeviceInterface
    driver = MetalDriver()
    target = driver.get_current_target()
    assert target.backend == "metal" and not target.arch.startswith("emulator:")
    assert driver.get_active_torch_device() == "device(mps)"
    assert driver.get_device_interface() is MpsDeviceInterface
    assert MpsDeviceInterface.Event(enable_timing=True) == ("event", True)
