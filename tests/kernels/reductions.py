"""Reductions: along each axis of 1-, 2- and 3-D blocks; sum, mean, max, min,
argmax, argmin, xor_sum, logical any/all, a user combiner, a multi-operand
combiner; and row/column reductions that loop over a dimension larger than
the block."""
import numpy as np
import triton
import triton.language as tl

from suite import Case, cdiv, register

# Sums of a few hundred f32 values: allow for a different summation order.
SUM_TOLERANCES = {"fp32": (1e-5, 1e-5)}

# ---------------------------------------------------------------------------


@triton.jit
def partial_sum_kernel(x_ptr, partial_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """Each program sums one block of a 1-D array (first stage of a
    whole-array sum)."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))


def _partial_sum_args(rng):
    n = 5000
    return {"x_ptr": rng.standard_normal(n).astype(np.float32), "partial_ptr": np.zeros(cdiv(n, 1024), np.float32),
            "n_elements": n}


def _partial_sum_ref(a):
    x = a["x_ptr"].astype(np.float64)
    padded = np.zeros(cdiv(x.size, 1024) * 1024)
    padded[:x.size] = x
    return {"partial_ptr": padded.reshape(-1, 1024).sum(axis=1).astype(np.float32)}


register(Case(name="sum_1d_partials", kernel=partial_sum_kernel, make_args=_partial_sum_args,
              grid=(cdiv(5000, 1024), ), constexprs={"BLOCK_SIZE": 1024}, reference=_partial_sum_ref,
              outputs=("partial_ptr", ), tolerances={"fp32": (1e-5, 1e-4)}))

# ---------------------------------------------------------------------------


@triton.jit
def max_min_1d_kernel(x_ptr, max_ptr, min_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """Single program: max and min of an f16 vector shorter than the block."""
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x_for_max = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    x_for_min = tl.load(x_ptr + offsets, mask=mask, other=float("inf"))
    tl.store(max_ptr, tl.max(x_for_max, axis=0))
    tl.store(min_ptr, tl.min(x_for_min, axis=0))


def _max_min_args(rng):
    n = 900
    return {"x_ptr": (rng.standard_normal(n) * 10).astype(np.float16), "max_ptr": np.zeros(1, np.float16),
            "min_ptr": np.zeros(1, np.float16), "n_elements": n}


register(Case(name="max_min_1d_f16", kernel=max_min_1d_kernel, make_args=_max_min_args, grid=(1, ),
              constexprs={"BLOCK_SIZE": 1024}, outputs=("max_ptr", "min_ptr"),
              reference=lambda a: {"max_ptr": a["x_ptr"].max(keepdims=True),
                                   "min_ptr": a["x_ptr"].min(keepdims=True)},
              tolerances={"fp16": (0.0, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def reduce_2d_kernel(x_ptr, sum0_ptr, max0_ptr, mean1_ptr, min1_ptr, M, N, stride_m, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    """One program per [BLOCK_M, BLOCK_N] tile: sum and max over axis 0
    (one value per column), mean and min over axis 1 (one value per row).
    Masked lanes are filled with each reduction's identity."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = x_ptr + rows[:, None] * stride_m + cols[None, :]
    x = tl.load(ptrs, mask=mask, other=0.0)
    col_sum = tl.sum(x, axis=0)
    col_max = tl.max(tl.where(mask, x, float("-inf")), axis=0)
    row_mean = tl.sum(x, axis=1) / tl.sum(mask.to(tl.float32), axis=1)
    row_min = tl.min(tl.where(mask, x, float("inf")), axis=1)
    # Partial results per tile: columns per row-tile, rows per column-tile.
    col_out = pid_m * N + cols
    tl.store(sum0_ptr + col_out, col_sum, mask=cols < N)
    tl.store(max0_ptr + col_out, col_max, mask=cols < N)
    row_out = pid_n * M + rows
    tl.store(mean1_ptr + row_out, row_mean, mask=rows < M)
    tl.store(min1_ptr + row_out, row_min, mask=rows < M)


_R2_M, _R2_N, _R2_BM, _R2_BN = 45, 70, 16, 32


def _reduce_2d_args(rng):
    tiles_m, tiles_n = cdiv(_R2_M, _R2_BM), cdiv(_R2_N, _R2_BN)
    return {
        "x_ptr": rng.standard_normal((_R2_M, _R2_N)).astype(np.float32),
        "sum0_ptr": np.zeros((tiles_m, _R2_N), np.float32),
        "max0_ptr": np.zeros((tiles_m, _R2_N), np.float32),
        "mean1_ptr": np.zeros((tiles_n, _R2_M), np.float32),
        "min1_ptr": np.zeros((tiles_n, _R2_M), np.float32),
        "M": _R2_M,
        "N": _R2_N,
        "stride_m": _R2_N,
    }


def _reduce_2d_ref(a):
    x = a["x_ptr"]
    out = {k: a[k].copy() for k in ("sum0_ptr", "max0_ptr", "mean1_ptr", "min1_ptr")}
    for tm in range(cdiv(_R2_M, _R2_BM)):
        rows = x[tm * _R2_BM:(tm + 1) * _R2_BM]
        out["sum0_ptr"][tm] = rows.astype(np.float64).sum(axis=0)
        out["max0_ptr"][tm] = rows.max(axis=0)
    for tn in range(cdiv(_R2_N, _R2_BN)):
        cols = x[:, tn * _R2_BN:(tn + 1) * _R2_BN]
        out["mean1_ptr"][tn] = cols.astype(np.float64).mean(axis=1)
        out["min1_ptr"][tn] = cols.min(axis=1)
    return out


register(Case(name="reduce_2d_both_axes", kernel=reduce_2d_kernel, make_args=_reduce_2d_args,
              grid=(cdiv(_R2_M, _R2_BM), cdiv(_R2_N, _R2_BN)), constexprs={"BLOCK_M": _R2_BM, "BLOCK_N": _R2_BN},
              reference=_reduce_2d_ref, outputs=("sum0_ptr", "max0_ptr", "mean1_ptr", "min1_ptr"),
              tolerances=SUM_TOLERANCES))

# ---------------------------------------------------------------------------


@triton.jit
def reduce_3d_kernel(x_ptr, sum_ptr, max_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                     AXIS: tl.constexpr):
    """Sum and max of an [A, B, C] block along AXIS; the [.., ..] result is
    stored row-major. One program per block of a batch of blocks."""
    pid = tl.program_id(0)
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + pid * A * B * C + a * B * C + b * C + c)
    total = tl.sum(x, axis=AXIS)
    largest = tl.max(x, axis=AXIS)
    if AXIS == 0:
        out = tl.arange(0, B)[:, None] * C + tl.arange(0, C)[None, :]
        size = B * C
    elif AXIS == 1:
        out = tl.arange(0, A)[:, None] * C + tl.arange(0, C)[None, :]
        size = A * C
    else:
        out = tl.arange(0, A)[:, None] * B + tl.arange(0, B)[None, :]
        size = A * B
    tl.store(sum_ptr + pid * size + out, total)
    tl.store(max_ptr + pid * size + out, largest)


