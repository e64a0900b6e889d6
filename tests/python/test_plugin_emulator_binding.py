"""triton_metal._core's emulator entry points on MSL written by hand to the
kernel ABI (tmetal/codegen/kernel_abi.h), independent of the code generator:
argument kinds, argument errors, kernel faults, and the GIL."""
from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

import triton_metal
from triton_metal import EmulatorError, LaunchError
from triton_metal._native import core
from triton_metal.check import CHECK_KERNEL_METADATA, CHECK_KERNEL_MSL

from conftest import require_stage

SPIN_MSL = r"""
#include <metal_stdlib>
using namespace metal;
kernel void spin(device float* x [[buffer(0)]], constant int& iterations [[buffer(1)]],
                 uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]]) {
  float acc = x[tid];
  for (int k = 0; k < iterations; ++k) acc = acc * 0.999999f + 0.5f;
  x[tid] = acc;
}
"""
SPIN_METADATA = dict(CHECK_KERNEL_METADATA, kernel="spin", threads_per_threadgroup=32, params=[
    {"name": "x", "pointer": True, "dtype": "f32", "binding": 0},
    {"name": "iterations", "pointer": False, "dtype": "i32", "binding": 1},
])


@pytest.fixture(scope="module")
def axpy():
    require_stage("emulator")
    return core().emulator_compile(CHECK_KERNEL_MSL, json.dumps(CHECK_KERNEL_METADATA))


def expected_axpy(n, a=2.0):
    return a * np.arange(n, dtype=np.float32) + 1.0


def test_numpy_array_is_updated_in_place(axpy):
    x = np.arange(100, dtype=np.float32)
    axpy.launch([x, 2.0, 100], [2])
    np.testing.assert_array_equal(x, expected_axpy(100))
    assert json.loads(axpy.metadata_json)["kernel"] == "tmetal_check_axpy"


def test_buffer_protocol_object(axpy):
    data = bytearray(np.arange(64, dtype=np.float32).tobytes())
    axpy.launch([data, 2.0, 64], (1, ))
    np.testing.assert_array_equal(np.frombuffer(data, np.float32), expected_axpy(64))


def test_host_tensor_and_views(axpy):
    base = np.arange(128, dtype=np.float32)
    axpy.launch([triton_metal.tensor(base[64:]), 2.0, 64], [1])
    np.testing.assert_array_equal(base[64:], 2.0 * np.arange(64, 128, dtype=np.float32) + 1.0)
    np.testing.assert_array_equal(base[:64], np.arange(64, dtype=np.float32))


class FakeTensor:
    """What the binding reads from a PyTorch tensor: data_ptr(), device and
    untyped_storage() (PyTorch is not installed in CI)."""

    class Storage:

        def __init__(self, array):
            self.array = array

        def data_ptr(self):
            return self.array.ctypes.data

        def nbytes(self):
            return self.array.nbytes

    class Device:

        def __init__(self, type):
            self.type = type

    def __init__(self, array, offset=0, device="cpu"):
        self.array, self.offset, self.device = array, offset, self.Device(device)

    def data_ptr(self):
        return self.array.ctypes.data + self.offset * self.array.itemsize

    def untyped_storage(self):
        return self.Storage(self.array)


def test_data_ptr_objects_like_torch_cpu_tensors(axpy):
    x = np.arange(100, dtype=np.float32)
    axpy.launch([FakeTensor(x), 2.0, 100], [2])
    np.testing.assert_array_equal(x, expected_axpy(100))


def test_tensor_on_another_device_is_refused(axpy):
    with pytest.raises(LaunchError, match="a tensor on device 'mps'; the emulator runs kernels on host"):
        axpy.launch([FakeTensor(np.zeros(4, np.float32), device="mps"), 1.0, 4], [1])


@pytest.mark.parametrize("args, message", [
    ([np.zeros(4, np.float32), 1.0], "takes 3 arguments, got 2"),
    ([np.zeros(4, np.float32), "one", 4], r"argument 1 \('a'\): expected a number"),
    ([np.zeros(4, np.float32), 1.0, 2**31], r"argument 2 \('n'\): 2147483648 does not fit in i32"),
    ([np.zeros(4, np.float32), 1.0, 2.5], "expected an integer"),
    ([np.zeros(8, np.float32)[::2], 1.0, 4], "not a writable contiguous buffer"),
    ([b"read-only", 1.0, 1], "not a writable contiguous buffer"),
    ([7, 1.0, 1], "expected a buffer for pointer parameter of f32"),
])
def test_bad_arguments_are_launch_errors(axpy, args, message):
    with pytest.raises(LaunchError, match=message):
        axpy.launch(args, [1])


