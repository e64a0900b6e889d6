"""Control flow and memory effects: scf.if on a scalar, scf.while, loops
carrying scalars, atomics, 2-D masks with tl.where, a 3-D grid."""
import numpy as np
import triton
import triton.language as tl

from suite import Case, cdiv, register

# ---------------------------------------------------------------------------


@triton.jit
def scalar_branch_kernel(x_ptr, out_ptr, mode, n_elements, BLOCK_SIZE: tl.constexpr):
    """Branches on a runtime scalar argument and on the program id (both
    scf.if with a scalar condition, yielding a tensor)."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    if mode == 2:
        y = x * x
    elif mode > 2:
        y = -x
    else:
        y = x + 10.0
    if pid % 2 == 1:
        y = y + 1000.0
    tl.store(out_ptr + offsets, y, mask=mask)


def _branch_case(mode):
    def make_args(rng):
        n = 900
        return {"x_ptr": rng.integers(-10, 10, n).astype(np.float32), "out_ptr": np.zeros(n, np.float32),
                "mode": mode, "n_elements": n}

    def reference(a):
        x = a["x_ptr"]
        y = x * x if mode == 2 else (-x if mode > 2 else x + 10)
        odd_program = (np.arange(x.size) // 128) % 2 == 1
        return {"out_ptr": np.where(odd_program, y + 1000, y).astype(np.float32)}

    register(Case(name=f"scalar_branch_mode{mode}", kernel=scalar_branch_kernel, make_args=make_args,
                  grid=(cdiv(900, 128), ), constexprs={"BLOCK_SIZE": 128}, reference=reference,
                  outputs=("out_ptr", ), tolerances={"fp32": (0.0, 0.0)}))


# Mode 1 would be specialized away by Triton (ints equal to 1 become
# constexpr), so the runtime branches are exercised with 0, 2 and 3.
for _mode in (0, 2, 3):
    _branch_case(_mode)

# ---------------------------------------------------------------------------


@triton.jit
def collatz_kernel(start_ptr, steps_ptr, peak_ptr):
    """One program per starting value: counts Collatz steps down to 1 with a
    scalar while loop (scf.while), tracking the largest value reached."""
    pid = tl.program_id(0)
    value = tl.load(start_ptr + pid).to(tl.int64)
    steps = 0
    peak = value
    while value != 1:
        if value % 2 == 0:
            value = value // 2
        else:
            value = 3 * value + 1
        peak = tl.maximum(peak, value)
        steps += 1
    tl.store(steps_ptr + pid, steps)
    tl.store(peak_ptr + pid, peak)


def _collatz_args(rng):
    starts = np.array([1, 2, 3, 6, 7, 27, 97, 871], np.int32)
    return {"start_ptr": starts, "steps_ptr": np.zeros(8, np.int32), "peak_ptr": np.zeros(8, np.int64)}


def _collatz_ref(a):
    steps, peaks = [], []
    for v in a["start_ptr"].tolist():
        count, peak = 0, v
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            peak = max(peak, v)
            count += 1
        steps.append(count)
        peaks.append(peak)
    return {"steps_ptr": np.array(steps, np.int32), "peak_ptr": np.array(peaks, np.int64)}


register(Case(name="while_collatz", kernel=collatz_kernel, make_args=_collatz_args, grid=(8, ),
              reference=_collatz_ref, outputs=("steps_ptr", "peak_ptr")))

@triton.jit
def branch_division_kernel(x_ptr, out_ptr):
    """Signed division in the branches of a remainder test: x // 4 where
    x % 4 == 0 is exact (compiled as a shift), the other branch's x // 2 is
    not; negative dividends check that both round toward zero as C does."""
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid)
    if x % 4 == 0:
        y = x // 4
    else:
        y = x // 2
    tl.store(out_ptr + pid, y)


def _branch_division_args(rng):
    return {"x_ptr": np.arange(-13, 14, dtype=np.int32), "out_ptr": np.zeros(27, np.int32)}


def _branch_division_ref(a):
    x = a["x_ptr"].astype(np.int64)
    divisor = np.where(x % 4 == 0, 4, 2)
    return {"out_ptr": (np.sign(x) * (np.abs(x) // divisor)).astype(np.int32)}


register(Case(name="branch_division", kernel=branch_division_kernel, make_args=_branch_division_args, grid=(27, ),
              reference=_branch_division_ref, outputs=("out_ptr", )))

# ---------------------------------------------------------------------------


@triton.jit
def polynomial_kernel(x_ptr, coeff_ptr, out_ptr, n_elements, degree, BLOCK_SIZE: tl.constexpr):
    """Horner evaluation: an scf.for over a runtime trip count that loads a
    scalar per iteration and carries a tensor and a scalar."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    acc = tl.zeros_like(x)
    coeff_sum = 0.0
    for i in range(degree, -1, -1):
        c = tl.load(coeff_ptr + i)
        acc = acc * x + c
        coeff_sum += c
    tl.store(out_ptr + offsets, acc + coeff_sum, mask=mask)