def _reduce_3d_case(axis):
    shape = (4, 8, 16)
    batch = 3

    def make_args(rng):
        reduced = np.delete(np.array(shape), axis).prod()
        return {
            # Small integers in f32: sums are exact in any order.
            "x_ptr": rng.integers(-8, 8, (batch, ) + shape).astype(np.float32),
            "sum_ptr": np.zeros(batch * reduced, np.float32),
            "max_ptr": np.zeros(batch * reduced, np.float32),
        }

    def reference(a):
        x = a["x_ptr"]
        return {"sum_ptr": x.sum(axis=axis + 1).reshape(-1), "max_ptr": x.max(axis=axis + 1).reshape(-1)}

    register(Case(name=f"reduce_3d_axis{axis}", kernel=reduce_3d_kernel, make_args=make_args, grid=(batch, ),
                  constexprs={"A": shape[0], "B": shape[1], "C": shape[2], "AXIS": axis}, reference=reference,
                  outputs=("sum_ptr", "max_ptr"), tolerances={"fp32": (0.0, 0.0)}))


for _axis in range(3):
    _reduce_3d_case(_axis)

# ---------------------------------------------------------------------------


@triton.jit
def argmax_argmin_kernel(x_ptr, argmax_ptr, argmin_ptr, max_ptr, n_cols, stride_row, BLOCK_N: tl.constexpr):
    """Per row: index of the first maximum and of the first minimum."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=0)
    # Masked lanes must never win: use the type's extremes as fillers.
    for_max = tl.where(mask, x, -2147483648)
    for_min = tl.where(mask, x, 2147483647)
    tl.store(argmax_ptr + row, tl.argmax(for_max, axis=0))
    tl.store(argmin_ptr + row, tl.argmin(for_min, axis=0))
    tl.store(max_ptr + row, tl.max(for_max, axis=0))


def _argmax_args(rng):
    rows, cols = 24, 100
    # Few distinct values, so ties are common: the first index must win.
    return {
        "x_ptr": rng.integers(-5, 6, (rows, cols)).astype(np.int32),
        "argmax_ptr": np.zeros(rows, np.int32),
        "argmin_ptr": np.zeros(rows, np.int32),
        "max_ptr": np.zeros(rows, np.int32),
        "n_cols": cols,
        "stride_row": cols,
    }


register(Case(name="argmax_argmin_rows", kernel=argmax_argmin_kernel, make_args=_argmax_args, grid=(24, ),
              constexprs={"BLOCK_N": 128}, outputs=("argmax_ptr", "argmin_ptr", "max_ptr"),
              reference=lambda a: {
                  "argmax_ptr": a["x_ptr"].argmax(axis=1).astype(np.int32),
                  "argmin_ptr": a["x_ptr"].argmin(axis=1).astype(np.int32),
                  "max_ptr": a["x_ptr"].max(axis=1),
              }))

# ---------------------------------------------------------------------------


@triton.jit
def argmax_cols_f32_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Per column of a [M, N] f32 matrix: the row of its maximum (axis 0)."""
    pid = tl.program_id(0)
    rows = tl.arange(0, BLOCK_M)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=float("-inf"))
    tl.store(out_ptr + cols, tl.argmax(x, axis=0), mask=cols < N)


