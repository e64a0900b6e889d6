"""Randomized shape operations through the real Triton frontend and the emulator.

Each case loads a 3-D block of random power-of-two extents (half the time
with only a random part of it, the rest masked off as zeros) and changes
its shape, which makes the code generator move elements between layouts:
`tl.permute` by a random order (stored in the permuted tensor's own layout),
`tl.reshape` merging two dimensions and then summing along one of the two
left, `tl.join` with its negation and reshaped to interleave the two, or
`tl.split` of the pairs along the last dimension. Each takes a random
dtype, layout policy and SIMD-group count, and is checked exactly against
NumPy (the inputs are small integers).

As test_random_reductions.py: a fixed seed, TMETAL_RANDOM_SHAPES=N cases
(default 32), TMETAL_RANDOM_SHAPES_SEED for another set; test_plugin_cuda.py
runs the same cases on an NVIDIA GPU. Six more cases take blocks of 64-128
KB, past the threadgroup memory, so that their stagings go in pieces.
"""
from __future__ import annotations

import itertools
import os
import random
import zlib

import numpy as np
import pytest
import triton
import triton.language as tl

import triton_metal

POLICIES = ["COALESCED", "ROW_MAJOR", "COLUMN_MAJOR", "TILED", "DEFAULT"]
OPS = ["permute", "merge_front_sum", "merge_back_sum", "join", "split"]
DTYPES = {"float32": np.float32, "float16": np.float16, "int32": np.int32}
EXTENTS = [1, 2, 4, 8, 16, 32, 64]
MAX_ELEMENTS = 8192
PERMUTATIONS = list(itertools.permutations(range(3)))


