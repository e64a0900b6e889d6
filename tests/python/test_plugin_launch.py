"""Launches through `kernel[grid](...)` on the emulator: options reaching the
code generator, argument kinds, and errors at launch naming the kernel."""
from __future__ import annotations

import numpy as np
import pytest
import triton
import triton.language as tl

import triton_metal
from triton_metal import EmulatorError, LaunchError


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * scale, mask=mask)


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


@triton.jit
def unmasked_kernel(x_ptr, BLOCK: tl.constexpr):
    # Reads and writes BLOCK elements per program without a mask: out of
    # bounds when the buffer is shorter than the grid times BLOCK.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)


def decisions(compiled) -> dict:
    """The code generator's record of the options it compiled with."""
    return compiled.metadata.tmetal_abi["layouts"]


def run_row_max(**options):
    x = np.random.default_rng(1).standard_normal((8, 100)).astype(np.float32)
    out = np.zeros(8, np.float32)
    compiled = row_max_kernel[(8, )](triton_metal.tensor(x), triton_metal.tensor(out), 100, BLOCK=128, **options)
    np.testing.assert_array_equal(out, x.max(axis=1))
    return compiled


def test_launch_options_reach_the_code_generator(codegen_emulator):
    compiled = run_row_max(num_warps=2, layout="TILED", fast_math=True, hardware="m3-max")
    made = decisions(compiled)
    assert (made["num_warps"], made["policy"], made["fast_math"], made["hardware"]) == (2, "TILED", True, "m3-max")
    assert compiled.metadata.tmetal_abi["threads_per_threadgroup"] == 64
    default = decisions(run_row_max())
    assert (default["num_warps"], default["policy"], default["fast_math"]) == (4, "COALESCED", False)
    assert default["hardware"] == codegen_emulator.profile_id


@triton.jit
def negate_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, -tl.load(x_ptr + offs))


def test_environment_defaults_apply_to_kernels_compiled_after_they_are_set(codegen_emulator, monkeypatch):
    # Like Triton's own knobs, the variables are read when a kernel is
    # compiled; negate_kernel is launched nowhere else, so it compiles here.
    monkeypatch.setenv("TRITON_METAL_LAYOUT", "row_major")
    monkeypatch.setenv("TRITON_METAL_FAST_MATH", "1")
    x = np.arange(64, dtype=np.float32)
    made = decisions(negate_kernel[(1, )](triton_metal.tensor(x), BLOCK=64))
    assert (made["policy"], made["fast_math"]) == ("ROW_MAJOR", True)
    np.testing.assert_array_equal(x, -np.arange(64, dtype=np.float32))


def test_grid_lambda_and_scalar_float(codegen_emulator):
    n = 3000
    x = np.linspace(-1, 1, n, dtype=np.float32)
    out = np.zeros_like(x)
    scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]), )](triton_metal.tensor(x), triton_metal.tensor(out),
                                                                  n, 0.5, BLOCK=512)
    np.testing.assert_array_equal(out, x * np.float32(0.5))


class TorchLikeCpuTensor:
    """The part of a PyTorch CPU tensor that Triton and the emulator use
    (PyTorch is not installed in CI)."""

    class Storage:

        def __init__(self, array):
            self.array = array

        def data_ptr(self):
            return self.array.ctypes.data

        def nbytes(self):
            return self.array.nbytes

    class Device:
        type = "cpu"

        def __str__(self):
            return "cpu"

    def __init__(self, array):
        self.array, self.dtype, self.device = array, array.dtype, self.Device()

    def data_ptr(self):
        return self.array.ctypes.data

    def untyped_storage(self):
        return self.Storage(self.array)


def test_objects_with_data_ptr_are_tensors(codegen_emulator):
    x = np.arange(256, dtype=np.float32)
    out = np.zeros_like(x)
    scale_kernel[(1, )](TorchLikeCpuTensor(x), TorchLikeCpuTensor(out), 256, 2.0, BLOCK=256)
    np.testing.assert_array_equal(out, 2 * x)


def test_a_tensor_on_another_device_is_a_launch_error_naming_the_kernel(codegen_emulator):
    x = TorchLikeCpuTensor(np.zeros(256, np.float32))
    x.device = type("Device", (), {"type": "mps"})()
    with pytest.raises(LaunchError, match="device 'mps'") as info:
        scale_kernel[(1, )](x, x, 256, 2.0, BLOCK=256)
    assert info.value.kernel == "scale_kernel"
    assert "in Triton kernel 'scale_kernel'" in str(info.value)


def test_out_of_bounds_access_is_an_emulator_error_in_sanitize_mode(codegen_emulator, monkeypatch):
    monkeypatch.setenv("TMETAL_EMULATOR_SANITIZE", "1")
    x = np.zeros(100, np.float32)
    with pytest.raises(EmulatorError, match="out-of-bounds") as info:
        unmasked_kernel[(1, )](triton_metal.tensor(x), BLOCK=128)
    assert info.value.kernel == "unmasked_kernel"


def test_wrong_scalar_type_is_reported(codegen_emulator):
    x = np.zeros(256, np.float32)
    # Triton types a Python float scalar fp32; a string is not a kernel argument at all.
    with pytest.raises(Exception, match="str"):
        scale_kernel[(1, )](triton_metal.tensor(x), triton_metal.tensor(x), 256, "2", BLOCK=256)


@triton.jit
def two_dots_kernel(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    offs = i[:, None] * N + i[None, :]
    b = tl.load(b_ptr + offs)
    c = tl.dot(tl.load(a_ptr + offs), b)
    tl.store(out_ptr + offs, tl.dot(c, b))


def test_ops_past_the_threadgroup_memory_limit_reuse_earlier_ops_buffers(codegen_emulator):
    # Each dot of 64x64 float32 stages both operands, 16 KB each: the second
    # dot would take the kernel to 64 KB, past the 32 KB a threadgroup has,
    # so its operands reuse the first dot's memory (after a barrier).
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (64, 64)).astype(np.float32)
    b = rng.integers(-4, 5, (64, 64)).astype(np.float32)
    out = np.zeros((64, 64), np.float32)
    compiled = two_dots_kernel[(1, )](triton_metal.tensor(a), triton_metal.tensor(b), triton_metal.tensor(out), N=64)
    np.testing.assert_array_equal(out, (a @ b) @ b)  # small integers: exact in float32
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] == 32768
    buffers = decisions(compiled)["threadgroup_buffers"]
    assert [(b["bytes"], b.get("shares_memory_of")) for b in buffers] == [(16384, None), (16384, None),
                                                                         (0, "tg_dot_a"), (0, "tg_dot_b")]