def _argmax_cols_args(rng):
    m, n = 50, 40
    return {"x_ptr": rng.standard_normal((m, n)).astype(np.float32), "out_ptr": np.full(n, -1, np.int32),
            "M": m, "N": n}


register(Case(name="argmax_cols_f32", kernel=argmax_cols_f32_kernel, make_args=_argmax_cols_args,
              grid=(cdiv(40, 16), ), constexprs={"BLOCK_M": 64, "BLOCK_N": 16}, outputs=("out_ptr", ),
              reference=lambda a: {"out_ptr": a["x_ptr"].argmax(axis=0).astype(np.int32)}))

# ---------------------------------------------------------------------------


@triton.jit
def _logical_or(a, b):
    return a | b


@triton.jit
def any_all_kernel(x_ptr, any_ptr, all_ptr, count_ptr, n_cols, threshold, BLOCK_N: tl.constexpr):
    """Per row: whether any / all elements exceed a threshold, and how many
    do. `any` reduces booleans with a user `or`; `all` is min of 0/1."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    above = (x > threshold) & mask
    any_above = tl.reduce(above, 0, _logical_or)
    all_above = tl.min(tl.where(mask, above.to(tl.int32), 1), axis=0)
    tl.store(any_ptr + row, any_above.to(tl.int8))
    tl.store(all_ptr + row, all_above.to(tl.int8))
    tl.store(count_ptr + row, tl.sum(above.to(tl.int32), axis=0))


def _any_all_args(rng):
    rows, cols = 16, 50
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    x[0] = -5.0  # no element above
    x[1] = 5.0  # every element above
    x[2, :] = -5.0
    x[2, 49] = 5.0  # only the last valid element above
    return {"x_ptr": x, "any_ptr": np.zeros(rows, np.int8), "all_ptr": np.zeros(rows, np.int8),
            "count_ptr": np.zeros(rows, np.int32), "n_cols": cols, "threshold": 1.5}


def _any_all_ref(a):
    above = a["x_ptr"] > np.float32(a["threshold"])
    return {"any_ptr": above.any(axis=1).astype(np.int8), "all_ptr": above.all(axis=1).astype(np.int8),
            "count_ptr": above.sum(axis=1).astype(np.int32)}


register(Case(name="any_all_rows", kernel=any_all_kernel, make_args=_any_all_args, grid=(16, ),
              constexprs={"BLOCK_N": 64}, reference=_any_all_ref, outputs=("any_ptr", "all_ptr", "count_ptr")))

# ---------------------------------------------------------------------------


@triton.jit
def _max_abs(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@triton.jit
def _multiply(a, b):
    return a * b


@triton.jit
def custom_combiner_kernel(x_ptr, max_abs_ptr, prod_ptr, xor_ptr, bits_ptr, BLOCK_M: tl.constexpr,
                           BLOCK_N: tl.constexpr):
    """User combiners through tl.reduce: max |x| per row, product per column;
    and the built-in xor_sum of integers per row."""
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * BLOCK_N + cols[None, :])
    tl.store(max_abs_ptr + rows, tl.reduce(x, 1, _max_abs))
    tl.store(prod_ptr + cols, tl.reduce(x, 0, _multiply))
    bits = tl.load(bits_ptr + rows[:, None] * BLOCK_N + cols[None, :])
    tl.store(xor_ptr + rows, tl.xor_sum(bits, axis=1))


def _custom_args(rng):
    m, n = 8, 32
    # Products of 8 values in [0.5, 2) (and signs) stay well within range.
    x = (rng.uniform(0.5, 2.0, (m, n)) * rng.choice([-1.0, 1.0], (m, n))).astype(np.float32)
    return {"x_ptr": x, "max_abs_ptr": np.zeros(m, np.float32), "prod_ptr": np.zeros(n, np.float32),
            "xor_ptr": np.zeros(m, np.int32), "bits_ptr": rng.integers(-2**31, 2**31, (m, n)).astype(np.int32)}


def _custom_ref(a):
    x = a["x_ptr"]
    xor = np.bitwise_xor.reduce(a["bits_ptr"], axis=1)
    return {"max_abs_ptr": np.abs(x).max(axis=1), "prod_ptr": x.astype(np.float64).prod(axis=0).astype(np.float32),
            "xor_ptr": xor.astype(np.int32)}


register(Case(name="custom_combiners", kernel=custom_combiner_kernel, make_args=_custom_args, grid=(1, ),
              constexprs={"BLOCK_M": 8, "BLOCK_N": 32}, reference=_custom_ref,
              outputs=("max_abs_ptr", "prod_ptr", "xor_ptr"), tolerances={"fp32": (1e-5, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def _max_with_index(value_a, index_a, value_b, index_b):
    # Larger value wins; on a tie the smaller index wins.
    pick_a = (value_a > value_b) | ((value_a == value_b) & (index_a < index_b))
    return tl.where(pick_a, value_a, value_b), tl.where(pick_a, index_a, index_b)


@triton.jit
def _sum_and_sum_of_squares(s_a, q_a, s_b, q_b):
    return s_a + s_b, q_a + q_b


@triton.jit
def multi_operand_reduce_kernel(x_ptr, max_ptr, index_ptr, sum_ptr, sumsq_ptr, n_cols, BLOCK_N: tl.constexpr):
    """Two-operand combiners: (value, index) argmax and (sum, sum of squares)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf"))
    best, best_index = tl.reduce((x, cols), 0, _max_with_index)
    tl.store(max_ptr + row, best)
    tl.store(index_ptr + row, best_index)
    zeroed = tl.where(mask, x, 0.0)
    total, total_sq = tl.reduce((zeroed, zeroed * zeroed), 0, _sum_and_sum_of_squares)
    tl.store(sum_ptr + row, total)
    tl.store(sumsq_ptr + row, total_sq)


