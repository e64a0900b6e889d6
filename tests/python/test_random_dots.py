"""Randomized matrix products through the real Triton frontend and the emulator.

Each case is a `tl.dot` of an MxK by a KxN block, accumulated over one to
three K blocks in a loop (the staging buffers are then reused across trips),
of random power-of-two extents, half the time with only a random part of A
and B loaded (the rest masked off as zeros), in float32, float16 or
bfloat16 (float32 accumulators) or int8 (int32 accumulators), compiled with a random layout
policy and SIMD-group count, and checked exactly against NumPy: the inputs
are small integers, so every product and sum is exact.

As test_random_reductions.py: a fixed seed, TMETAL_RANDOM_DOTS=N cases
(default 24), TMETAL_RANDOM_DOTS_SEED for another set; test_plugin_cuda.py
runs the same cases on an NVIDIA GPU.
"""
from __future__ import annotations

import os
import random
import zlib

import numpy as np
import pytest
import triton
import triton.language as tl

import triton_metal

POLICIES = ["COALESCED", "ROW_MAJOR", "COLUMN_MAJOR", "TILED", "DEFAULT"]
# bfloat16 inputs travel as their bits (NumPy has no bfloat16): float32 bits' high half.
DTYPES = {"float32": (np.float32, np.float32), "float16": (np.float16, np.float32), "bfloat16": (np.uint16, np.float32),
          "int8": (np.int8, np.int32)}
EXTENTS = [16, 32, 64]
# A and B staged in threadgroup memory must fit its 32 KB.
THREADGROUP_BYTES = 32 * 1024


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, m, n, k, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               K_BLOCKS: tl.constexpr, INTEGER: tl.constexpr):
    rm = tl.arange(0, M)[:, None]
    rn = tl.arange(0, N)[None, :]
    rk = tl.arange(0, K)
    if INTEGER:
        acc = tl.zeros((M, N), dtype=tl.int32)
    else:
        acc = tl.zeros((M, N), dtype=tl.float32)
    for block in range(K_BLOCKS):
        a_cols = block * K + rk[None, :]
        b_rows = block * K + rk[:, None]
        # Elements past (m, n, k) are masked off and read as 0.
        a = tl.load(a_ptr + rm * (K * K_BLOCKS) + a_cols, mask=(rm < m) & (a_cols < k), other=0)
        b = tl.load(b_ptr + b_rows * N + rn, mask=(b_rows < k) & (rn < n), other=0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm * N + rn, acc)


def _fits(m, n, k, dtype) -> bool:
    size = np.dtype(DTYPES[dtype][0]).itemsize
    return (m * k + k * n) * size <= THREADGROUP_BYTES


def _cases():
    count = int(os.environ.get("TMETAL_RANDOM_DOTS", "24"))
    rng = random.Random(int(os.environ.get("TMETAL_RANDOM_DOTS_SEED", "2026")))
    cases = []
    while len(cases) < count:
        m, n, k = (rng.choice(EXTENTS) for _ in range(3))
        dtype = list(DTYPES)[len(cases) % len(DTYPES)]  # each type as often
        if not _fits(m, n, k, dtype):
            continue
        k_blocks = rng.choice([1, 1, 2, 3])
        full = (m, n, k * k_blocks)
        # Half the cases read a random part of A and B, the rest all of them.
        real = tuple(rng.randint(1, e) for e in full) if rng.random() < 0.5 else full
        cases.append(((m, n, k), k_blocks, dtype, rng.choice(POLICIES), rng.choice([1, 2, 4, 8]), real))
    return cases


CASES = _cases()


def _case_id(case):
    (m, n, k), k_blocks, dtype, policy, num_warps, real = case
    masked = "" if real == (m, n, k * k_blocks) else "-real" + "x".join(map(str, real))
    return f"{m}x{n}x{k}x{k_blocks}{masked}-{dtype}-{policy.lower()}-w{num_warps}"


def run_case(case, to_device=triton_metal.tensor, to_host=np.asarray, synchronize=lambda: None,
             bfloat16_to_device=lambda bits: triton_metal.tensor(bits, tl.bfloat16)) -> None:
    """Runs one case and checks it against NumPy (device hooks as in
    test_random_reductions.run_case; `bfloat16_to_device` takes the bits)."""
    (m, n, k), k_blocks, dtype, policy, num_warps, real = case
    element, accumulator = DTYPES[dtype]
    rng = np.random.default_rng(zlib.crc32(_case_id(case).encode()))
    depth = k * k_blocks
    a = rng.integers(-4, 5, size=(m, depth))
    b = rng.integers(-4, 5, size=(depth, n))
    rm, rn, rk = real
    expected = a[:rm, :rk] @ b[:rk, :rn]
    expected = np.pad(expected, ((0, m - rm), (0, n - rn))).astype(accumulator)
    if dtype == "bfloat16":  # small integers: exact in bfloat16
        put = lambda x: bfloat16_to_device((x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16))
    else:
        put = lambda x: to_device(x.astype(element))
    c = to_device(np.zeros((m, n), accumulator))
    dot_kernel[(1, )](put(a), put(b), c, *real, M=m, N=n, K=k, K_BLOCKS=k_blocks,
                      INTEGER=dtype == "int8", num_warps=num_warps, layout=policy)
    synchronize()
    np.testing.assert_array_equal(to_host(c), expected, err_msg=_case_id(case))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_random_dot_matches_numpy(codegen_emulator, case):
    run_case(case)
