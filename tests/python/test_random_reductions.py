"""Randomized reductions through the real Triton frontend and the emulator.

Each case is one `tl.sum`, `tl.max`, `tl.min`, `tl.argmax`, `tl.argmin`, an
xor `tl.reduce`, an or or an and `tl.reduce` of booleans (any, all), or a "centering" (x - max(x) kept as a 3-D tensor and
stored whole) of a 3-D block of random power-of-two extents (half the time
with only a random part of it loaded, the rest masked off as zeros), along a
random axis, in a random dtype, compiled with a random layout policy and
SIMD-group count, and checked exactly against NumPy. The inputs are small integers, so
every float sum is exact whatever the order the layout adds in, and ties are
common, so argmax and argmin must pick the first index as Triton does.

The cases come from a fixed seed, so CI runs the same ones every time;
TMETAL_RANDOM_REDUCTIONS=N runs N of them (default 40), and
TMETAL_RANDOM_REDUCTIONS_SEED another set.
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
OPS = ["sum", "max", "min", "argmax", "argmin", "xor", "any", "all", "center"]
DTYPES = {"float32": np.float32, "float16": np.float16, "int32": np.int32}
EXTENTS = [1, 2, 4, 8, 16, 32, 64]
MAX_ELEMENTS = 8192


@triton.jit
def _xor(a, b):
    return a ^ b


@triton.jit
def _or(a, b):
    return a | b


@triton.jit
def _and(a, b):
    return a & b


@triton.jit
def reduce_kernel(x_ptr, out_ptr, na, nb, nc, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr,
                  OP: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    offs = a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :]
    # Elements past (na, nb, nc) are masked off and read as 0.
    mask = (a[:, None, None] < na) & (b[None, :, None] < nb) & (c[None, None, :] < nc)
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    if OP == "center":
        tl.store(out_ptr + offs, x - tl.max(x, axis=AXIS, keep_dims=True))
    else:
        if OP == "sum":
            r = tl.sum(x, axis=AXIS)
        elif OP == "max":
            r = tl.max(x, axis=AXIS)
        elif OP == "min":
            r = tl.min(x, axis=AXIS)
        elif OP == "argmax":
            r = tl.argmax(x, axis=AXIS)
        elif OP == "argmin":
            r = tl.argmin(x, axis=AXIS)
        elif OP == "any":
            # Rare enough that a row of 64 is often all false.
            r = tl.reduce(x >= 8, AXIS, _or).to(tl.int32)
        elif OP == "all":
            # Common enough that a row of 32 is now and then all true.
            r = tl.reduce(x > -8, AXIS, _and).to(tl.int32)
        else:
            r = tl.reduce(x, AXIS, _xor)
        # The kept dimensions, in order, as a row-major 2-D result.
        if AXIS == 0:
            out_offs = b[:, None] * C + c[None, :]
        elif AXIS == 1:
            out_offs = a[:, None] * C + c[None, :]
        else:
            out_offs = a[:, None] * B + b[None, :]
        tl.store(out_ptr + out_offs, r)


# Cases the random ones found, run every time: (shape, axis, op, dtype,
# policy, num_warps).
FOUND = [
    # The reduction's partials took all 32 KB of threadgroup memory, so its
    # shared combine's second buffer did not fit: refused, now combined by
    # every thread from the partials.
    ((64, 64, 2), 2, "center", "float16", "COLUMN_MAJOR", 4, (64, 64, 2)),
    # The partials alone (value and index, 32 KB each) passed the limit:
    # refused, now the SIMD groups take turns on one slot per output.
    ((32, 64, 4), 2, "argmin", "float32", "COLUMN_MAJOR", 4, (32, 64, 4)),
    ((32, 64, 4), 2, "sum", "float32", "COLUMN_MAJOR", 4, (32, 61, 3)),
    # Booleans along 32 lanes of a SIMD group: one vote (simd_any, simd_all).
    ((2, 4, 128), 2, "any", "int32", "COALESCED", 4, (2, 4, 100)),
    ((2, 2, 64), 2, "all", "int32", "COALESCED", 4, (2, 2, 64)),
]


def _cases():
    count = int(os.environ.get("TMETAL_RANDOM_REDUCTIONS", "40"))
    rng = random.Random(int(os.environ.get("TMETAL_RANDOM_REDUCTIONS_SEED", "2026")))
    cases = list(FOUND)
    count += len(cases)
    while len(cases) < count:
        shape = tuple(rng.choice(EXTENTS) for _ in range(3))
        if np.prod(shape) > MAX_ELEMENTS:
            continue
        op = rng.choice(OPS)
        dtype = rng.choice(["int32"] if op == "xor" else list(DTYPES))
        # Half the cases read a random part of the block, the rest all of it.
        real = tuple(rng.randint(1, e) for e in shape) if rng.random() < 0.5 else shape
        cases.append((shape, rng.randrange(3), op, dtype, rng.choice(POLICIES), rng.choice([1, 2, 4, 8]), real))
    return cases


def _case_id(case):
    shape, axis, op, dtype, policy, num_warps, real = case
    masked = "" if real == shape else "-real" + "x".join(map(str, real))
    return f"{'x'.join(map(str, shape))}{masked}-axis{axis}-{op}-{dtype}-{policy.lower()}-w{num_warps}"


def _reference(x: np.ndarray, axis: int, op: str) -> np.ndarray:
    if op == "center":
        return x - x.max(axis=axis, keepdims=True)
    if op == "xor":
        return np.bitwise_xor.reduce(x, axis=axis)
    if op == "any":
        return (x >= 8).any(axis=axis).astype(np.int32)
    if op == "all":
        return (x > -8).all(axis=axis).astype(np.int32)
    reduce = {"sum": np.sum, "max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin}[op]
    result = reduce(x, axis=axis)
    return result.astype(np.int32) if op.startswith("arg") else result.astype(x.dtype)


CASES = _cases()


def run_case(case, to_device=triton_metal.tensor, to_host=np.asarray, synchronize=lambda: None) -> None:
    """Runs one case and checks it against NumPy. The device hooks let the
    CUDA validation mode (test_plugin_cuda.py) run the same cases on a GPU."""
    shape, axis, op, dtype, policy, num_warps, real = case
    rng = np.random.default_rng(zlib.crc32(_case_id(case).encode()))
    # Small integers: sums of up to 64 of them are exact in float16 too.
    x = rng.integers(-8, 9, size=shape).astype(DTYPES[dtype])
    seen = np.zeros_like(x)
    seen[:real[0], :real[1], :real[2]] = x[:real[0], :real[1], :real[2]]
    expected = _reference(seen, axis, op)
    out = to_device(np.zeros(expected.shape, expected.dtype))
    reduce_kernel[(1, )](to_device(x), out, *real, A=shape[0], B=shape[1], C=shape[2], AXIS=axis, OP=op,
                         num_warps=num_warps, layout=policy)
    synchronize()
    np.testing.assert_array_equal(to_host(out), expected, err_msg=_case_id(case))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_random_reduction_matches_numpy(codegen_emulator, case):
    run_case(case)


@pytest.mark.parametrize("op, vote", [("any", "simd_any"), ("all", "simd_all")])
def test_boolean_reductions_across_a_simd_group_are_one_vote(codegen_emulator, op, vote):
    # 128 columns over the 32 lanes of a SIMD group, 100 of them loaded:
    # masked-off elements read as 0, which is false for any, true for all.
    rng = np.random.default_rng(11)
    x = rng.integers(-8, 9, size=(2, 4, 128)).astype(np.int32)
    x[0, 0, :] = 0  # any: no element >= 8; all: every element > -8
    x[0, 1, :] = 8
    x[0, 2, :] = 0
    x[0, 2, 99] = -8 if op == "all" else 8  # only the last loaded column decides
    x[0, 3, :] = 0
    x[0, 3, 100:] = -8 if op == "all" else 8  # would decide, but is not loaded
    seen = x.copy()
    seen[:, :, 100:] = 0
    out = np.zeros((2, 4), np.int32)
    compiled = reduce_kernel[(1, )](triton_metal.tensor(x), triton_metal.tensor(out), 2, 4, 100, A=2, B=4, C=128,
                                    AXIS=2, OP=op, num_warps=4, layout="COALESCED")
    np.testing.assert_array_equal(out, _reference(seen, 2, op))
    (reduction, ) = compiled.metadata.tmetal_abi["layouts"]["reductions"]
    assert reduction["lanes"] == {"count": 32, "combine": vote}
    source = compiled.asm["msl"]
    source = source.decode() if isinstance(source, bytes) else source
    assert source.count(vote + "(") == 1


def test_partials_past_the_limit_take_turns(codegen_emulator):
    # 2048 outputs x 4 SIMD groups x (value, index) would be 64 KB of
    # partials; taking turns on one slot per output needs 16 KB.
    rng = np.random.default_rng(5)
    x = rng.integers(-8, 9, size=(32, 64, 4)).astype(np.float32)
    out = np.zeros((32, 64), np.int32)
    compiled = reduce_kernel[(1, )](triton_metal.tensor(x), triton_metal.tensor(out), 32, 64, 4, A=32, B=64, C=4,
                                    AXIS=2, OP="argmin", num_warps=4, layout="COLUMN_MAJOR")
    np.testing.assert_array_equal(out, x.argmin(axis=2))
    (reduction, ) = compiled.metadata.tmetal_abi["layouts"]["reductions"]
    assert reduction["simd_groups"] == {"count": 4, "combine": "threadgroup memory, one SIMD group at a time"}
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] == 16384