def test_bad_grid(axpy):
    with pytest.raises(LaunchError, match="the grid has 1 to 3 dimensions"):
        axpy.launch([np.zeros(4, np.float32), 1.0, 4], [1, 1, 1, 1])


@pytest.mark.parametrize("grid, message", [
    ([2**31], r"grid \(2147483648, 1, 1\): 2147483648 programs along x, more than the 2147483647 that "
              r"tt.get_program_id \(a 32-bit integer\) can number"),
    ([1, 2**40], r"grid \(1, 1099511627776, 1\): 1099511627776 programs along y"),
    ([-1], r"grid \(-1, 1, 1\) has a negative size"),
])
def test_grids_beyond_32_bit_program_ids_are_launch_errors(axpy, grid, message):
    with pytest.raises(LaunchError, match=message):
        axpy.launch([np.zeros(4, np.float32), 1.0, 4], grid)


def test_empty_grid_runs_nothing(axpy):
    x = np.zeros(4, np.float32)
    axpy.launch([x, 1.0, 4], [0, 1, 1])
    assert not x.any()


def test_out_of_bounds_access_is_an_emulator_error_in_sanitize_mode():
    require_stage("emulator")
    sanitized = core().emulator_compile(CHECK_KERNEL_MSL, json.dumps(CHECK_KERNEL_METADATA), sanitize=True)
    x = np.zeros(100, np.float32)
    with pytest.raises(EmulatorError, match="out-of-bounds .* buffer 'x'"):
        sanitized.launch([x, 1.0, 1000], [16])


def test_bad_msl_is_a_compile_error():
    require_stage("emulator")
    with pytest.raises(triton_metal.CompileError):
        core().emulator_compile("kernel void tmetal_check_axpy( this is not MSL", json.dumps(CHECK_KERNEL_METADATA))


def test_bad_metadata_is_a_compile_error():
    require_stage("emulator")
    with pytest.raises(triton_metal.CompileError, match="bad kernel metadata"):
        core().emulator_compile(CHECK_KERNEL_MSL, "{}")
    with pytest.raises(triton_metal.CompileError, match="not JSON"):
        core().emulator_compile(CHECK_KERNEL_MSL, "{")


@pytest.mark.parametrize("key, value, message", [
    # 2**32 + 64 used to wrap to 64 and compile.
    ("threads_per_threadgroup", 2**32 + 64, r"'threads_per_threadgroup' must be an integer from 0 to 2147483647, "
                                            r"got 4294967360"),
    ("threads_per_threadgroup", 64.5, r"'threads_per_threadgroup' must be an integer from 0 to 2147483647, got 64.5"),
    ("simd_width", -1, r"'simd_width' must be an integer from 0 to 2147483647, got -1"),
    ("threadgroup_memory_bytes", 2**64 - 1, r"'threadgroup_memory_bytes' must be an integer from 0 to "
                                            r"9223372036854775807, got 18446744073709551615"),
])
def test_metadata_integers_out_of_range_are_compile_errors(key, value, message):
    require_stage("emulator")
    metadata = json.loads(json.dumps(CHECK_KERNEL_METADATA))
    metadata[key] = value
    with pytest.raises(triton_metal.CompileError, match="bad kernel metadata: " + message):
        core().emulator_compile(CHECK_KERNEL_MSL, json.dumps(metadata))


def test_gil_is_released_while_a_kernel_runs():
    require_stage("emulator")
    spin = core().emulator_compile(SPIN_MSL, json.dumps(SPIN_METADATA))
    x = np.ones(32, np.float32)
    spin.launch([x, 10, ], [1])  # warm: loaded
    window = {}

    def run():
        window["start"] = time.perf_counter()
        spin.launch([x, 20_000_000], [1])
        window["end"] = time.perf_counter()

    worker = threading.Thread(target=run)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)  # needs the GIL back to return
    worker.join()
    start, end = window["start"], window["end"]
    assert end - start > 0.1, f"the kernel ran too briefly ({end - start:.3f}s) to tell"
    margin = 0.02
    during = [t for t in ticks if start + margin < t < end - margin]
    # With the GIL held, this thread could not run at all during the kernel.
    assert len(during) > 10, f"{len(during)} iterations of the Python thread while the kernel ran {end - start:.3f}s"
