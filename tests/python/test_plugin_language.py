"""Triton language features that Triton's own test suite (test_core.py) uses
and that everyday kernels rely on, through the real frontend and the emulator:
bool tensors in memory, i1 arithmetic, pointer casts, 16-bit float atomics,
`.item()` of a one-element tensor, `tl.assume`, values of untaken returns,
unsigned 64-bit scalars, a kernel called `kernel` (a keyword in MSL), and
`tl.device_assert` with Triton's `debug=True` overflow checks,
`tl.device_print` in Triton's output format, functions Triton keeps out of
line (`noinline=True`), loop options that Triton prints as attribute aliases
(`disable_licm`), and `tl.map_elementwise`.

Each check takes a `Device` (how arrays reach the kernel and come back), so
that test_plugin_cuda.py runs the same checks on an NVIDIA GPU. Results are
compared exactly with NumPy.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import contextlib
import inspect
import os
import re
import sys
import tempfile

import numpy as np
import pytest
import triton
import triton.language as tl

import triton_metal
from triton_metal import DeviceAssertionError, LaunchError


@dataclass(frozen=True)
class Device:
    put: Callable  # numpy array -> kernel argument
    put_bf16: Callable  # uint16 array of bfloat16 bits -> kernel argument
    get: Callable  # kernel argument -> numpy array
    get_bf16: Callable  # bfloat16 kernel argument -> uint16 array of its bits
    put_bits: Callable  # (uint array of bit patterns, Triton dtype) -> kernel argument (8-bit floats)
    get_bits: Callable  # kernel argument from put_bits -> its bits
    synchronize: Callable = lambda: None


EMULATOR = Device(put=triton_metal.tensor, put_bf16=lambda bits: triton_metal.tensor(bits, dtype=tl.bfloat16),
                  get=np.asarray, get_bf16=np.asarray,
                  put_bits=lambda bits, dtype: triton_metal.tensor(bits.copy(), dtype=dtype), get_bits=np.asarray)


def bf16_bits(values) -> np.ndarray:
    """bfloat16 bit patterns of float32 values that bfloat16 holds exactly."""
    bits = np.asarray(values, np.float32).view(np.uint32)
    assert not (bits & 0xFFFF).any(), "not exact in bfloat16"
    return (bits >> 16).astype(np.uint16)


def bf16_values(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


# ---- bool tensors and i1 arithmetic ----------------------------------------------


@triton.jit
def compare_kernel(z_ptr, x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=m) < tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def count_true_kernel(out_ptr, flags_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    flags = tl.load(flags_ptr + offs, mask=offs < n, other=False)
    tl.store(out_ptr, tl.sum(flags.to(tl.int32)))
    tl.store(out_ptr + 1, tl.sum(flags, dtype=tl.int1).to(tl.int32))  # i1 sum: the parity


def check_bool_tensors(device: Device):
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(100).astype(np.float32), rng.standard_normal(100).astype(np.float32)
    z = device.put(np.zeros(100, np.bool_))
    compare_kernel[(1, )](z, device.put(x), device.put(y), 100, BLOCK=128)
    device.synchronize()
    flags = device.get(z)
    np.testing.assert_array_equal(flags, x < y)

    for count in (77, 78):
        flags = np.zeros(100, np.bool_)
        flags[rng.permutation(100)[:count]] = True
        out = device.put(np.zeros(2, np.int32))
        count_true_kernel[(1, )](out, device.put(flags), 100, BLOCK=128)
        device.synchronize()
        np.testing.assert_array_equal(device.get(out), [count, count % 2])


@triton.jit
def i1_sum_kernel(out_ptr, init, IN: tl.constexpr, OUT: tl.constexpr):
    x = tl.full((32, 32), init, dtype=IN)
    tl.store(out_ptr, tl.sum(x, dtype=OUT).to(tl.int32))


def check_i1_sum_wraps(device: Device):
    # Triton's test_sum_dtype: 1024 ones summed as i1 wrap to 0; summed with
    # the default dtype (i32) they count.
    for in_dtype, out_dtype, expected in ((tl.int1, tl.int1, 0), (tl.int1, None, 1024), (tl.int8, tl.int8, 0)):
        out = device.put(np.full(1, -1, np.int32))
        i1_sum_kernel[(1, )](out, 1, IN=in_dtype, OUT=out_dtype)
        device.synchronize()
        assert device.get(out)[0] == expected, (in_dtype, out_dtype)


# ---- pointer casts ---------------------------------------------------------------


@triton.jit
def bits_kernel(out_ptr, x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    as_ints = x_ptr.to(tl.pointer_type(tl.int32), bitcast=True)
    tl.store(out_ptr + offs, tl.load(as_ints + offs) ^ 1)


def check_pointer_bitcast(device: Device):
    x = np.random.default_rng(4).standard_normal(64).astype(np.float32)
    out = device.put(np.zeros(64, np.int32))
    bits_kernel[(1, )](out, device.put(x), BLOCK=64)
    device.synchronize()
    np.testing.assert_array_equal(device.get(out), x.view(np.int32) ^ 1)


# ---- 16-bit float atomics ----------------------------------------------------------


@triton.jit
def scatter_add_kernel(out_ptr, x_ptr, n, NOUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.atomic_add(out_ptr + offs % NOUT, tl.load(x_ptr + offs, mask=m), mask=m)


@triton.jit
def cas_kernel(p, old_ptr, cmp, val, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    ty = p.dtype.element_ty
    old = tl.atomic_cas(p + offs, tl.full((BLOCK, ), cmp, ty), tl.full((BLOCK, ), val, ty))
    tl.store(old_ptr + offs, old)


def check_half_atomics(device: Device):
    # Neighbouring 16-bit elements share a 32-bit word: every program adds
    # into all of them at once. Every partial sum (at most 200) is exact in
    # bfloat16 too, so the order of the additions does not matter.
    x = (np.arange(1000) % 3 == 0).astype(np.float32)
    expected = np.array([x[i::5].sum() for i in range(5)], np.float32)
    out = device.put(np.zeros(5, np.float16))
    scatter_add_kernel[(8, )](out, device.put(x.astype(np.float16)), 1000, NOUT=5, BLOCK=128)
    device.synchronize()
    np.testing.assert_array_equal(device.get(out), expected.astype(np.float16))

    out = device.put_bf16(np.zeros(5, np.uint16))
    scatter_add_kernel[(8, )](out, device.put_bf16(bf16_bits(x)), 1000, NOUT=5, BLOCK=128)
    device.synchronize()
    np.testing.assert_array_equal(bf16_values(device.get_bf16(out)), expected)

    # Compare-and-swap of four of five halves: only those equal to 1 change;
    # the fifth, in the word of the fourth, is left alone.
    p = device.put(np.array([1, 2, 1, 3, 1], np.float16))
    old = device.put(np.zeros(4, np.float16))
    cas_kernel[(1, )](p, old, 1.0, 9.0, BLOCK=4)
    device.synchronize()
    np.testing.assert_array_equal(device.get(p), np.array([9, 2, 9, 3, 1], np.float16))
    np.testing.assert_array_equal(device.get(old), np.array([1, 2, 1, 3], np.float16))


# ---- .item(), a spin lock, tl.assume, untaken returns ------------------------------------


@triton.jit
def locked_add_kernel(data_ptr, lock_ptr, BLOCK: tl.constexpr):
    # Triton's test_atomic_cas: one program at a time in the critical section.
    zero = tl.full((1, ), 0, dtype=tl.int32).item()
    one = tl.full((1, ), 1, dtype=tl.int32).item()
    offs = tl.arange(0, BLOCK)
    while tl.atomic_cas(lock_ptr, zero, one) == 1:
        pass
    tl.store(data_ptr + offs, tl.load(data_ptr + offs) + 1.0)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, zero)


def check_item_and_spin_lock(device: Device):
    data = device.put(np.zeros(128, np.float32))
    lock = device.put(np.zeros(1, np.int32))
    # Enough programs at once that a lock without acquire and release
    # orders loses updates on a GPU (Triton's test uses 2000).
    locked_add_kernel[(2000, )](data, lock, BLOCK=128)
    device.synchronize()
    np.testing.assert_array_equal(device.get(data), np.full(128, 2000, np.float32))
    assert device.get(lock)[0] == 0


@triton.jit
def assume_kernel(out_ptr, N: tl.constexpr, BLOCK_N: tl.constexpr):
    remaining = N - tl.program_id(0) * BLOCK_N
    tl.assume(remaining >= BLOCK_N)
    tl.store(out_ptr + tl.program_id(0), remaining)


@triton.jit
def maybe_return(x):
    taken = False
    if taken:
        return x


@triton.jit
def poison_kernel(out_ptr):
    # The helper's result is undefined (ub.poison); only that it compiles
    # and stores something is Triton's contract.
    tl.store(out_ptr, maybe_return(7))
    tl.store(out_ptr + 1, 5)


def check_assume_and_poison(device: Device):
    out = device.put(np.zeros(8, np.int32))
    assume_kernel[(8, )](out, N=1024, BLOCK_N=128)
    device.synchronize()
    np.testing.assert_array_equal(device.get(out), 1024 - 128 * np.arange(8))
    out = device.put(np.full(2, -1, np.int32))
    poison_kernel[(1, )](out)
    device.synchronize()
    assert device.get(out)[1] == 5


# ---- names and scalars ----------------------------------------------------------------


@triton.jit
def kernel(x_ptr, value):  # "kernel" is a keyword of MSL
    tl.store(x_ptr, (value >> 32).to(tl.uint32))
    tl.store(x_ptr + 1, value.to(tl.uint32))


def check_kernel_named_kernel_and_u64(device: Device):
    x = device.put(np.zeros(2, np.uint32))
    compiled = kernel[(1, )](x, 2**64 - 1)  # Triton types it u64
    device.synchronize()
    np.testing.assert_array_equal(device.get(x), [0xFFFFFFFF, 0xFFFFFFFF])
    kernel[(1, )](x, 2**63 + 5)
    device.synchronize()
    np.testing.assert_array_equal(device.get(x), [0x80000000, 5])
    assert compiled.metadata.name == "kernel_entry"


# ---- tl.dot: 16-bit accumulators, bf16x3 precision -----------------------------------


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, OUT: tl.constexpr,
               PRECISION: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, out_dtype=OUT, input_precision=PRECISION))


def check_dot_accumulators(device: Device):
    # Small integers: every product and partial sum is exact in float16.
    rng = np.random.default_rng(5)
    a, b = rng.integers(-4, 5, (16, 32)), rng.integers(-4, 5, (32, 16))
    expected = a @ b
    c = device.put(np.zeros((16, 16), np.float16))
    dot_kernel[(1, )](device.put(a.astype(np.float16)), device.put(b.astype(np.float16)), c, M=16, N=16, K=32,
                      OUT=tl.float16, PRECISION="ieee")
    device.synchronize()
    np.testing.assert_array_equal(device.get(c), expected.astype(np.float16))
    for precision in ("bf16x3", "bf16x6"):  # computed in full fp32
        c = device.put(np.zeros((16, 16), np.float32))
        dot_kernel[(1, )](device.put(a.astype(np.float32)), device.put(b.astype(np.float32)), c, M=16, N=16, K=32,
                          OUT=tl.float32, PRECISION=precision)
        device.synchronize()
        np.testing.assert_array_equal(device.get(c), expected.astype(np.float32))


def check_dot_on_simdgroup_matrices(device: Device):
    # float16 dots multiply 8x8 SIMD-group matrices. 64x64x128: A and B
    # (34 KB with rows padded by 8) exceed a threadgroup's 32 KB, so K goes
    # in chunks of 64 rows, A staged K-outermost and loaded transposed; C's
    # registers are the tiles' own. 16x16 with 8 SIMD groups: four tiles,
    # four groups idle, so C goes through threadgroup memory.
    rng = np.random.default_rng(12)
    for m, n, k, warps, chunk, ab_elements in ((64, 64, 128, 4, 64, 64 * (72 + 72)),
                                               (16, 16, 16, 8, 16, 16 * 24 + 16 * 24)):
        staged_c = warps == 8
        a, b = rng.integers(-4, 5, (m, k)), rng.integers(-4, 5, (k, n))
        c = device.put(np.zeros((m, n), np.float32))
        compiled = dot_kernel[(1, )](device.put(a.astype(np.float16)), device.put(b.astype(np.float16)), c, M=m, N=n,
                                     K=k, OUT=tl.float32, PRECISION="ieee", num_warps=warps)
        device.synchronize()
        np.testing.assert_array_equal(device.get(c), (a @ b).astype(np.float32), err_msg=str((m, n, k)))
        buffers = compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]
        assert [(b["purpose"].split(" ")[0], b["elements"])
                for b in buffers] == [("dot_c", m * n)] * staged_c + [("dot_ab", ab_elements)], buffers
        (dot, ) = compiled.metadata.tmetal_abi["layouts"]["dots"]
        accumulator = "threadgroup memory" if staged_c else "registers"
        assert (dot["strategy"], dot["accumulator"], dot["k_chunk"]) == ("simdgroup_matrix", accumulator, chunk), dot


def check_attention_forward(device: Device):
    # The forward pass of Triton's fused-attention tutorial (the suite's
    # attention_forward_kernel): two dots a trip around an online softmax.
    from linalg import attention_forward_kernel, attention_reference
    rng = np.random.default_rng(13)
    seq, head = 128, 32
    q, k, v = (rng.standard_normal((1, seq, head)).astype(np.float16) for _ in range(3))
    out = device.put(np.zeros((1, seq, head), np.float32))
    scale = 1.0 / np.sqrt(head)
    compiled = attention_forward_kernel[(seq // 32, 1)](device.put(q), device.put(k), device.put(v), out, seq, scale,
                                                        BLOCK_M=32, BLOCK_N=32, HEAD=head)
    device.synchronize()
    # P is rounded to float16 before the second dot, as in the tutorial: about
    # 1e-4 off the float64 reference.
    np.testing.assert_allclose(device.get(out), attention_reference(q, k, v, scale), rtol=1e-3, atol=5e-4)
    assert [d["strategy"] for d in compiled.metadata.tmetal_abi["layouts"]["dots"]] == ["simdgroup_matrix"] * 2


def check_attention_block_shapes(device: Device):
    # Other blocks and warps: every SIMD group along the rows, C in the
    # tiles' registers; each dot alternates between two stagings where they
    # fit the threadgroup's 32 KB with the dots before it, else stages once
    # a trip (64x64 blocks of 64 wide heads: K^T's two, then V's one, whole,
    # P's tiles coming from registers; heads 128 wide: one each, P V in
    # chunks of K).
    from linalg import attention_forward_kernel, attention_reference
    rng = np.random.default_rng(15)
    seq = 128
    for block_m, block_n, head, warps, stagings, chunks in ((64, 64, 64, 4, [2, 1], [64, 64]),
                                                            (64, 32, 64, 8, [2, 2], [64, 32]),
                                                            (32, 64, 128, 4, [1, 1], [128, 32]),
                                                            (128, 32, 32, 4, [2, 2], [32, 32])):
        q, k, v = (rng.standard_normal((1, seq, head)).astype(np.float16) for _ in range(3))
        out = device.put(np.zeros((1, seq, head), np.float32))
        scale = 1.0 / np.sqrt(head)
        compiled = attention_forward_kernel[(seq // block_m, 1)](device.put(q), device.put(k), device.put(v), out, seq,
                                                                 scale, BLOCK_M=block_m, BLOCK_N=block_n, HEAD=head,
                                                                 num_warps=warps)
        device.synchronize()
        shape = (block_m, block_n, head, warps)
        np.testing.assert_allclose(device.get(out), attention_reference(q, k, v, scale), rtol=1e-3, atol=5e-4,
                                   err_msg=str(shape))
        dots = compiled.metadata.tmetal_abi["layouts"]["dots"]
        assert [(d["accumulator"], d["simd_groups"], d["staging_buffers"], d["k_chunk"]) for d in dots] == [
            ("registers", [warps, 1], n, chunk) for n, chunk in zip(stagings, chunks)], (shape, dots)
        if "msl" in compiled.asm and shape == (64, 64, 64, 4):
            # V's one staging needs no barrier before it: every thread has
            # passed K^T's staging barrier of the same trip, after its reads
            # of V in the trip before. Two barriers a trip.
            source = compiled.asm["msl"]
            source = source.decode() if isinstance(source, bytes) else source
            trip = source[source.index("for (int start = 0;"):]
            assert trip.count("threadgroup_barrier(") == 2, trip


def check_causal_attention_in_two_loops(device: Device):
    # The causal forward pass in the fused-attention tutorial's own block
    # (128x64 with 4 SIMD groups), heads 128 wide: the first loop's dots
    # hold 26 KB of the 32, the second loop's need 16 KB more and take
    # memory the first loop's are done with.
    from linalg import causal_attention_kernel, causal_attention_reference
    rng = np.random.default_rng(21)
    heads, seq, head = 2, 256, 128
    q, k, v = (rng.standard_normal((heads, seq, head)).astype(np.float16) for _ in range(3))
    out = device.put(np.zeros((heads, seq, head), np.float32))
    compiled = causal_attention_kernel[(seq // 128, heads)](device.put(q), device.put(k), device.put(v), out, seq,
                                                            0.5, BLOCK_M=128, BLOCK_N=64, HEAD=head)
    device.synchronize()
    # P is rounded to float16 before the second dot, as in the tutorial.
    np.testing.assert_allclose(device.get(out), causal_attention_reference(q, k, v, 0.5), rtol=1e-3, atol=1e-3)
    buffers = compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]
    assert any(b.get("shares_memory_of") for b in buffers), buffers


@triton.jit
def batched_dot_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb, rm, rn, rk = tl.arange(0, B), tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], tl.dot(a, b))


def check_batched_dot(device: Device):
    rng = np.random.default_rng(6)
    a, b = rng.integers(-4, 5, (4, 8, 16)), rng.integers(-4, 5, (4, 16, 32))
    c = device.put(np.zeros((4, 8, 32), np.float32))
    batched_dot_kernel[(1, )](device.put(a.astype(np.float16)), device.put(b.astype(np.float16)), c, B=4, M=8, N=32,
                              K=16)
    device.synchronize()
    np.testing.assert_array_equal(device.get(c), np.matmul(a, b).astype(np.float32))


# ---- returns inside if (cf.cond_br in Triton's TTIR) ---------------------------------------


@triton.jit
def early_exit_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:  # programs past the end leave at once
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


@triton.jit
def nested_returns_kernel(out_ptr, n, m, BLOCK: tl.constexpr):
    # After canonicalization two of the paths share one block (with a block
    # argument): the reader copies it into both.
    offs = tl.arange(0, BLOCK)
    if n > 0:
        if m > 0:
            tl.store(out_ptr + offs, tl.full((BLOCK, ), 1.0, tl.float32))
            return
        else:
            tl.store(out_ptr + offs, tl.full((BLOCK, ), 2.0, tl.float32))
    else:
        tl.store(out_ptr + offs, tl.full((BLOCK, ), 3.0, tl.float32))
        return
    tl.store(out_ptr + BLOCK + offs, tl.full((BLOCK, ), 4.0, tl.float32))


@triton.jit
def sign_step(x, y):
    if x > 0:
        return x + y
    return x - y


@triton.jit
def call_with_returns_kernel(out_ptr, x, y):
    # A helper returning values from inside an if: Triton inlines it, and its
    # private copy in the module is rebuilt the same way (an scf.if with
    # results).
    tl.store(out_ptr, sign_step(x, y))


def check_returns_inside_if(device: Device):
    for x, expected in ((5, 12), (-5, -12)):
        out = device.put(np.zeros(1, np.int32))
        call_with_returns_kernel[(1, )](out, x, 7)
        device.synchronize()
        assert device.get(out)[0] == expected, x
    x = device.put(np.zeros(256, np.int32))
    early_exit_kernel[(8, )](x, 200, BLOCK=32)  # programs 7.. return (6 fills 192..223)
    device.synchronize()
    np.testing.assert_array_equal(device.get(x), (np.arange(256) < 224).astype(np.int32))
    for n, m, first, second in ((5, 7, 1.0, 0.0), (5, 0, 2.0, 4.0), (0, 7, 3.0, 0.0)):
        out = device.put(np.zeros(64, np.float32))
        nested_returns_kernel[(1, )](out, n, m, BLOCK=32)
        device.synchronize()
        np.testing.assert_array_equal(device.get(out), np.repeat(np.float32([first, second]), 32), err_msg=str((n, m)))


@triton.jit
def reshaped_dot_kernel(x_ptr, y_ptr, z_ptr, RANK: tl.constexpr):
    # Triton's test_dot_multidim: the reshapes' staging holds the threadgroup
    # memory, so the dot's K chunks borrow it.
    x = tl.load(x_ptr + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    y = tl.load(y_ptr + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    tl.store(z_ptr + tl.arange(0, 256 << RANK), tl.dot(x, tl.trans(y)).reshape([256 << RANK]))


def check_dot_past_the_threadgroup_memory(device: Device):
    # float32 A (64x64) and B (64x128) take 48 KB, more than the 32 KB of a
    # threadgroup: the dot stages K in chunks. Triton's test_dot has such tiles.
    rng = np.random.default_rng(7)
    a, b = rng.integers(-4, 5, (64, 64)), rng.integers(-4, 5, (64, 128))
    c = device.put(np.zeros((64, 128), np.float32))
    compiled = dot_kernel[(1, )](device.put(a.astype(np.float32)), device.put(b.astype(np.float32)), c, M=64, N=128,
                                 K=64, OUT=tl.float32, PRECISION="ieee")
    device.synchronize()
    np.testing.assert_array_equal(device.get(c), (a @ b).astype(np.float32))
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] <= 32768
    # Batched: 2 x 32x128 and 2 x 128x32 float32 take 64 KB (Triton's test_dot_multidim has such tiles).
    a, b = rng.integers(-4, 5, (2, 32, 128)), rng.integers(-4, 5, (2, 128, 32))
    c = device.put(np.zeros((2, 32, 32), np.float32))
    compiled = batched_dot_kernel[(1, )](device.put(a.astype(np.float32)), device.put(b.astype(np.float32)), c, B=2,
                                         M=32, N=32, K=128)
    device.synchronize()
    np.testing.assert_array_equal(device.get(c), np.matmul(a, b).astype(np.float32))
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] <= 32768
    shape = (2, 2, 2, 2, 32, 32)
    x, y = rng.integers(-4, 5, shape), rng.integers(-4, 5, shape)
    z = device.put(np.zeros(shape, np.float32))
    compiled = reshaped_dot_kernel[(1, )](device.put(x.astype(np.float16)), device.put(y.astype(np.float16)), z, RANK=6)
    device.synchronize()
    np.testing.assert_array_equal(device.get(z), np.matmul(x, np.swapaxes(y, -1, -2)).astype(np.float32))
    buffers = compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]
    assert any(b["purpose"].startswith("dot_ab") and b.get("shares_memory_of") for b in buffers), buffers


@triton.jit
def strided_dot_kernel(x_ptr, y_ptr, z_ptr, stride_zm, stride_zn, M: tl.constexpr, N: tl.constexpr,
                       K: tl.constexpr):
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    x = tl.load(x_ptr + m[:, None] * K + k[None, :])
    y = tl.load(y_ptr + k[:, None] * N + n[None, :])
    tl.store(z_ptr + m[:, None] * stride_zm + n[None, :] * stride_zn, tl.dot(x, y))


@triton.jit
def strided_copy_kernel(x_ptr, z_ptr, stride_zm, stride_zn, M: tl.constexpr, N: tl.constexpr):
    m, n = tl.arange(0, M), tl.arange(0, N)
    tl.store(z_ptr + m[:, None] * stride_zm + n[None, :] * stride_zn, tl.load(x_ptr + m[:, None] * N + n[None, :]))


@triton.jit
def gathered_rows_dot_kernel(out_ptr, a_ptr, b_ptr, rows_ptr, K, M: tl.constexpr, N: tl.constexpr,
                             BLOCK_K: tl.constexpr):
    # Triton's test_indirect_matmul: rows of A and B gathered by index, the
    # product accumulated over K and stored transposed.
    rows_at = rows_ptr + tl.arange(0, BLOCK_K)
    acc = tl.zeros([M, N], tl.float32)
    for k in range(0, K, BLOCK_K):
        rows = tl.load(rows_at)
        a = tl.load(a_ptr + tl.arange(0, N)[None, :] + rows[:, None] * N)
        b = tl.load(b_ptr + tl.arange(0, M)[None, :] + rows[:, None] * M)
        acc = tl.dot(b.T, a, acc=acc)
        rows_at += BLOCK_K
    tl.store(out_ptr + tl.arange(0, M)[:, None] + tl.arange(0, N)[None, :] * M, acc)


def check_transposed_stores_within_the_threadgroup_memory(device: Device):
    # Triton's test_dot with a column-major output (its 'trans' epilogue):
    # C goes to the store's layout through threadgroup memory after the dot,
    # in the memory A and B were staged in (float32: 16 KB each, FMAs;
    # float16: 18 KB together, SIMD-group matrices; C is 16 KB of float32).
    rng = np.random.default_rng(11)
    a, b = rng.integers(-4, 5, (64, 64)), rng.integers(-4, 5, (64, 64))
    for dtype in (np.float32, np.float16):
        z = device.put(np.zeros((64, 64), np.float32))  # holds C transposed
        compiled = strided_dot_kernel[(1, )](device.put(a.astype(dtype)), device.put(b.astype(dtype)), z, 1, 64, M=64,
                                             N=64, K=64)
        device.synchronize()
        np.testing.assert_array_equal(device.get(z), (a @ b).T.astype(np.float32), err_msg=str(dtype))
        assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] <= 32768
        buffers = compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]
        assert any(b["purpose"].startswith("conversion") and b.get("shares_memory_of") for b in buffers), buffers
    # The loop's 128x64 float32 accumulator (32 KB, more than half the
    # threadgroup memory, beside the loop's 26 KB of dot staging; a dot's
    # result leaves its matrices through a staging of the whole tile) is
    # stored as it is, scattered.
    a, b = rng.integers(-3, 4, (256, 64)), rng.integers(-3, 4, (256, 128))
    out = device.put(np.zeros((64, 128), np.float32))
    compiled = gathered_rows_dot_kernel[(1, )](out, device.put(a.astype(np.float16)), device.put(b.astype(np.float16)),
                                               device.put(np.arange(256, dtype=np.int32)), 256, M=128, N=64, BLOCK_K=128)
    device.synchronize()
    np.testing.assert_array_equal(device.get(out), (b.T @ a).T.astype(np.float32))
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] <= 32768
    # Triton's test_permute: a 64x64 float32 tile transposed on its way to
    # memory converts through 16 KB, a 128x128 one (64 KB, twice a
    # threadgroup's memory) in two pieces of 32 KB, a 256x128 one (128 KB) in
    # four; a 512x128 one (256 KB) is stored from the load's layout as it is.
    for (rows, columns), staged in (((64, 64), True), ((128, 128), True), ((256, 128), True), ((512, 128), False)):
        x = rng.standard_normal((rows, columns)).astype(np.float32)
        z = device.put(np.zeros((columns, rows), np.float32))
        compiled = strided_copy_kernel[(1, )](device.put(x), z, 1, rows, M=rows, N=columns)
        device.synchronize()
        np.testing.assert_array_equal(device.get(z), x.T, err_msg=str(rows))
        assert bool(compiled.metadata.tmetal_abi["layouts"].get("conversions")) == staged, rows
        assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] <= 32768
        if rows in (128, 256):  # in pieces, each row swizzled as the whole tile's would be
            source = compiled.asm["msl"] if "msl" in compiled.asm else compiled.asm["cuda"]
            source = source.decode() if isinstance(source, bytes) else source
            assert f"conversion in {rows // 64} pieces" in source and "(rows swizzled as staged whole)" in source


@triton.jit
def subtiled_dot_kernel(a_ptr, b_ptr, c_ptr, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr):
    # Triton's test_simple_matmul with EPILOGUE_SUBTILE: the accumulator
    # split into two column halves before it is stored.
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    halves = tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1))
    left, right = tl.split(halves)
    columns = tl.arange(0, BN // 2)
    tl.store(c_ptr + rm[:, None] * BN + columns[None, :], left)
    tl.store(c_ptr + rm[:, None] * BN + BN // 2 + columns[None, :], right)


@triton.jit
def flattened_transpose_kernel(x_ptr, out_ptr, N: tl.constexpr):
    rows, columns = tl.arange(0, N), tl.arange(0, N)
    tile = tl.load(x_ptr + rows[:, None] * N + columns[None, :])
    k = tl.arange(0, N * N)
    tl.store(out_ptr + k, tl.reshape(tl.trans(tile), (N * N, )))


@triton.jit
def flattened_transposes_summed_kernel(x_ptr, out_ptr, trips, M: tl.constexpr, N: tl.constexpr):
    rows, columns = tl.arange(0, M), tl.arange(0, N)
    total = tl.zeros((M * N, ), dtype=tl.float32)
    for t in range(trips):
        tile = tl.load(x_ptr + t * M * N + rows[:, None] * N + columns[None, :])
        total += tl.reshape(tl.trans(tile), (M * N, ))
    tl.store(out_ptr + tl.arange(0, M * N), total)


def check_tiles_past_the_threadgroup_memory_in_pieces(device: Device):
    # A split, a reshape or a conversion whose tile is more than the
    # threadgroup memory left to it is staged in pieces of what is left: the
    # 128x128 float32 accumulator split beside the loop's dot staging (64 KB
    # against 16 KB left: four pieces; eight beside float16 matrices), a
    # transposed 128x128 tile flattened (two pieces); each had been refused.
    rng = np.random.default_rng(17)
    a, b = rng.integers(-4, 5, (128, 32)), rng.integers(-4, 5, (32, 128))
    for dtype in (np.float32, np.float16):
        c = device.put(np.zeros((128, 128), np.float32))
        compiled = subtiled_dot_kernel[(1, )](device.put(a.astype(dtype)), device.put(b.astype(dtype)), c, K=32,
                                              BM=128, BN=128, BK=16)
        device.synchronize()
        np.testing.assert_array_equal(device.get(c), (a @ b).astype(np.float32), err_msg=str(dtype))
        assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] <= 32768
        buffers = compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]
        assert any(b["purpose"].startswith("split") for b in buffers), buffers
        # The accumulator's rows are repeated over its threads (registers), so
        # each piece writes and reads just its own registers: no guards.
        source = compiled.asm.get("msl") or compiled.asm.get("cuda")
        source = source.decode() if isinstance(source, bytes) else source
        assert re.search(r"split in \d+ pieces", source) and not re.search(r">> \d+\) == \d+\)", source)
    x = rng.standard_normal((128, 128)).astype(np.float32)
    out = device.put(np.zeros(128 * 128, np.float32))
    compiled = flattened_transpose_kernel[(1, )](device.put(x), out, N=128)
    device.synchronize()
    np.testing.assert_array_equal(device.get(out), x.T.reshape(-1))
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] == 32768
    # The same in a loop, whose body is lowered twice (four trips at a time
    # and the rest): the second copy stages as the first did, in pieces, or
    # whole where the 32 KB fit the first (but not beside it).
    for rows, columns in ((128, 128), (64, 128)):
        x = rng.integers(-8, 9, (6, rows, columns)).astype(np.float32)
        out = device.put(np.zeros(rows * columns, np.float32))
        flattened_transposes_summed_kernel[(1, )](device.put(x), out, 6, M=rows, N=columns)
        device.synchronize()
        np.testing.assert_array_equal(device.get(out), x.transpose(0, 2, 1).sum(0).reshape(-1), err_msg=str(rows))


@triton.jit
def reshaped_blocks_dot_kernel(a_ptr, b_ptr, c_ptr, TRIPS: tl.constexpr):
    # Triton's test_tensor_descriptor_reshape_matmul: [2, 32, 64] blocks of A
    # and B loaded each trip and merged into 64x64 tiles.
    half, row, k = tl.arange(0, 2), tl.arange(0, 32), tl.arange(0, 64)
    acc = tl.zeros((64, 64), tl.float32)
    for trip in range(TRIPS):
        offsets = half[:, None, None] * (32 * 64 * TRIPS) + row[None, :, None] * (64 * TRIPS) + trip * 64 + k[None, None, :]
        a = tl.load(a_ptr + offsets).reshape(64, 64)
        b = tl.load(b_ptr + offsets).reshape(64, 64)
        acc = tl.dot(a, b.T, acc)
    m = tl.arange(0, 64)
    tl.store(c_ptr + m[:, None] * 64 + m[None, :], acc)


@triton.jit
def unit_dimension_blocks_dot_kernel(a_ptr, b_ptr, c_ptr, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                                     BK: tl.constexpr):
    # Triton's test_tensor_descriptor_batched_gemm_3d_tma: [1, BM, BK] blocks
    # reshaped to tiles, the result reshaped to [1, BM, BN] for its store.
    one = tl.arange(0, 1)[:, None, None]
    m, n, k = tl.arange(0, BM)[None, :, None], tl.arange(0, BN)[None, :, None], tl.arange(0, BK)[None, None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + one + m * K + k0 + k).reshape([BM, BK])
        b = tl.load(b_ptr + one + n * K + k0 + k).reshape([BN, BK])
        acc = tl.dot(a, b.T, acc)
    c = acc.to(tl.float16).reshape((1, BM, BN))
    tl.store(c_ptr + one + tl.arange(0, BM)[None, :, None] * BN + tl.arange(0, BN)[None, None, :], c)


def check_reshapes_merging_a_repeated_dimension(device: Device):
    # Merging the leading dimension of 2 (held only as repetitions) into the
    # rows keeps every register: no threadgroup memory for the reshapes, which
    # had left the loop's dot too little of it.
    rng = np.random.default_rng(5)
    a, b = rng.integers(-3, 4, (64, 128)), rng.integers(-3, 4, (64, 128))
    for dtype in (np.float16, np.float32):
        c = device.put(np.zeros((64, 64), np.float32))
        compiled = reshaped_blocks_dot_kernel[(1, )](device.put(a.astype(dtype)), device.put(b.astype(dtype)), c,
                                                     TRIPS=2)
        device.synchronize()
        np.testing.assert_array_equal(device.get(c), (a @ b.T).astype(np.float32), err_msg=str(dtype))
        buffers = compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]
        assert not any(b["purpose"].startswith("reshape") for b in buffers), buffers
    # Dimensions of extent 1 removed and inserted: no threadgroup memory
    # either (a 128x256 tile's reshape had asked for 64 KB).
    a, b = rng.integers(-2, 3, (64, 128)), rng.integers(-2, 3, (128, 128))
    c = device.put(np.zeros((1, 64, 128), np.float16))
    compiled = unit_dimension_blocks_dot_kernel[(1, )](device.put(a.astype(np.float16)),
                                                       device.put(b.astype(np.float16)), c, K=128, BM=64, BN=128, BK=64)
    device.synchronize()
    np.testing.assert_array_equal(device.get(c), (a @ b.T).astype(np.float16)[None])
    buffers = compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]
    assert not any(b["purpose"].startswith("reshape") for b in buffers), buffers


@triton.jit
def matmul_k_loop_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, STAGES: tl.constexpr = None):
    # Triton's tutorial matmul: pointer tensors carried through the K loop.
    pid = tl.program_id(0)
    pid_m, pid_n = pid % tl.cdiv(M, BLOCK_M), pid // tl.cdiv(M, BLOCK_M)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=STAGES):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc)


@triton.jit
def matmul_chased_k_kernel(a_ptr, b_ptr, c_ptr, jumps_ptr, K_TILES, BLOCK: tl.constexpr):
    # A's K tiles in the order a table gives: each trip loads the step to
    # the next tile (a pointer chase), so the trip after next's addresses
    # need this trip's load.
    rm = tl.arange(0, BLOCK)
    rk = tl.arange(0, BLOCK)
    a_ptrs = a_ptr + rm[:, None] * (K_TILES * BLOCK) + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BLOCK + rm[None, :]
    jump_ptrs = jumps_ptr + rm[:, None] * 0 + rk[None, :] * 0
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K_TILES):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += tl.load(jump_ptrs) * BLOCK
        b_ptrs += BLOCK * BLOCK
        jump_ptrs += 1
    tl.store(c_ptr + rm[:, None] * BLOCK + rk[None, :], acc)


@triton.jit
def gathered_k_loop_kernel(a_ptr, at_ptr, b_ptr, c_ptr, order_ptr, M, N, K, BLOCK_M: tl.constexpr,
                           BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, BOTH_WAYS: tl.constexpr):
    # C = A @ B with K visited in the order a table gives (a gather, as a
    # mixture of experts reads its tokens): each trip loads BLOCK_K indices
    # and expands them into a column to address rows of A^T and of B; with
    # BOTH_WAYS, into a row too, to address columns of A.
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    order_ptrs = order_ptr + tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = tl.load(order_ptrs)
        if BOTH_WAYS:
            a = tl.load(a_ptr + rm[:, None] * K + ks[None, :])
        else:
            a = tl.trans(tl.load(at_ptr + ks[:, None] * M + rm[None, :]))
        b = tl.load(b_ptr + ks[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
        order_ptrs += BLOCK_K
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def offset_k_loop_kernel(a_ptr, b_ptr, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # The K loop carries a scalar offset rather than pointer tensors: the
    # trip after next's addresses come from advancing a scalar twice.
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    offset = 0
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (offset + rk)[None, :])
        b = tl.load(b_ptr + (offset + rk)[:, None] * BLOCK_N + rn[None, :])
        acc = tl.dot(a, b, acc)
        offset += BLOCK_K
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)


@triton.jit
def matmul_column_blocks_kernel(a_ptr, b_ptr, c_ptr, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                BLOCK_K: tl.constexpr):
    # One program walks C's column blocks, a K loop in each: the K loop runs
    # again after it ends.
    rm, rn, rk = tl.arange(0, BLOCK_M), tl.arange(0, BLOCK_N), tl.arange(0, BLOCK_K)
    for n0 in range(0, N, BLOCK_N):
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + (n0 + rn)[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + (n0 + rn)[None, :], acc)


def check_offset_k_loop(device: Device):
    # A carried scalar offset addresses each trip's loads: 1-5 trips, one or
    # two trips ahead, exact.
    rng = np.random.default_rng(12)
    for K in (32, 64, 96, 160):
        for stages, trips in ((2, 1), (3, 2)):
            a, b = rng.integers(-3, 4, (32, K)), rng.integers(-3, 4, (K, 32))
            c = device.put(np.full((32, 32), 7, np.float32))
            compiled = offset_k_loop_kernel[(1, )](device.put(a.astype(np.float16)), device.put(b.astype(np.float16)),
                                                   c, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, num_stages=stages)
            device.synchronize()
            np.testing.assert_array_equal(device.get(c), (a @ b).astype(np.float32))
            loops = compiled.metadata.tmetal_abi["layouts"]["prefetching_loops"]
            assert [(loop["loads_ahead"], loop["trips_ahead"]) for loop in loops] == [(2, trips)], loops


def check_dot_loop_inside_a_loop(device: Device):
    # Three trips of K (odd): the K loop ends on the first of its two
    # stagings, where the next column block's first trip stages again, so a
    # barrier after the loop waits for the last trip's reads.
    rng = np.random.default_rng(14)
    M, N, K = 32, 96, 96
    a, b = rng.integers(-3, 4, (M, K)), rng.integers(-3, 4, (K, N))
    c = device.put(np.zeros((M, N), np.float32))
    compiled = matmul_column_blocks_kernel[(1, )](device.put(a.astype(np.float16)), device.put(b.astype(np.float16)),
                                                  c, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    device.synchronize()
    np.testing.assert_array_equal(device.get(c), (a @ b).astype(np.float32))
    (dot, ) = compiled.metadata.tmetal_abi["layouts"]["dots"]
    assert (dot["strategy"], dot["staging_buffers"]) == ("simdgroup_matrix", 2), dot
    source = compiled.asm["msl"] if "msl" in compiled.asm else compiled.asm["cuda"]
    source = source.decode() if isinstance(source, bytes) else source
    last_trip, after_loop = source.split("dot_trip ^= 1;")[1].split("\n")[1:3]
    assert last_trip.strip() == "}" and ("threadgroup_barrier(" in after_loop or "__syncthreads()" in after_loop), source


@triton.jit
def rounds_of_row_maxima_kernel(a_ptr, b_ptr, out_ptr, N, ROUNDS, M: tl.constexpr, BLOCK_N: tl.constexpr,
                                K: tl.constexpr):
    # A carried by the outer loop and read by the inner loop's dot, whose
    # rows are reduced (every SIMD group along the rows: A from registers).
    rm, rn, rk = tl.arange(0, M), tl.arange(0, BLOCK_N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    total = tl.zeros((M, ), dtype=tl.float32)
    for r in range(ROUNDS):
        for n0 in range(0, N, BLOCK_N):
            b = tl.load(b_ptr + rk[:, None] * N + (n0 + rn)[None, :])
            total += tl.max(tl.dot(a, b), axis=1)
        a = a + a
    tl.store(out_ptr + rm, total)


def check_dot_operand_carried_by_an_outer_loop(device: Device):
    # A's tiles are filled before the inner loop, once a round, not every
    # inner trip: B's product is the only one a trip begins.
    rng = np.random.default_rng(16)
    M, N, K, rounds = 32, 96, 32, 3
    a, b = rng.integers(-3, 4, (M, K)), rng.integers(-3, 4, (K, N))
    out = device.put(np.zeros(M, np.float32))
    compiled = rounds_of_row_maxima_kernel[(1, )](device.put(a.astype(np.float16)), device.put(b.astype(np.float16)),
                                                  out, N, rounds, M=M, BLOCK_N=32, K=K)
    device.synchronize()
    expected = sum(((a * 2**r) @ b).reshape(M, N // 32, 32).max(axis=2).sum(axis=1) for r in range(rounds))
    np.testing.assert_array_equal(device.get(out), expected.astype(np.float32))
    source = compiled.asm["msl"] if "msl" in compiled.asm else compiled.asm["cuda"]
    source = source.decode() if isinstance(source, bytes) else source
    fill = "tmetal_matrix_from_registers(dot_a_registers" if "msl" in compiled.asm else "].pair = tmetal_bitcast<uint>("
    inner = source.index("for (int n0 = 0;")
    assert source[inner:].count(fill) == 0 and source[:inner].count(fill) == 4, source


@triton.jit
def multiple_tests_kernel(x_ptr, y_ptr, out_ptr, rem_ptr, BLOCK: tl.constexpr):
    # Remainders by powers of two compared with zero (emitted as low bits),
    # of negative values too, and one remainder whose value is stored.
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    even = (x % 2 == 0).to(tl.int32)
    not_multiple_of_8 = (y % 8 != 0).to(tl.int32) * 2
    unsigned_multiple = ((x.to(tl.uint64, bitcast=True) % 4) == 0).to(tl.int32) * 4
    tl.store(out_ptr + i, even + not_multiple_of_8 + unsigned_multiple)
    tl.store(rem_ptr + i, y % 16)


def check_remainder_zero_tests(device: Device):
    n = 128
    x = (np.arange(n, dtype=np.int64) - 64) * 3
    y = (np.arange(n, dtype=np.int32) - 61) * 5
    out, rem = device.put(np.zeros(n, np.int32)), device.put(np.zeros(n, np.int32))
    compiled = multiple_tests_kernel[(1, )](device.put(x), device.put(y), out, rem, BLOCK=n)
    device.synchronize()
    want = (x % 2 == 0) + 2 * (np.fmod(y, 8) != 0) + 4 * (x.view(np.uint64) % 4 == 0)
    np.testing.assert_array_equal(device.get(out), want.astype(np.int32))
    np.testing.assert_array_equal(device.get(rem), np.fmod(y, 16))  # C's remainder: the dividend's sign
    source = compiled.asm["msl"] if "msl" in compiled.asm else compiled.asm["cuda"]
    source = source.decode() if isinstance(source, bytes) else source
    # The stored remainder stays one; the tested ones are low bits.
    body = source[source.rindex("multiple_tests_kernel("):]
    assert body.count(" % 16") == 1 and " % 8" not in body and " % 2" not in body and " % 4" not in body, body


@triton.jit
def wide_products_kernel(a_ptr, b_ptr, c_ptr, d_ptr, n, signed_ptr, unsigned_ptr, scalar_ptr, BLOCK: tl.constexpr):
    # Products of 32-bit integers extended to 64 bits: sign-extended int32,
    # zero-extended uint32 (both under a mask), and two scalars.
    i = tl.arange(0, BLOCK)
    mask = i < n
    a = tl.load(a_ptr + i, mask=mask, other=0)
    b = tl.load(b_ptr + i, mask=mask, other=0)
    c = tl.load(c_ptr + i, mask=mask, other=0)
    d = tl.load(d_ptr + i, mask=mask, other=0)
    tl.store(signed_ptr + i, a.to(tl.int64) * b.to(tl.int64), mask=mask)
    tl.store(unsigned_ptr + i, c.to(tl.uint64) * d.to(tl.uint64), mask=mask)
    pid = tl.program_id(0)
    tl.store(scalar_ptr, (pid - 2147483647).to(tl.int64) * (n + 2147483547).to(tl.int64))


def check_wide_products(device: Device):
    n, block = 100, 128
    edges = np.array([-2**31, 2**31 - 1, -1, 0, 1, -65536, 65536, 46341], np.int64)
    rng = np.random.default_rng(17)
    a = np.concatenate([edges, edges[::-1], rng.integers(-2**31, 2**31, n - 16)]).astype(np.int32)
    b = np.concatenate([edges, edges, rng.integers(-2**31, 2**31, n - 16)]).astype(np.int32)
    c = np.concatenate([[2**32 - 1, 2**31, 65536, 0], rng.integers(0, 2**32, n - 4)]).astype(np.uint32)
    d = np.concatenate([[2**32 - 1, 2**31, 65536, 7], rng.integers(0, 2**32, n - 4)]).astype(np.uint32)
    signed, unsigned = device.put(np.full(n, 5, np.int64)), device.put(np.full(n, 5, np.uint64))
    scalar = device.put(np.zeros(1, np.int64))
    compiled = wide_products_kernel[(1, )](device.put(a), device.put(b), device.put(c), device.put(d), n, signed,
                                           unsigned, scalar, BLOCK=block)
    device.synchronize()
    np.testing.assert_array_equal(device.get(signed), a.astype(np.int64) * b.astype(np.int64))
    np.testing.assert_array_equal(device.get(unsigned), c.astype(np.uint64) * d.astype(np.uint64))
    np.testing.assert_array_equal(device.get(scalar), [-2147483647 * (n + 2147483547)])
    source = compiled.asm["msl"] if "msl" in compiled.asm else compiled.asm["cuda"]
    source = source.decode() if isinstance(source, bytes) else source
    body = source[source.rindex("wide_products_kernel("):]
    # Each product multiplies the 32-bit values (one mul.wide on CUDA).
    if "msl" in compiled.asm:
        assert body.count(") * long(") == 3 and body.count(") * long(uint(d_") == 1, body
    else:
        assert body.count("tmetal_mul_wide(") == 2 and body.count("tmetal_mul_wide_unsigned(") == 1, body


@triton.jit
def masked_stores_kernel(x_ptr, i8_ptr, i16_ptr, i32_ptr, i64_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    # Eight elements a thread, each stored under the ragged mask of n: on
    # CUDA predicated stores of 1, 2, 4 and 8 bytes (and booleans as bytes).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(i8_ptr + offs, (x * 7).to(tl.int8), mask=mask)
    tl.store(i16_ptr + offs, (x * 5).to(tl.int16), mask=mask)
    tl.store(i32_ptr + offs, x * 3, mask=mask)
    tl.store(i64_ptr + offs, x.to(tl.int64) * 3000000007, mask=mask)
    tl.store(flag_ptr + offs, (x & 1) == 1, mask=mask)


def check_masked_stores_of_every_width(device: Device):
    n, block, programs = 1900, 1024, 2
    x = np.random.default_rng(23).integers(-2**31, 2**31, programs * block).astype(np.int32)
    fill = {np.int8: 0x5a, np.int16: 0x5a5a, np.int32: 0x5a5a5a5a, np.int64: 0x5a5a5a5a5a5a5a5a, np.bool_: True}
    outs = [device.put(np.full(programs * block, v, t)) for t, v in fill.items()]
    compiled = masked_stores_kernel[(programs, )](device.put(x), *outs, n, BLOCK=block)
    device.synchronize()
    xs = x[:n].astype(np.int64)
    wants = [(xs * 7).astype(np.int8), (xs * 5).astype(np.int16), (xs * 3).astype(np.int32),
             xs * 3000000007, (xs & 1) == 1]
    for out, want, (t, v) in zip(outs, wants, fill.items()):
        got = device.get(out)
        np.testing.assert_array_equal(got[:n], want, err_msg=str(t))
        np.testing.assert_array_equal(got[n:], np.full(programs * block - n, v, t), err_msg=str(t))  # untouched
    source = compiled.asm["msl"] if "msl" in compiled.asm else compiled.asm["cuda"]
    source = source.decode() if isinstance(source, bytes) else source
    body = source[source.rindex("masked_stores_kernel("):]
    if "cuda" in compiled.asm:
        assert body.count("tmetal_store_if(") == 5, body


@triton.jit
def transposed_pointers_kernel(x_ptr, y_ptr, S: tl.constexpr):
    r = tl.arange(0, S)
    pointers = tl.trans(x_ptr + r[:, None] * S + r[None, :])  # a pointer tensor changes layout
    tl.store(y_ptr + r[:, None] * S + r[None, :], tl.load(pointers))


def check_pointer_tensor_conversion(device: Device):
    x = np.arange(256, dtype=np.float32)
    y = device.put(np.zeros(256, np.float32))
    compiled = transposed_pointers_kernel[(1, )](device.put(x), y, S=16)
    device.synchronize()
    np.testing.assert_array_equal(device.get(y).reshape(16, 16), x.reshape(16, 16).T)
    # Threadgroup memory holds the pointers as 64-bit addresses; the loaded
    # values, read down the columns, go through it once more to be stored
    # along the rows (a transposed store takes the store's own layout).
    layouts = compiled.metadata.tmetal_abi["layouts"]
    assert [b["type"] for b in layouts["threadgroup_buffers"]] == ["ulong", "float"]
    assert layouts["conversions"][1]["to"].endswith("order=[1,0]}"), layouts["conversions"]


def check_matmul_k_loop(device: Device):
    # 64x64x64 tiles: the carried pointers live in the loads' layout, so the
    # loop converts nothing through threadgroup memory (which they would
    # overflow); the accumulator stays in the dot's SIMD-group matrices
    # through the loop, whose elements are its registers after it (no staging
    # of C: A's and B's is the only buffer). The loop's two loads issue two
    # trips ahead (Triton's default num_stages=3), one with num_stages=2
    # (the loop's `tl.range(..., num_stages=2)` or the launch's), none with
    # num_stages=1; 0-5 trips.
    rng = np.random.default_rng(9)
    M, N = 128, 128
    for K in (256, 0, 64, 128, 192, 320):
        a, b = rng.integers(-3, 4, (M, K)), rng.integers(-3, 4, (K, N))
        for stages, launch, trips in ((None, {}, [2]), (2, {}, [1]), (None, {"num_stages": 2}, [1]), (1, {}, []),
                                      (None, {"num_stages": 1}, [])):
            if K != 256 and trips != [2]:
                continue
            c = device.put(np.full((M, N), 7, np.float32))
            compiled = matmul_k_loop_kernel[(4, )](device.put(a.astype(np.float16)), device.put(b.astype(np.float16)),
                                                   c, M, N, K, K, N, N, BLOCK_M=64, BLOCK_N=64, BLOCK_K=64,
                                                   STAGES=stages, **launch)
            device.synchronize()
            np.testing.assert_array_equal(device.get(c), (a @ b).astype(np.float32))
            layouts = compiled.metadata.tmetal_abi["layouts"]
            assert [b["purpose"].split(" ")[0] for b in layouts["threadgroup_buffers"]] == ["dot_ab"], layouts
            loops = layouts.get("prefetching_loops", [])
            assert [(loop["loads_ahead"], loop["trips_ahead"]) for loop in loops] == [(2, t) for t in trips], \
                (stages, launch)
    # A pointer chase: the step to A's next tile is loaded, so the loop loads
    # one trip ahead, not two.
    block, tiles = 16, 5
    a, b = rng.integers(-3, 4, (block, tiles * block)), rng.integers(-3, 4, (tiles * block, block))
    order = [0, 3, 1, 4, 2]
    jumps = np.array([order[k + 1] - order[k] for k in range(tiles - 1)] + [0], np.int32)
    c = device.put(np.zeros((block, block), np.float32))
    compiled = matmul_chased_k_kernel[(1, )](device.put(a.astype(np.float16)), device.put(b.astype(np.float16)), c,
                                             device.put(jumps), tiles, BLOCK=block)
    device.synchronize()
    expected = sum(a[:, t * block:(t + 1) * block] @ b[k * block:(k + 1) * block] for k, t in enumerate(order))
    np.testing.assert_array_equal(device.get(c), expected.astype(np.float32))
    loops = compiled.metadata.tmetal_abi["layouts"].get("prefetching_loops", [])
    assert [(loop["loads_ahead"], loop["trips_ahead"]) for loop in loops] == [(3, 1)], loops
    # Gathered K: the table's pointers are carried in the layout the indices
    # are read in (a column), so that the loop converts no pointers and loads
    # its three loads two trips ahead; read both ways, they stay where they
    # were (converted each trip) and the loop plain; 1-3 trips.
    for K, both in ((32, False), (64, False), (96, False), (64, True)):
        order = rng.permutation(K).astype(np.int32)
        a, b = rng.integers(-3, 4, (32, K)), rng.integers(-3, 4, (K, 32))
        c = device.put(np.full((32, 32), 7, np.float32))
        compiled = gathered_k_loop_kernel[(1, )](device.put(a.astype(np.float16)),
                                                 device.put(np.ascontiguousarray(a.T).astype(np.float16)),
                                                 device.put(b.astype(np.float16)), c, device.put(order), 32, 32, K,
                                                 BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, BOTH_WAYS=both)
        device.synchronize()
        np.testing.assert_array_equal(device.get(c), (a @ b).astype(np.float32))
        layouts = compiled.metadata.tmetal_abi["layouts"]
        converted = [conversion["value"] for conversion in layouts.get("conversions", [])]
        loops = [(loop["loads_ahead"], loop["trips_ahead"]) for loop in layouts.get("prefetching_loops", [])]
        assert (any(name.startswith("order_ptrs") for name in converted), loops) == \
            ((True, []) if both else (False, [(3, 2)])), (converted, loops)
    # float32 operands take the FMA loop, which loads ahead alike: 1-4 trips.
    for K in (32, 64, 96, 128):
        a, b = rng.integers(-3, 4, (64, K)), rng.integers(-3, 4, (K, 64))
        c = device.put(np.full((64, 64), 7, np.float32))
        compiled = matmul_k_loop_kernel[(4, )](device.put(a.astype(np.float32)), device.put(b.astype(np.float32)), c,
                                               64, 64, K, K, 64, 64, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
        device.synchronize()
        np.testing.assert_array_equal(device.get(c), (a @ b).astype(np.float32))
        layouts = compiled.metadata.tmetal_abi["layouts"]
        assert [dot["strategy"] for dot in layouts["dots"]] == ["fma"], layouts["dots"]
        assert [loop["trips_ahead"] for loop in layouts["prefetching_loops"]] == [2], layouts["prefetching_loops"]


# ---- tl.histogram ----------------------------------------------------------------------


@triton.jit
def histogram_kernel(x_ptr, out_ptr, n, N: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


def check_histogram(device: Device):
    # Values outside [0, BINS) and masked-off elements count nowhere.
    x = np.random.default_rng(8).integers(-3, 20, 512).astype(np.int32)
    out = device.put(np.full(16, -1, np.int32))
    histogram_kernel[(1, )](device.put(x), out, 500, N=512, BINS=16)
    device.synchronize()
    np.testing.assert_array_equal(device.get(out), np.bincount(x[:500][(x[:500] >= 0) & (x[:500] < 16)], minlength=16))


# ---- tl.gather ---------------------------------------------------------------------------


@triton.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, AXIS: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                  IM: tl.constexpr, IN: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    idx = tl.load(idx_ptr + tl.arange(0, IM)[:, None] * IN + tl.arange(0, IN)[None, :])
    tl.store(out_ptr + tl.arange(0, IM)[:, None] * IN + tl.arange(0, IN)[None, :], tl.gather(src, idx, AXIS))


def check_gather(device: Device):
    rng = np.random.default_rng(9)
    src = rng.standard_normal((8, 16)).astype(np.float32)
    for axis, shape in ((0, (32, 16)), (1, (8, 4))):
        idx = rng.integers(0, src.shape[axis], shape).astype(np.int32)
        out = device.put(np.zeros(shape, np.float32))
        gather_kernel[(1, )](device.put(src), device.put(idx), out, AXIS=axis, M=8, N=16, IM=shape[0], IN=shape[1])
        device.synchronize()
        np.testing.assert_array_equal(device.get(out), np.take_along_axis(src, idx, axis), err_msg=f"axis {axis}")


# ---- host tensor descriptors -------------------------------------------------------------


@triton.jit
def descriptor_copy_kernel(in_desc, out_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Blocks partly past the edge: loads pad with zeros, stores are clipped.
    m, n = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    out_desc.store([m, n], in_desc.load([m, n]) * 2)


@triton.jit
def device_descriptor_copy_kernel(in_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # The descriptors made in the kernel (tl.make_tensor_descriptor), as
    # the fused-attention tutorial makes them where no TMA is at hand.
    in_desc = tl.make_tensor_descriptor(in_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    out_desc = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    m, n = tl.program_id(0) * BLOCK_M, tl.program_id(1) * BLOCK_N
    out_desc.store([m, n], in_desc.load([m, n]) * 2)


def check_device_tensor_descriptors(device: Device):
    x = np.arange(40 * 24, dtype=np.float32).reshape(40, 24)
    src, dst = device.put(x), device.put(np.full((40, 24), -1, np.float32))
    device_descriptor_copy_kernel[(3, 2)](src, dst, 40, 24, BLOCK_M=16, BLOCK_N=16)
    device.synchronize()
    np.testing.assert_array_equal(device.get(dst), 2 * x)


def check_host_tensor_descriptors(device: Device):
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = np.arange(40 * 24, dtype=np.float32).reshape(40, 24)
    src, dst = device.put(x), device.put(np.zeros((40, 24), np.float32))
    descriptor_copy_kernel[(3, 2)](TensorDescriptor(src, [40, 24], [24, 1], [16, 16]),
                                   TensorDescriptor(dst, [40, 24], [24, 1], [16, 16]), BLOCK_M=16, BLOCK_N=16)
    device.synchronize()
    np.testing.assert_array_equal(device.get(dst), 2 * x)


# ---- pointers stored as integers (grouped GEMM's pointer tables) --------------------------


@triton.jit
def pointer_table_kernel(table_ptr, out_ptr, BLOCK: tl.constexpr):
    group = tl.program_id(0)
    src = tl.load(table_ptr + group).to(tl.pointer_type(tl.float32))  # tt.int_to_ptr
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + group * BLOCK + offs, tl.load(src + offs))
    # and back: the address each program read from, as an integer
    tl.store(table_ptr + 2 + group, src.to(tl.int64))  # tt.ptr_to_int


def check_pointer_tables(device: Device):
    a, b = np.arange(64, dtype=np.float32), -np.arange(64, dtype=np.float32)
    ta, tb = device.put(a), device.put(b)
    table = device.put(np.array([ta.data_ptr(), tb.data_ptr(), 0, 0], np.int64))
    out = device.put(np.zeros(128, np.float32))
    pointer_table_kernel[(2, )](table, out, BLOCK=64)
    device.synchronize()
    np.testing.assert_array_equal(device.get(out), np.concatenate([a, b]))
    np.testing.assert_array_equal(device.get(table)[2:], [ta.data_ptr(), tb.data_ptr()])
    ttir = pointer_table_kernel.warmup(table, out, BLOCK=64, grid=(2, )).asm["ttir"]
    assert "tt.int_to_ptr" in ttir and "tt.ptr_to_int" in ttir


# ---- functions kept out of line ------------------------------------------------------


@triton.jit(noinline=True)
def store_scaled_sum(out_ptr, x_ptr, y_ptr, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, (tl.load(x_ptr + offs) + tl.load(y_ptr + offs)) * scale)


@triton.jit(noinline=True)
def sign_of_sum(x_ptr, BLOCK: tl.constexpr):
    if tl.sum(tl.load(x_ptr + tl.arange(0, BLOCK))) > 0:  # a return inside an if
        return 1.0
    return -1.0


@triton.jit(noinline=True)
def store_signed_sum(out_ptr, x_ptr, y_ptr, BLOCK: tl.constexpr):
    store_scaled_sum(out_ptr, x_ptr, y_ptr, sign_of_sum(x_ptr, BLOCK), BLOCK)


@triton.jit
def noinline_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    store_signed_sum(out_ptr, x_ptr, y_ptr, BLOCK)
    store_scaled_sum(out_ptr + BLOCK, x_ptr, y_ptr, 0.5, BLOCK)
    tl.store(out_ptr + 2 * BLOCK, sign_of_sum(y_ptr, BLOCK))


def check_noinline_calls(device: Device):
    rng = np.random.default_rng(11)
    for sign in (1.0, -1.0):
        x = (sign * np.abs(rng.standard_normal(64))).astype(np.float32)
        y = rng.standard_normal(64).astype(np.float32)
        out = device.put(np.zeros(129, np.float32))
        noinline_kernel[(1, )](device.put(x), device.put(y), out, BLOCK=64)
        device.synchronize()
        expected = np.concatenate([(x + y) * np.float32(sign), (x + y) * np.float32(0.5),
                                   [1.0 if y.sum(dtype=np.float32) > 0 else -1.0]])
        np.testing.assert_allclose(device.get(out), expected, rtol=0, atol=0)
    ttir = noinline_kernel.warmup(out, out, out, BLOCK=64, grid=(1, )).asm["ttir"]
    assert ttir.count("tt.call") >= 4, ttir  # Triton kept the functions out of line


# ---- device-side assertions ------------------------------------------------------


@triton.jit(debug=True)
def bounded_increment_kernel(x_ptr, y_ptr, n, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x < LIMIT, "x must stay below the limit")
    tl.store(y_ptr + offs, x + 1, mask=offs < n)


@triton.jit(debug=True)
def scalar_assert_kernel(x_ptr, COND: tl.constexpr, MASK: tl.constexpr):
    tl.device_assert(COND, "the scalar condition", mask=MASK)
    tl.store(x_ptr, 7)


@triton.jit(debug=True)
def checked_sums_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # debug=True puts overflow checks into the sums' combiners as well.
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr, tl.sum(x))
    tl.store(out_ptr + 1 + tl.arange(0, BLOCK), tl.cumsum(x))


@triton.jit
def add_kernel(x_ptr, y_ptr, z_ptr):
    tl.store(z_ptr, tl.load(x_ptr) + tl.load(y_ptr))


def source_line(fn, text: str) -> str:
    """'file:line' of the first line with `text` in a Triton function's
    source, the file by its base name: Triton's cache may hold the kernel as
    compiled from another checkout of the same source."""
    lines, first = inspect.getsourcelines(fn.fn)
    for i, line in enumerate(lines):
        if text in line:
            return f"{os.path.basename(inspect.getsourcefile(fn.fn))}:{first + i}"
    raise AssertionError(f"{text!r} is not in {fn.fn.__name__}")


def check_device_assertions(device: Device):
    x = np.arange(300, dtype=np.int32)
    y = device.put(np.zeros(300, np.int32))
    bounded_increment_kernel[(3, )](device.put(x), y, 300, LIMIT=1000, BLOCK=128)
    device.synchronize()
    np.testing.assert_array_equal(device.get(y), x + 1)

    # One element fails: element [30] of program 2.
    x[256 + 30] = 5000
    where = re.escape(source_line(bounded_increment_kernel, "tl.device_assert"))
    with pytest.raises(DeviceAssertionError,
                       match=rf"^\S*{where}:\d+: error: device-side assertion failed: x must stay below the limit "
                       rf"\(program \(2, 0, 0\), thread \d+, element \[30\]\)\n  in Triton kernel "
                       r"'bounded_increment_kernel'$") as caught:
        bounded_increment_kernel[(3, )](device.put(x), y, 300, LIMIT=1000, BLOCK=128)
        device.synchronize()
    assert isinstance(caught.value, RuntimeError) and "device-side assert" in str(caught.value)  # as Triton's
    assert caught.value.reason == "x must stay below the limit"
    assert caught.value.kernel == "bounded_increment_kernel"

    # Scalar conditions, and Triton's mask: a masked-off assertion never fails.
    for cond, mask, fails in ((True, None, False), (False, None, True), (False, True, True), (False, False, False)):
        out = device.put(np.zeros(1, np.int32))
        if fails:
            with pytest.raises(DeviceAssertionError,
                               match=r"device-side assertion failed: the scalar condition \(program \(0, 0, 0\), "
                               r"thread \d+\)"):
                scalar_assert_kernel[(1, )](out, cond, mask)
                device.synchronize()
        else:
            scalar_assert_kernel[(1, )](out, cond, mask)
            device.synchronize()
            assert device.get(out)[0] == 7

    # Reductions and scans whose combiners assert.
    x = np.arange(256, dtype=np.int32) * 1000
    out = device.put(np.zeros(257, np.int32))
    checked_sums_kernel[(1, )](device.put(x), out, BLOCK=256)
    device.synchronize()
    np.testing.assert_array_equal(device.get(out), np.concatenate([[x.sum()], np.cumsum(x)]).astype(np.int32))
    x = np.full(256, 2**29, np.int32)
    with pytest.raises(DeviceAssertionError, match=r"int32 overflow detected for operation add"):
        checked_sums_kernel[(1, )](device.put(x), out, BLOCK=256)
        device.synchronize()

    # debug=True adds Triton's integer overflow checks, which are assertions too.
    for a, b, dtype, overflows in ((2**31 - 1, 1, np.int32, True), (-2**31, -1, np.int32, True),
                                   (-2**15, -1, np.int16, True), (-2**31, 0, np.int32, False), (40, 2, np.int16, False)):
        z = device.put(np.zeros(1, dtype))
        launch = lambda: add_kernel[(1, )](device.put(np.array([a], dtype)), device.put(np.array([b], dtype)), z,
                                           debug=True)
        if overflows:
            with pytest.raises(DeviceAssertionError, match=rf"{np.dtype(dtype).name} overflow detected for operation add"):
                launch()
                device.synchronize()
        else:
            launch()
            device.synchronize()
            assert device.get(z)[0] == a + b


# ---- tl.map_elementwise ----------------------------------------------------------------


@triton.jit
def compare(x, y):
    if x < y:  # returns inside ifs: the region has several blocks
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def divmod_scalar(a, b):
    return a // b, a % b


@triton.jit
def min_max_pairs(a0, a1, b0, b1):
    return tl.minimum(a0, b0), tl.minimum(a1, b1), tl.maximum(a0, b0), tl.maximum(a1, b1)


@triton.jit
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@triton.jit
def map_elementwise_kernel(x_ptr, y_ptr, cmp_ptr, div_ptr, mod_ptr, lo_ptr, hi_ptr, selu_ptr, alpha,
                           BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x, y = tl.load(x_ptr + offs), tl.load(y_ptr + offs)
    tl.store(cmp_ptr + offs, tl.map_elementwise(compare, x, y))
    q, r = tl.map_elementwise(divmod_scalar, x, y)
    tl.store(div_ptr + offs, q)
    tl.store(mod_ptr + offs, r)
    lo, hi = tl.map_elementwise(min_max_pairs, x, y, pack=2)
    tl.store(lo_ptr + offs, lo)
    tl.store(hi_ptr + offs, hi)
    tl.store(selu_ptr + offs, tl.map_elementwise(selu_scalar, (x - 20).to(tl.float32), alpha))


def check_map_elementwise(device: Device):
    rng = np.random.default_rng(5)
    n = 512
    x = rng.integers(1, 40, n).astype(np.int32)
    y = rng.integers(1, 40, n).astype(np.int32)
    outs = [device.put(np.zeros(n, np.int32)) for _ in range(5)] + [device.put(np.zeros(n, np.float32))]
    map_elementwise_kernel[(4, )](device.put(x), device.put(y), *outs, 0.5, BLOCK=128)
    device.synchronize()
    cmp, div, mod, lo, hi, selu = (device.get(o) for o in outs)
    np.testing.assert_array_equal(cmp, np.sign(x - y))
    np.testing.assert_array_equal(div, x // y)
    np.testing.assert_array_equal(mod, x % y)
    np.testing.assert_array_equal(lo, np.minimum(x, y))
    np.testing.assert_array_equal(hi, np.maximum(x, y))
    z = (x - 20).astype(np.float32)
    np.testing.assert_allclose(selu, np.where(z > 0, z, np.float32(0.5) * (np.exp(z) - 1)), rtol=2e-6, atol=1e-7)


# ---- loop options that Triton prints as attribute aliases ---------------------------------


@triton.jit
def loop_options_kernel(x_ptr, out_ptr, n):
    acc = 0
    for i in tl.range(0, n, disable_licm=True):
        acc += tl.load(x_ptr + i)
    for i in tl.range(0, n, loop_unroll_factor=2, flatten=True, disallow_acc_multi_buffer=True, num_stages=2):
        acc += 2 * tl.load(x_ptr + i)
    i = 0
    while tl.condition(i < n, disable_licm=True):
        acc += 1
        i += 1
    tl.store(out_ptr, acc)


def check_loop_options(device: Device):
    x = np.arange(37, dtype=np.int32) * 3
    out = device.put(np.zeros(1, np.int32))
    loop_options_kernel[(1, )](device.put(x), out, 37)
    device.synchronize()
    assert device.get(out)[0] == 3 * x.sum() + 37
    ttir = loop_options_kernel.warmup(out, out, 37, grid=(1, )).asm["ttir"]
    assert "#loop_annotation = #llvm.loop_annotation" in ttir


# ---- device_print ---------------------------------------------------------------------


@contextlib.contextmanager
def printed_lines():
    """What the process writes to its stdout file descriptor meanwhile (the
    runtimes print as C code does, below Python's sys.stdout), as a list of lines."""
    lines = []
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        try:
            yield lines
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            sink.seek(0)
            lines.extend(sink.read().decode().splitlines())


@triton.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr, HEX: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("x: ", x, hex=HEX)


@triton.jit
def print_2d_and_scalars_kernel(x_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.device_print("", x, x * 0 + tl.program_id(0))  # two operands
    print("x:", tl.load(x_ptr))  # a scalar: every thread prints it
    print("no arg")


def check_device_print(device: Device):
    # Triton's format on NVIDIA GPUs (its test_subprocess.py checks the same lines).
    cases = [(np.arange(128, dtype=np.int32) - 3, False, lambda i, v: f"{v}"),
             (np.arange(128, dtype=np.float16), False, lambda i, v: f"{v:.6f}"),
             (np.arange(128, dtype=np.uint8) + 128, False, lambda i, v: f"{v}"),
             (np.arange(128, dtype=np.int16) - 1, True, lambda i, v: f"0x{int(v) & 0xffff:04x}")]
    for values, hex_, text in cases:
        with printed_lines() as lines:
            print_kernel[(1, )](device.put(values), BLOCK=128, HEX=hex_)
            device.synchronize()
        assert sorted(lines) == sorted(f"pid (0, 0, 0) idx ({i:3}) x: {text(i, v)}" for i, v in enumerate(values))

    with printed_lines() as lines:
        print_2d_and_scalars_kernel[(2, )](device.put(np.array([42], np.int32)), M=4, N=32, num_warps=2)
        device.synchronize()
    expected = [f"pid ({p}, 0, 0) idx ({i}, {j:2}): (operand 0) {i * 32 + j}" for p in range(2) for i in range(4)
                for j in range(32)]
    expected += [f"pid ({p}, 0, 0) idx ({i}, {j:2}): (operand 1) {p}" for p in range(2) for i in range(4)
                 for j in range(32)]
    expected += [f"pid ({p}, 0, 0) idx () x: 42" for p in range(2)] * 64  # 64 threads a program
    expected += [f"pid ({p}, 0, 0) no arg" for p in range(2)] * 64
    assert sorted(lines) == sorted(expected)


CHECKS = {
    "tiles_past_the_threadgroup_memory_in_pieces": check_tiles_past_the_threadgroup_memory_in_pieces,
    "pointer_tensor_conversion": check_pointer_tensor_conversion,
    "matmul_k_loop": check_matmul_k_loop,
    "offset_k_loop": check_offset_k_loop,
    "dot_loop_inside_a_loop": check_dot_loop_inside_a_loop,
    "dot_operand_carried_by_an_outer_loop": check_dot_operand_carried_by_an_outer_loop,
    "remainder_zero_tests": check_remainder_zero_tests,
    "wide_products": check_wide_products,
    "masked_stores_of_every_width": check_masked_stores_of_every_width,
    "map_elementwise": check_map_elementwise,
    "loop_options": check_loop_options,
    "device_print": check_device_print,
    "noinline_calls": check_noinline_calls,
    "device_assertions": check_device_assertions,
    "pointer_tables": check_pointer_tables,
    "host_tensor_descriptors": check_host_tensor_descriptors,
    "device_tensor_descriptors": check_device_tensor_descriptors,
    "gather": check_gather,
    "histogram": check_histogram,
    "dot_past_the_threadgroup_memory": check_dot_past_the_threadgroup_memory,
    "transposed_stores_within_the_threadgroup_memory": check_transposed_stores_within_the_threadgroup_memory,
    "reshapes_merging_a_repeated_dimension": check_reshapes_merging_a_repeated_dimension,
    "returns_inside_if": check_returns_inside_if,
    "batched_dot": check_batched_dot,
    "dot_accumulators": check_dot_accumulators,
    "dot_on_simdgroup_matrices": check_dot_on_simdgroup_matrices,
    "attention_forward": check_attention_forward,
    "attention_block_shapes": check_attention_block_shapes,
    "causal_attention_in_two_loops": check_causal_attention_in_two_loops,
    "bool_tensors": check_bool_tensors,
    "i1_sum_wraps": check_i1_sum_wraps,
    "pointer_bitcast": check_pointer_bitcast,
    "half_atomics": check_half_atomics,
    "item_and_spin_lock": check_item_and_spin_lock,
    "assume_and_poison": check_assume_and_poison,
    "kernel_named_kernel_and_u64": check_kernel_named_kernel_and_u64,
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_language_feature_on_the_emulator(codegen_emulator, name):
    CHECKS[name](EMULATOR)


def test_errors_about_a_renamed_entry_name_the_triton_kernel(codegen_emulator):
    from test_plugin_launch import TorchLikeCpuTensor
    x = TorchLikeCpuTensor(np.zeros(2, np.uint32))
    x.device = type("Device", (), {"type": "mps"})()
    with pytest.raises(LaunchError, match=r"in Triton kernel 'kernel'") as caught:
        kernel[(1, )](x, 2**40)
    assert caught.value.kernel == "kernel"
    assert isinstance(caught.value, ValueError)  # as Triton's own launchers raise


def test_generated_source_spells_the_new_constructs(codegen_emulator):
    msl = kernel.warmup(triton_metal.tensor(np.zeros(2, np.uint32)), 2**40, grid=(1, )).asm["msl"]
    msl = msl.decode() if isinstance(msl, bytes) else msl
    assert "kernel void kernel_entry(" in msl
    compiled = bits_kernel.warmup(triton_metal.tensor(np.zeros(64, np.int32)),
                                  triton_metal.tensor(np.zeros(64, np.float32)), BLOCK=64, grid=(1, ))
    msl = compiled.asm["msl"]
    msl = msl.decode() if isinstance(msl, bytes) else msl
    assert "reinterpret_cast<device int*>(x_ptr)" in msl
    # acq_rel (Triton's default) is a device fence on each side of the
    # relaxed atomic; the debug barrier orders device memory too.
    compiled = locked_add_kernel.warmup(triton_metal.tensor(np.zeros(128, np.float32)),
                                        triton_metal.tensor(np.zeros(1, np.int32)), BLOCK=128, grid=(1, ))
    msl = compiled.asm["msl"]
    msl = msl.decode() if isinstance(msl, bytes) else msl
    fence = "atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst);"
    assert msl.count(fence) == 4, msl  # the compare-and-swap and the exchange
    assert "threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);" in msl