def _poly_args(rng):
    n = 300
    return {"x_ptr": rng.integers(-4, 5, n).astype(np.float32) / np.float32(2),
            "coeff_ptr": np.array([1, -2, 0.5, 3, -1, 0.25], np.float32), "out_ptr": np.zeros(n, np.float32),
            "n_elements": n, "degree": 5}


def _poly_ref(a):
    x = a["x_ptr"].astype(np.float64)
    c = a["coeff_ptr"].astype(np.float64)
    acc = np.zeros_like(x)
    for coefficient in c[::-1]:
        acc = acc * x + coefficient
    return {"out_ptr": (acc + c.sum()).astype(np.float32)}


register(Case(name="for_horner", kernel=polynomial_kernel, make_args=_poly_args, grid=(cdiv(300, 128), ),
              constexprs={"BLOCK_SIZE": 128}, reference=_poly_ref, outputs=("out_ptr", ),
              tolerances={"fp32": (0.0, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, total_ptr, n_elements, NUM_BINS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    """Integer histogram with atomic adds from many programs, plus a float
    atomic accumulation of each program's block sum into one cell."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0)
    bins = x % NUM_BINS
    tl.atomic_add(hist_ptr + bins, 1, mask=mask)
    block_total = tl.sum(tl.where(mask, x, 0), axis=0).to(tl.float32)
    tl.atomic_add(total_ptr, block_total)


def _histogram_args(rng):
    n = 3000
    return {"x_ptr": rng.integers(0, 1000, n).astype(np.int32), "hist_ptr": np.zeros(16, np.int32),
            "total_ptr": np.array([0.5], np.float32), "n_elements": n}


def _histogram_ref(a):
    x = a["x_ptr"]
    # Every partial sum is an integer below 2**24, so the float total is
    # exact in any order of the atomics.
    return {"hist_ptr": np.bincount(x % 16, minlength=16).astype(np.int32),
            "total_ptr": np.array([0.5 + x.sum()], np.float32)}


register(Case(name="atomic_histogram", kernel=histogram_kernel, make_args=_histogram_args, grid=(cdiv(3000, 256), ),
              constexprs={"NUM_BINS": 16, "BLOCK_SIZE": 256}, reference=_histogram_ref,
              outputs=("hist_ptr", "total_ptr"), tolerances={"fp32": (0.0, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def atomic_max_kernel(x_ptr, row_max_ptr, n_cols, BLOCK_N: tl.constexpr):
    """Row maxima computed by several programs per row (2-D grid), merged
    with tl.atomic_max on int32."""
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-2147483648)
    tl.atomic_max(row_max_ptr + row, tl.max(x, axis=0))


def _atomic_max_args(rng):
    rows, cols = 10, 200
    return {"x_ptr": rng.integers(-10**6, 10**6, (rows, cols)).astype(np.int32),
            "row_max_ptr": np.full(rows, -2**31, np.int32), "n_cols": cols}


register(Case(name="atomic_max_rows", kernel=atomic_max_kernel, make_args=_atomic_max_args,
              grid=(10, cdiv(200, 64)), constexprs={"BLOCK_N": 64}, outputs=("row_max_ptr", ),
              reference=lambda a: {"row_max_ptr": a["x_ptr"].max(axis=1)}))

# ---------------------------------------------------------------------------


@triton.jit
def causal_mask_kernel(scores_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Attention-style causal masking on a 2-D grid: elements above the
    diagonal become -inf, out-of-range elements are left untouched."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    in_bounds = (rows[:, None] < M) & (cols[None, :] < N)
    s = tl.load(scores_ptr + rows[:, None] * N + cols[None, :], mask=in_bounds, other=0.0)
    causal = cols[None, :] <= rows[:, None]
    masked = tl.where(causal, s, float("-inf"))
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], masked, mask=in_bounds)


def _causal_args(rng):
    m, n = 45, 45
    return {"scores_ptr": rng.standard_normal((m, n)).astype(np.float32),
            "out_ptr": np.full((m, n), 3.0, np.float32), "M": m, "N": n}


def _causal_ref(a):
    s = a["scores_ptr"]
    keep = np.tril(np.ones(s.shape, bool))
    return {"out_ptr": np.where(keep, s, np.float32(-np.inf)).astype(np.float32)}


register(Case(name="where_causal_mask", kernel=causal_mask_kernel, make_args=_causal_args,
              grid=(cdiv(45, 16), cdiv(45, 16)), constexprs={"BLOCK_M": 16, "BLOCK_N": 16}, reference=_causal_ref,
              outputs=("out_ptr", ), tolerances={"fp32": (0.0, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def batched_scale_kernel(x_ptr, scale_ptr, out_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr):
    """3-D grid (column block, row, batch): out[b, r, :] = x[b, r, :] * scale[b]
    + r, exercising program_id and num_programs on all three axes."""
    col_block = tl.program_id(0)
    row = tl.program_id(1)
    batch = tl.program_id(2)
    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    base = (batch * tl.num_programs(1) + row) * n_cols
    x = tl.load(x_ptr + base + cols, mask=mask)
    s = tl.load(scale_ptr + batch)
    tl.store(out_ptr + base + cols, x * s + row.to(tl.float32), mask=mask)


def _batched_args(rng):
    b, r, c = 3, 5, 100
    return {"x_ptr": rng.integers(-8, 8, (b, r, c)).astype(np.float32),
            "scale_ptr": np.array([0.5, 2.0, -1.0], np.float32), "out_ptr": np.zeros((b, r, c), np.float32),
            "n_rows": r, "n_cols": c}


def _batched_ref(a):
    x = a["x_ptr"]
    rows = np.arange(x.shape[1], dtype=np.float32)[None, :, None]
    return {"out_ptr": (x * a["scale_ptr"][:, None, None] + rows).astype(np.float32)}


register(Case(name="grid_3d_batched_scale", kernel=batched_scale_kernel, make_args=_batched_args,
              grid=(cdiv(100, 64), 5, 3), constexprs={"BLOCK_N": 64}, reference=_batched_ref, outputs=("out_ptr", ),
              tolerances={"fp32": (0.0, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def pointer_walk_kernel(x_ptr, next_ptr, out_ptr, n_cols, steps, BLOCK: tl.constexpr):
    """Two loops whose four unrolled trips the lowering writes out loads
    first: a weighted row sum through pointers the loop advances (each
    trip's address from the trip before's pointer arithmetic), and a walk
    that follows the indices it loads (each trip's address is the trip
    before's loaded value)."""
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_ptrs = x_ptr + pid * n_cols + offs
    acc = tl.zeros((BLOCK, ), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        weight = (start + offs).to(tl.float32)
        acc += tl.load(x_ptrs, mask=start + offs < n_cols, other=0.0) * weight
        x_ptrs += BLOCK
    cur = pid * BLOCK + offs
    total = tl.zeros((BLOCK, ), dtype=tl.int32)
    for _ in range(steps):
        cur = tl.load(next_ptr + cur)
        total += cur
    tl.store(out_ptr + pid * BLOCK + offs, acc + total.to(tl.float32))


def _walk_args(rng):
    rows, cols, block = 3, 1000, 32
    return {"x_ptr": rng.integers(-4, 5, (rows, cols)).astype(np.float32),
            "next_ptr": rng.permutation(rows * block).astype(np.int32), "out_ptr": np.zeros(rows * block, np.float32),
            "n_cols": cols, "steps": 7}


def _walk_ref(a):
    x, nxt = a["x_ptr"], a["next_ptr"]
    rows, cols = x.shape
    block = nxt.size // rows
    weighted = np.zeros((rows, block))
    for start in range(0, cols, block):
        for b in range(block):
            if start + b < cols:
                weighted[:, b] += x[:, start + b].astype(np.float64) * (start + b)
    cur = np.arange(rows * block)
    total = np.zeros(rows * block, np.int64)
    for _ in range(a["steps"]):
        cur = nxt[cur]
        total += cur
    return {"out_ptr": (weighted.reshape(-1) + total).astype(np.float32)}


register(Case(name="pointer_walk_loops", kernel=pointer_walk_kernel, make_args=_walk_args, grid=(3, ),
              constexprs={"BLOCK": 32}, num_warps=1, reference=_walk_ref, outputs=("out_ptr", ),
              tolerances={"fp32": (0.0, 0.0)}))
