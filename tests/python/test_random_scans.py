"""Randomized scans through the real Triton frontend and the emulator.

Each case is one `tl.cumsum` (forward or reversed), `tl.cumprod`, a running
maximum through `tl.associative_scan`, or a running argmax (value and index,
a two-operand scan) of a 3-D block of random power-of-two extents (half the
time with only a random part of it loaded, the rest masked off), along a
random axis, in a random dtype, compiled with a random layout policy and
SIMD-group count, and checked exactly against NumPy. The inputs are small
integers (for products: -1, 0 and 1), so every result is exact whatever the
order the layout combines in, and ties are common, so the running argmax
must keep the first index of the maximum.

As test_random_reductions.py: a fixed seed, TMETAL_RANDOM_SCANS=N cases
(default 40), TMETAL_RANDOM_SCANS_SEED for another set; test_plugin_cuda.py
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
OPS = ["cumsum", "cumsum_reverse", "cumprod", "running_max", "running_argmax"]
DTYPES = {"float32": np.float32, "float16": np.float16, "int32": np.int32}
EXTENTS = [1, 2, 4, 8, 16, 32, 64]
MAX_ELEMENTS = 8192


@triton.jit
def _maximum(a, b):
    return tl.maximum(a, b)


@triton.jit
def _first_maximum(value_a, index_a, value_b, index_b):
    # a is the earlier run: it wins ties, so the index is the first maximum's.
    keep_a = value_a >= value_b
    return tl.where(keep_a, value_a, value_b), tl.where(keep_a, index_a, index_b)


@triton.jit
def scan_kernel(x_ptr, out_ptr, index_ptr, na, nb, nc, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                AXIS: tl.constexpr, OP: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    offs = a * (B * C) + b * C + c
    # Elements past (na, nb, nc) are masked off and read as 0.
    mask = (a < na) & (b < nb) & (c < nc)
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    if OP == "cumsum":
        tl.store(out_ptr + offs, tl.cumsum(x, axis=AXIS))
    elif OP == "cumsum_reverse":
        tl.store(out_ptr + offs, tl.cumsum(x, axis=AXIS, reverse=True))
    elif OP == "cumprod":
        tl.store(out_ptr + offs, tl.cumprod(x, axis=AXIS))
    elif OP == "running_max":
        tl.store(out_ptr + offs, tl.associative_scan(x, AXIS, _maximum))
    else:
        if AXIS == 0:
            position = a + 0 * (b + c)
        elif AXIS == 1:
            position = b + 0 * (a + c)
        else:
            position = c + 0 * (a + b)
        value, index = tl.associative_scan((x, position), AXIS, _first_maximum)
        tl.store(out_ptr + offs, value)
        tl.store(index_ptr + offs, index)


def _cases():
    count = int(os.environ.get("TMETAL_RANDOM_SCANS", "40"))
    rng = random.Random(int(os.environ.get("TMETAL_RANDOM_SCANS_SEED", "2026")))
    cases = []
    while len(cases) < count:
        shape = tuple(rng.choice(EXTENTS) for _ in range(3))
        if np.prod(shape) > MAX_ELEMENTS:
            continue
        # Half the cases read a random part of the block, the rest all of it.
        real = tuple(rng.randint(1, e) for e in shape) if rng.random() < 0.5 else shape
        cases.append((shape, rng.randrange(3), rng.choice(OPS), rng.choice(list(DTYPES)), rng.choice(POLICIES),
                      rng.choice([1, 2, 4, 8]), real))
    return cases


CASES = _cases()


def _case_id(case):
    shape, axis, op, dtype, policy, num_warps, real = case
    masked = "" if real == shape else "-real" + "x".join(map(str, real))
    return f"{'x'.join(map(str, shape))}{masked}-axis{axis}-{op}-{dtype}-{policy.lower()}-w{num_warps}"


def _reference(x: np.ndarray, axis: int, op: str) -> tuple[np.ndarray, np.ndarray | None]:
    if op == "cumsum":
        return np.cumsum(x, axis=axis, dtype=x.dtype), None
    if op == "cumsum_reverse":
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis), None
    if op == "cumprod":
        return np.cumprod(x, axis=axis, dtype=x.dtype), None
    running = np.maximum.accumulate(x, axis=axis)
    if op == "running_max":
        return running, None
    # The first position at which each prefix reached its maximum.
    moved = np.moveaxis(x, axis, -1)
    index = np.zeros(moved.shape, np.int32)
    best = moved[..., 0].copy()
    for i in range(1, moved.shape[-1]):
        later = moved[..., i] > best
        best = np.where(later, moved[..., i], best)
        index[..., i] = np.where(later, i, index[..., i - 1])
    return running, np.moveaxis(index, -1, axis)


def run_case(case, to_device=triton_metal.tensor, to_host=np.asarray, synchronize=lambda: None) -> None:
    """Runs one case and checks it against NumPy (device hooks as in
    test_random_reductions.run_case)."""
    shape, axis, op, dtype, policy, num_warps, real = case
    rng = np.random.default_rng(zlib.crc32(_case_id(case).encode()))
    # Sums of up to 64 values in [-8, 8] are exact in float16 too; products
    # of -1, 0 and 1 stay in range.
    low, high = (-1, 2) if op == "cumprod" else (-8, 9)
    x = rng.integers(low, high, size=shape).astype(DTYPES[dtype])
    seen = np.zeros_like(x)
    seen[:real[0], :real[1], :real[2]] = x[:real[0], :real[1], :real[2]]
    expected, expected_index = _reference(seen, axis, op)
    out = to_device(np.zeros(shape, x.dtype))
    index = to_device(np.zeros(shape, np.int32))
    scan_kernel[(1, )](to_device(x), out, index, *real, A=shape[0], B=shape[1], C=shape[2], AXIS=axis, OP=op,
                       num_warps=num_warps, layout=policy)
    synchronize()
    np.testing.assert_array_equal(to_host(out), expected, err_msg=_case_id(case))
    if expected_index is not None:
        np.testing.assert_array_equal(to_host(index), expected_index, err_msg=_case_id(case) + " (indices)")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_random_scan_matches_numpy(codegen_emulator, case):
    run_case(case)