def _multi_args(rng):
    rows, cols = 12, 200
    x = rng.integers(-20, 20, (rows, cols)).astype(np.float32) * np.float32(0.25)
    return {"x_ptr": x, "max_ptr": np.zeros(rows, np.float32), "index_ptr": np.zeros(rows, np.int32),
            "sum_ptr": np.zeros(rows, np.float32), "sumsq_ptr": np.zeros(rows, np.float32), "n_cols": cols}


def _multi_ref(a):
    x = a["x_ptr"]
    return {"max_ptr": x.max(axis=1), "index_ptr": x.argmax(axis=1).astype(np.int32), "sum_ptr": x.sum(axis=1),
            "sumsq_ptr": (x * x).sum(axis=1)}


# Quarter-integers: every partial sum is exact, so results are exact.
register(Case(name="multi_operand_reduce", kernel=multi_operand_reduce_kernel, make_args=_multi_args, grid=(12, ),
              constexprs={"BLOCK_N": 256}, reference=_multi_ref,
              outputs=("max_ptr", "index_ptr", "sum_ptr", "sumsq_ptr"), tolerances={"fp32": (0.0, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def row_sum_loop_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_row, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Row sums of a wide matrix: each program owns BLOCK_M rows and walks
    the columns BLOCK_N at a time (scf.for with a tensor accumulator)."""
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        acc += tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < n_rows)


def _row_loop_args(rng):
    m, n = 37, 1000
    return {"x_ptr": rng.standard_normal((m, n)).astype(np.float32), "out_ptr": np.zeros(m, np.float32),
            "n_rows": m, "n_cols": n, "stride_row": n}


register(Case(name="row_sum_loop", kernel=row_sum_loop_kernel, make_args=_row_loop_args, grid=(cdiv(37, 8), ),
              constexprs={"BLOCK_M": 8, "BLOCK_N": 128}, outputs=("out_ptr", ),
              reference=lambda a: {"out_ptr": a["x_ptr"].astype(np.float64).sum(axis=1).astype(np.float32)},
              tolerances={"fp32": (1e-5, 1e-4)}))


def _aligned_row_loop_args(dtype):
    # 1008 columns: Triton marks n_cols and stride_row divisible by 16, so
    # the rows are aligned and COALESCED may read them in vectors; the last
    # trip is partly masked.
    def make(rng):
        m, n = 37, 1008
        return {"x_ptr": rng.standard_normal((m, n)).astype(dtype), "out_ptr": np.zeros(m, np.float32),
                "n_rows": m, "n_cols": n, "stride_row": n}

    return make


for _name, _dtype in (("row_sum_loop_aligned", np.float32), ("row_sum_loop_f16", np.float16)):
    register(Case(name=_name, kernel=row_sum_loop_kernel, make_args=_aligned_row_loop_args(_dtype),
                  grid=(cdiv(37, 8), ), constexprs={"BLOCK_M": 8, "BLOCK_N": 128}, outputs=("out_ptr", ),
                  reference=lambda a: {"out_ptr": a["x_ptr"].astype(np.float64).sum(axis=1).astype(np.float32)},
                  tolerances={"fp32": (1e-5, 1e-4)}))

# ---------------------------------------------------------------------------


@triton.jit
def col_reduce_loop_kernel(x_ptr, sum_ptr, max_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Column sums and maxima of a tall matrix: each program owns BLOCK_N
    columns and walks the rows BLOCK_M at a time, reducing every tile along
    axis 0 into vector accumulators carried by the loop."""
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    total = tl.zeros((BLOCK_N, ), dtype=tl.float32)
    largest = tl.full((BLOCK_N, ), float("-inf"), dtype=tl.float32)
    for start in range(0, n_rows, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < n_rows) & col_mask[None, :]
        tile = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
        total += tl.sum(tile, axis=0)
        largest = tl.maximum(largest, tl.max(tl.where(mask, tile, float("-inf")), axis=0))
    tl.store(sum_ptr + cols, total, mask=col_mask)
    tl.store(max_ptr + cols, largest, mask=col_mask)


def _col_loop_args(rng):
    m, n = 1000, 70
    return {"x_ptr": rng.standard_normal((m, n)).astype(np.float32), "sum_ptr": np.zeros(n, np.float32),
            "max_ptr": np.zeros(n, np.float32), "n_rows": m, "n_cols": n}


register(Case(name="col_reduce_loop", kernel=col_reduce_loop_kernel, make_args=_col_loop_args,
              grid=(cdiv(70, 32), ), constexprs={"BLOCK_M": 64, "BLOCK_N": 32}, outputs=("sum_ptr", "max_ptr"),
              reference=lambda a: {"sum_ptr": a["x_ptr"].astype(np.float64).sum(axis=0).astype(np.float32),
                                   "max_ptr": a["x_ptr"].max(axis=0)},
              tolerances={"fp32": (1e-5, 1e-4)}))

# ---------------------------------------------------------------------------


@triton.jit
def int_sum_i64_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """Sum of int32 values accumulated in int64, with a mask."""
    offsets = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0).to(tl.int64)
    tl.store(out_ptr, tl.sum(x * x, axis=0))


def _int_sum_args(rng):
    n = 2000
    return {"x_ptr": rng.integers(-2**20, 2**20, n).astype(np.int32), "out_ptr": np.zeros(1, np.int64),
            "n_elements": n}


register(Case(name="int_sum_i64", kernel=int_sum_i64_kernel, make_args=_int_sum_args, grid=(1, ),
              constexprs={"BLOCK_SIZE": 2048}, outputs=("out_ptr", ),
              reference=lambda a: {"out_ptr": (a["x_ptr"].astype(np.int64)**2).sum(keepdims=True)}))