@triton.jit
def shape_kernel(x_ptr, out_ptr, na, nb, nc, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, OP: tl.constexpr,
                 P0: tl.constexpr, P1: tl.constexpr, P2: tl.constexpr, AXIS: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    offs = a * (B * C) + b * C + c
    # Elements past (na, nb, nc) are masked off and read as 0.
    x = tl.load(x_ptr + offs, mask=(a < na) & (b < nb) & (c < nc), other=0)
    if OP == "permute":
        # Where each element lands in the permuted block, permuted with it.
        extents = (A, B, C)
        index = (a + 0 * (b + c), b + 0 * (a + c), c + 0 * (a + b))
        landing = index[P0] * (extents[P1] * extents[P2]) + index[P1] * extents[P2] + index[P2]
        tl.store(out_ptr + tl.permute(landing, (P0, P1, P2)), tl.permute(x, (P0, P1, P2)))
    elif OP == "merge_front_sum":
        r = tl.sum(tl.reshape(x, (A * B, C)), axis=AXIS)
        if AXIS == 0:
            tl.store(out_ptr + tl.arange(0, C), r)
        else:
            tl.store(out_ptr + tl.arange(0, A * B), r)
    elif OP == "merge_back_sum":
        r = tl.sum(tl.reshape(x, (A, B * C)), axis=AXIS)
        if AXIS == 0:
            tl.store(out_ptr + tl.arange(0, B * C), r)
        else:
            tl.store(out_ptr + tl.arange(0, A), r)
    elif OP == "join":
        pairs = tl.reshape(tl.join(x, -x), (A, B, 2 * C))
        tl.store(out_ptr + a * (B * 2 * C) + b * (2 * C) + tl.arange(0, 2 * C)[None, None, :], pairs)
    else:
        low, high = tl.split(tl.reshape(x, (A, B, C // 2, 2)))
        half = tl.arange(0, C // 2)[None, None, :]
        tl.store(out_ptr + a * (B * (C // 2)) + b * (C // 2) + half, low - 2 * high)


def _reduced_length(shape, op, axis) -> int:
    a, b, c = shape
    merged = {"merge_front_sum": (a * b, c), "merge_back_sum": (a, b * c)}.get(op)
    return merged[axis] if merged else 1


def _cases():
    count = int(os.environ.get("TMETAL_RANDOM_SHAPES", "32"))
    rng = random.Random(int(os.environ.get("TMETAL_RANDOM_SHAPES_SEED", "2026")))
    cases = []
    while len(cases) < count:
        shape = tuple(rng.choice(EXTENTS) for _ in range(3))
        op = rng.choice(OPS)
        if np.prod(shape) > MAX_ELEMENTS or (op == "split" and shape[2] < 2):
            continue
        # Under layouts that do not keep the joined pairs in one thread's
        # registers, the reshape after a join goes through threadgroup
        # memory, where twice the block must fit.
        if op == "join" and np.prod(shape) > MAX_ELEMENTS // 2:
            continue
        axis = rng.randrange(2)
        dtype = rng.choice(list(DTYPES))
        if dtype == "float16" and 8 * _reduced_length(shape, op, axis) > 2048:
            dtype = "float32"  # float16 holds the integers up to 2048 exactly
        # Half the cases read a random part of the block, the rest all of it.
        real = tuple(rng.randint(1, e) for e in shape) if rng.random() < 0.5 else shape
        cases.append((shape, op, rng.choice(PERMUTATIONS), axis, dtype, rng.choice(POLICIES),
                      rng.choice([1, 2, 4, 8]), real))
    return cases


CASES = _cases()


def _large_cases():
    # Blocks of 16K-32K elements (64-128 KB of 32-bit values): whatever
    # moves them between layouts is staged in pieces of the 32 KB.
    rng = random.Random(int(os.environ.get("TMETAL_RANDOM_SHAPES_SEED", "2026")) + 1)
    cases = []
    while len(cases) < 16:
        shape = tuple(rng.choice(EXTENTS) for _ in range(3))
        op = rng.choice(OPS)
        if not 16384 <= np.prod(shape) <= 32768 or (op == "split" and shape[2] < 2):
            continue
        axis = rng.randrange(2)
        real = tuple(rng.randint(1, e) for e in shape) if rng.random() < 0.5 else shape
        # Mostly layouts that run along another dimension than the loads' or
        # the pairs', and orders that move something, so that most cases
        # stage; the last half under any policy and SIMD-group count, whose
        # pieces go by other index bits.
        policies, warps = (["COLUMN_MAJOR", "TILED"], [2, 4, 8]) if len(cases) < 8 else (POLICIES, [1, 2, 4, 8])
        cases.append((shape, op, rng.choice(PERMUTATIONS[1:]), axis, rng.choice(["float32", "int32"]),
                      rng.choice(policies), rng.choice(warps), real))
    return cases


LARGE_CASES = _large_cases()


def _case_id(case):
    shape, op, perm, axis, dtype, policy, num_warps, real = case
    masked = "" if real == shape else "-real" + "x".join(map(str, real))
    detail = {"permute": "".join(map(str, perm)), "merge_front_sum": f"axis{axis}",
              "merge_back_sum": f"axis{axis}"}.get(op, "")
    return f"{'x'.join(map(str, shape))}{masked}-{op}{detail}-{dtype}-{policy.lower()}-w{num_warps}"


def _reference(x: np.ndarray, op: str, perm, axis: int) -> np.ndarray:
    a, b, c = x.shape
    if op == "permute":
        return np.transpose(x, perm).copy()
    if op == "merge_front_sum":
        return x.reshape(a * b, c).sum(axis=axis, dtype=x.dtype)
    if op == "merge_back_sum":
        return x.reshape(a, b * c).sum(axis=axis, dtype=x.dtype)
    if op == "join":
        return np.stack([x, -x], axis=-1).reshape(a, b, 2 * c)
    pairs = x.reshape(a, b, c // 2, 2)
    return pairs[..., 0] - 2 * pairs[..., 1]


def run_case(case, to_device=triton_metal.tensor, to_host=np.asarray, synchronize=lambda: None) -> None:
    """Runs one case and checks it against NumPy (device hooks as in
    test_random_reductions.run_case)."""
    shape, op, perm, axis, dtype, policy, num_warps, real = case
    rng = np.random.default_rng(zlib.crc32(_case_id(case).encode()))
    x = rng.integers(-8, 9, size=shape).astype(DTYPES[dtype])
    seen = np.zeros_like(x)
    seen[:real[0], :real[1], :real[2]] = x[:real[0], :real[1], :real[2]]
    expected = _reference(seen, op, perm, axis)
    out = to_device(np.zeros(expected.shape, expected.dtype))
    shape_kernel[(1, )](to_device(x), out, *real, A=shape[0], B=shape[1], C=shape[2], OP=op, P0=perm[0], P1=perm[1],
                        P2=perm[2], AXIS=axis, num_warps=num_warps, layout=policy)
    synchronize()
    np.testing.assert_array_equal(to_host(out), expected, err_msg=_case_id(case))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_random_shape_operation_matches_numpy(codegen_emulator, case):
    run_case(case)


@pytest.mark.parametrize("case", LARGE_CASES, ids=_case_id)
def test_random_shape_operation_past_the_threadgroup_memory(codegen_emulator, case):
    run_case(case)


# A flat block reshaped into 2-D or 3-D blocks (tl.reshape splitting its one
# dimension, layout::reshapeLayout) and stored through 3-D pointers; the
# 3-D ones reduced along their middle axis too.
@triton.jit
def unflatten_kernel(x_ptr, out_ptr, sum_ptr, n, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    flat = tl.arange(0, A * B * C)
    x = tl.load(x_ptr + flat, mask=flat < n, other=0)
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    cube = tl.reshape(x, (A, B, C))
    tl.store(out_ptr + a * (B * C) + b * C + c, cube)
    tl.store(sum_ptr + tl.arange(0, A)[:, None] * C + tl.arange(0, C)[None, :], tl.sum(cube, axis=1))


def _unflatten_cases():
    rng = random.Random(int(os.environ.get("TMETAL_RANDOM_SHAPES_SEED", "2026")) + 2)
    cases = [((2, 16, 64), "float32", "COALESCED", 4, 2048)]  # the bench's reshape: 2048 as 2 x 16 x 64
    while len(cases) < 1 + int(os.environ.get("TMETAL_RANDOM_SHAPES", "32")) // 3:
        shape = tuple(rng.choice(EXTENTS) for _ in range(3))
        if np.prod(shape) > MAX_ELEMENTS:
            continue
        numel = int(np.prod(shape))
        cases.append((shape, rng.choice(["int32", "float16", "float32"]), rng.choice(POLICIES),
                      rng.choice([1, 2, 4, 8]), rng.randint(1, numel) if rng.random() < 0.5 else numel))
    return cases


UNFLATTEN_CASES = _unflatten_cases()


def _unflatten_id(case):
    shape, dtype, policy, num_warps, n = case
    return f"{'x'.join(map(str, shape))}-n{n}-{dtype}-{policy.lower()}-w{num_warps}"


def run_unflatten(case, to_device=triton_metal.tensor, to_host=np.asarray, synchronize=lambda: None):
    shape, dtype, policy, num_warps, n = case
    numel = int(np.prod(shape))
    x = np.random.default_rng(zlib.crc32(_unflatten_id(case).encode())).integers(-8, 9, size=numel)
    x = x.astype(DTYPES[dtype])
    seen = x.copy()
    seen[n:] = 0
    out = to_device(np.zeros(shape, x.dtype))
    sums = to_device(np.zeros((shape[0], shape[2]), x.dtype))
    compiled = unflatten_kernel[(1, )](to_device(x), out, sums, n, A=shape[0], B=shape[1], C=shape[2],
                                       num_warps=num_warps, layout=policy)
    synchronize()
    np.testing.assert_array_equal(to_host(out), seen.reshape(shape), err_msg=_unflatten_id(case))
    np.testing.assert_array_equal(to_host(sums), seen.reshape(shape).sum(axis=1, dtype=x.dtype),
                                  err_msg=_unflatten_id(case))
    return compiled


@pytest.mark.parametrize("case", UNFLATTEN_CASES, ids=_unflatten_id)
def test_random_unflatten_matches_numpy(codegen_emulator, case):
    compiled = run_unflatten(case)
    if case == UNFLATTEN_CASES[0]:
        # Four elements a thread, as 2 x 16 x 64: the reshape keeps every
        # register (no threadgroup memory for it).
        purposes = [b["purpose"] for b in compiled.metadata.tmetal_abi["layouts"].get("threadgroup_buffers", [])]
        assert not any(p.startswith("reshape") for p in purposes), purposes


def test_a_permuted_block_flattened_is_staged_along_its_runs(codegen_emulator):
    # The suite's reshape kernel at the bench's size: 2048 floats a program
    # reshaped to 2 x 16 x 64 (free), permuted to 64 x 2 x 16 (free) and
    # flattened again: one staging, in which each thread's run down the
    # permuted block is contiguous and the elements of a row are swizzled
    # (lower_conversion.cpp, stageAcrossDimensions).
    import linalg
    programs, groups, size = 2, 32, 64
    x = np.random.default_rng(21).integers(-50, 50, programs * groups * size).astype(np.float32)
    sums = np.zeros(programs * groups, np.float32)
    permuted = np.zeros_like(x)
    compiled = linalg.reshape_kernel[(programs, )](triton_metal.tensor(x), triton_metal.tensor(sums),
                                                   triton_metal.tensor(permuted), GROUPS=groups, GROUP_SIZE=size)
    blocks = x.reshape(programs, groups, size)
    np.testing.assert_array_equal(sums, blocks.sum(axis=2).reshape(-1))
    expected = blocks.reshape(programs, 2, groups // 2, size).transpose(0, 3, 1, 2).reshape(-1)
    np.testing.assert_array_equal(permuted, expected)
    source = compiled.asm["msl"]
    source = source.decode() if isinstance(source, bytes) else source
    assert source.count("// staged along dimension 0 (stride 32), rows of 64, 32 phases") == 1, source
    # Staged straight into the store's layout: 4-float vectors. Its readers'
    # SIMD group spans 8 rows a step of 4 apart and 4 writer positions; the
    # phase counted best is the row itself (bit 6 of the staged index up):
    # writes 2-way, reads conflict-free, where one phase per step had both 4-way.
    assert "*reinterpret_cast<device float4*>(&ptrs0[flat[4 * g]]) = float4(" in source, source
    staged = next(line for line in source.splitlines() if "tg_reshape[" in line and "] = x_3[r];" in line)
    assert staged.count(" >> 6) & 31))") == 1 and " >> 8)" not in staged, staged
    purposes = [b["purpose"].split(" ")[0] for b in compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]]
    assert purposes == ["reshape"], purposes


# 2-D transposes stored row-major: the store's layout runs along the other
# dimension, so the tile goes through threadgroup memory, staged along the
# loads' dimension with a swizzle (lower_conversion.cpp). Elements of 1 to 8
# bytes, random extents, policies and SIMD-group counts, partly masked.
TRANSPOSE_DTYPES = {"float32": np.float32, "float16": np.float16, "int16": np.int16, "int8": np.int8,
                    "int64": np.int64}


@triton.jit
def transpose_kernel(x_ptr, out_ptr, na, nb, A: tl.constexpr, B: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    x = tl.load(x_ptr + a[:, None] * B + b[None, :], mask=(a[:, None] < na) & (b[None, :] < nb), other=0)
    tl.store(out_ptr + b[:, None] * A + a[None, :], tl.trans(x))


def _transpose_cases():
    rng = random.Random(int(os.environ.get("TMETAL_RANDOM_SHAPES_SEED", "2026")) + 1)
    # The bench's 64x64 tile and the suite's 32x16 one, then random ones.
    cases = [((64, 64), "int32", "COALESCED", 4, (64, 64)), ((32, 16), "int32", "COALESCED", 4, (30, 16))]
    while len(cases) < 2 + int(os.environ.get("TMETAL_RANDOM_SHAPES", "32")) // 2:
        shape = (rng.choice(EXTENTS), rng.choice(EXTENTS))
        real = tuple(rng.randint(1, e) for e in shape) if rng.random() < 0.5 else shape
        cases.append((shape, rng.choice(["int32", *TRANSPOSE_DTYPES]), rng.choice(POLICIES), rng.choice([1, 2, 4, 8]),
                      real))
    return cases


TRANSPOSE_CASES = _transpose_cases()


def _transpose_id(case):
    shape, dtype, policy, num_warps, real = case
    masked = "" if real == shape else "-real" + "x".join(map(str, real))
    return f"{'x'.join(map(str, shape))}{masked}-{dtype}-{policy.lower()}-w{num_warps}"


def run_transpose(case, to_device=triton_metal.tensor, to_host=np.asarray, synchronize=lambda: None):
    shape, dtype, policy, num_warps, real = case
    np_dtype = TRANSPOSE_DTYPES.get(dtype, np.int32)
    x = np.random.default_rng(zlib.crc32(_transpose_id(case).encode())).integers(-100, 100, size=shape)
    x = x.astype(np_dtype)
    seen = np.zeros_like(x)
    seen[:real[0], :real[1]] = x[:real[0], :real[1]]
    out = to_device(np.zeros((shape[1], shape[0]), np_dtype))
    compiled = transpose_kernel[(1, )](to_device(x), out, *real, A=shape[0], B=shape[1], num_warps=num_warps,
                                       layout=policy)
    synchronize()
    np.testing.assert_array_equal(to_host(out), seen.T, err_msg=_transpose_id(case))
    return compiled


@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=_transpose_id)
def test_random_transpose_matches_numpy(codegen_emulator, case):
    compiled = run_transpose(case)
    if case[:4] == ((64, 64), "int32", "COALESCED", 4):
        # Loads along the rows, stores along the columns: one conversion,
        # staged down the columns in vectors of four with eight phases.
        source = compiled.asm["msl"]
        source = source.decode() if isinstance(source, bytes) else source
        assert source.count("// staged along dimension 0, rows of 64 in vectors of 4, 8 phases") == 1, source
        (conversion, ) = compiled.metadata.tmetal_abi["layouts"]["conversions"]
        assert conversion["to"].endswith("order=[1,0]}"), conversion


# Tiles of 64 KB and 128 KB, two and four times the threadgroup memory:
# converted in pieces, whose piece bits (stageThrough) depend on the layouts
# of both sides; every element size, several SIMD-group counts and policies,
# partly masked.
LARGE_TRANSPOSE_CASES = [
    ((256, 128), "float32", "COALESCED", 8, (256, 100)),
    ((128, 256), "int32", "TILED", 4, (128, 256)),
    ((128, 128), "float32", "COALESCED", 4, (128, 128)),
    ((128, 128), "float32", "COALESCED", 8, (100, 128)),
    ((128, 128), "int32", "TILED", 2, (128, 77)),
    ((256, 64), "float32", "COALESCED", 4, (256, 64)),
    ((64, 256), "float32", "COLUMN_MAJOR", 1, (50, 256)),
    ((256, 128), "float16", "COALESCED", 4, (256, 128)),
    ((128, 256), "float16", "ROW_MAJOR", 8, (128, 200)),
    ((256, 256), "int8", "COALESCED", 4, (256, 256)),
    ((256, 256), "float16", "COALESCED", 4, (250, 240)),
    ((256, 256), "int16", "COALESCED", 8, (256, 200)),
    ((64, 128), "int64", "COALESCED", 4, (61, 128)),
]


@pytest.mark.parametrize("case", LARGE_TRANSPOSE_CASES, ids=_transpose_id)
def test_a_transpose_past_the_threadgroup_memory_matches_numpy(codegen_emulator, case):
    compiled = run_transpose(case)
    source = compiled.asm["msl"]
    source = source.decode() if isinstance(source, bytes) else source
    # A loaded tile stored transposed, where the layouts leave a conversion:
    # streamed, each piece loaded just before it is staged and stored just
    # after it is read back (lower_streamed_store.cpp).
    for conversion in compiled.metadata.tmetal_abi["layouts"].get("conversions", []):
        assert conversion.get("streamed") is True, conversion
    if case[:4] == ((128, 128), "float32", "COALESCED", 4):
        # By the top row bit: every thread loads, writes, reads and stores
        # whole vectors in each piece.
        assert source.count("// conversion in 2 pieces of 8192 elements:") == 1, source
        assert source.count("threadgroup_barrier") == 3, source


@triton.jit
def permute_3d_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    x = tl.load(x_ptr + a[:, None, None] * B * C + b[None, :, None] * C + c[None, None, :])
    y = tl.permute(x, (2, 0, 1))
    tl.store(out_ptr + c[:, None, None] * A * B + a[None, :, None] * B + b[None, None, :], y)


# Loaded and stored permuted in three dimensions, 128 KB: the store is
# streamed, its conversion staged across dimensions (the loads all come
# first there) or in pieces.
PERMUTE_3D_CASES = [((32, 32, 32), 4), ((64, 32, 16), 8)]


def _permute_3d_id(case):
    shape, num_warps = case
    return f"{'x'.join(map(str, shape))}-w{num_warps}"


def _run_streamed_store(kernel, x, expected, args, constexprs, num_warps, to_device, to_host, synchronize):
    """Runs `kernel` (one program) on x into a zeroed output shaped like
    `expected`, checks it exactly and that its one conversion was streamed."""
    out = to_device(np.zeros(expected.shape, expected.dtype))
    compiled = kernel[(1, )](to_device(x), out, *args, **constexprs, num_warps=num_warps)
    synchronize()
    np.testing.assert_array_equal(to_host(out), expected)
    (conversion, ) = compiled.metadata.tmetal_abi["layouts"]["conversions"]
    assert conversion.get("streamed") is True, conversion


def run_permute_3d(case, to_device=triton_metal.tensor, to_host=np.asarray, synchronize=lambda: None):
    shape, num_warps = case
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    _run_streamed_store(permute_3d_kernel, x, np.transpose(x, (2, 0, 1)), shape, {}, num_warps, to_device, to_host,
                        synchronize)


@pytest.mark.parametrize("case", PERMUTE_3D_CASES, ids=_permute_3d_id)
def test_a_permuted_3d_store_past_the_threadgroup_memory_matches_numpy(codegen_emulator, case):
    run_permute_3d(case)


@triton.jit
def transpose_tiles_in_a_loop_kernel(x_ptr, out_ptr, T, A: tl.constexpr, B: tl.constexpr):
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    for t in range(T):
        x = tl.load(x_ptr + t * A * B + a[:, None] * B + b[None, :], mask=a[:, None] < A - t, other=-1.0)
        tl.store(out_ptr + t * A * B + b[:, None] * A + a[None, :], tl.trans(x))


# Streamed stores in a loop's body, each trip's tile (its last rows masked to
# the other value) loaded piece by piece after the last trip's stores.
STREAMED_LOOP_CASES = [(3, (128, 128), 4), (2, (256, 64), 8), (5, (64, 256), 2)]


def _streamed_loop_id(case):
    trips, shape, num_warps = case
    return f"{trips}x{'x'.join(map(str, shape))}-w{num_warps}"


def run_streamed_loop(case, to_device=triton_metal.tensor, to_host=np.asarray, synchronize=lambda: None):
    trips, (a, b), num_warps = case
    x = np.random.default_rng(trips).standard_normal((trips, a, b)).astype(np.float32)
    seen = x.copy()
    for t in range(trips):
        seen[t, a - t:, :] = -1.0
    _run_streamed_store(transpose_tiles_in_a_loop_kernel, x, np.transpose(seen, (0, 2, 1)), (trips, ), {
        "A": a,
        "B": b
    }, num_warps, to_device, to_host, synchronize)


@pytest.mark.parametrize("case", STREAMED_LOOP_CASES, ids=_streamed_loop_id)
def test_streamed_stores_in_a_loop_match_numpy(codegen_emulator, case):
    run_streamed_loop(case)


@pytest.mark.parametrize("op", ["join", "split"])
def test_pairs_are_made_and_taken_apart_in_registers(codegen_emulator, op):
    # join + reshape interleaves, reshape + split deinterleaves (Triton's
    # tl.interleave and its inverse): under the default policy each thread
    # keeps its pairs in registers, so no threadgroup memory is used.
    case = ((4, 8, 16), op, (0, 1, 2), 0, "float32", "DEFAULT", 2, (4, 8, 16))
    run_case(case)
    x = np.zeros((4, 8, 16), np.float32)
    out = np.zeros((4, 8, 32) if op == "join" else (4, 8, 8), np.float32)
    compiled = shape_kernel[(1, )](triton_metal.tensor(x), triton_metal.tensor(out), 4, 8, 16, A=4, B=8, C=16, OP=op,
                                   P0=0, P1=1, P2=2, AXIS=0, num_warps=2)
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] == 0
