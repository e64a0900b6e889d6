"""Scans: tl.cumsum and tl.cumprod along either axis (forward and reverse),
and tl.associative_scan with a user combiner of one and of two operands."""
import numpy as np
import triton
import triton.language as tl

from suite import Case, cdiv, register

# ---------------------------------------------------------------------------


@triton.jit
def cumsum_1d_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """Inclusive prefix sum of each block of an int32 vector (independent per
    program)."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0)
    tl.store(out_ptr + offsets, tl.cumsum(x, axis=0), mask=mask)


def _cumsum_1d_args(rng):
    n = 1000
    return {"x_ptr": rng.integers(-100, 100, n).astype(np.int32), "out_ptr": np.zeros(n, np.int32), "n_elements": n}


def _cumsum_1d_ref(a):
    x = a["x_ptr"]
    out = np.empty_like(x)
    for start in range(0, x.size, 256):
        out[start:start + 256] = np.cumsum(x[start:start + 256])
    return {"out_ptr": out}


register(Case(name="cumsum_1d_i32", kernel=cumsum_1d_kernel, make_args=_cumsum_1d_args, grid=(cdiv(1000, 256), ),
              constexprs={"BLOCK_SIZE": 256}, reference=_cumsum_1d_ref, outputs=("out_ptr", )))

# ---------------------------------------------------------------------------


@triton.jit
def cumsum_2d_kernel(x_ptr, rows_ptr, cols_rev_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """f32 prefix sums of one tile: along axis 1 (forward) and along axis 0
    (reverse, i.e. suffix sums down each column)."""
    rows = tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    x = tl.load(x_ptr + rows * BLOCK_N + cols)
    tl.store(rows_ptr + rows * BLOCK_N + cols, tl.cumsum(x, axis=1))
    tl.store(cols_rev_ptr + rows * BLOCK_N + cols, tl.cumsum(x, axis=0, reverse=True))


def _cumsum_2d_args(rng):
    m, n = 32, 64
    # Eighths: every partial sum is exact in f32, whatever the scan order.
    return {"x_ptr": rng.integers(-16, 16, (m, n)).astype(np.float32) / np.float32(8),
            "rows_ptr": np.zeros((m, n), np.float32), "cols_rev_ptr": np.zeros((m, n), np.float32)}


def _cumsum_2d_ref(a):
    x = a["x_ptr"]
    return {"rows_ptr": np.cumsum(x, axis=1), "cols_rev_ptr": np.cumsum(x[::-1], axis=0)[::-1].copy()}


register(Case(name="cumsum_2d_f32", kernel=cumsum_2d_kernel, make_args=_cumsum_2d_args, grid=(1, ),
              constexprs={"BLOCK_M": 32, "BLOCK_N": 64}, reference=_cumsum_2d_ref,
              outputs=("rows_ptr", "cols_rev_ptr"), tolerances={"fp32": (0.0, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def cumprod_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr):
    """Running product along each row of a matrix, one program per row."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=1.0)
    tl.store(out_ptr + row * n_cols + cols, tl.cumprod(x, axis=0), mask=mask)


def _cumprod_args(rng):
    m, n = 6, 100
    # Values near 1 keep the products in range; a few exact zeros and
    # negatives too.
    x = rng.uniform(0.9, 1.1, (m, n)).astype(np.float32)
    x[2, 50] = 0.0
    x[3, ::7] *= -1
    return {"x_ptr": x, "out_ptr": np.zeros((m, n), np.float32), "n_rows": m, "n_cols": n}


register(Case(name="cumprod_rows", kernel=cumprod_kernel, make_args=_cumprod_args, grid=(6, ),
              constexprs={"BLOCK_N": 128}, outputs=("out_ptr", ),
              reference=lambda a: {"out_ptr": np.cumprod(a["x_ptr"].astype(np.float64), axis=1).astype(np.float32)},
              tolerances={"fp32": (1e-5, 1e-6)}))

# ---------------------------------------------------------------------------


@triton.jit
def _running_max(a, b):
    return tl.maximum(a, b)


@triton.jit
def running_max_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """Prefix maximum through tl.associative_scan with a user combiner."""
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf"))
    tl.store(out_ptr + offsets, tl.associative_scan(x, 0, _running_max), mask=mask)


def _running_max_args(rng):
    n = 500
    return {"x_ptr": rng.standard_normal(n).astype(np.float32), "out_ptr": np.zeros(n, np.float32), "n_elements": n}


register(Case(name="scan_running_max", kernel=running_max_kernel, make_args=_running_max_args, grid=(1, ),
              constexprs={"BLOCK_SIZE": 512}, outputs=("out_ptr", ),
              reference=lambda a: {"out_ptr": np.maximum.accumulate(a["x_ptr"])}, tolerances={"fp32": (0.0, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def _linear_recurrence(decay_a, value_a, decay_b, value_b):
    # Composition of h -> decay_a*h + value_a followed by h -> decay_b*h + value_b.
    return decay_a * decay_b, decay_b * value_a + value_b


@triton.jit
def linear_recurrence_kernel(decay_ptr, x_ptr, h_ptr, seq_len, BLOCK_T: tl.constexpr):
    """h[t] = decay[t] * h[t-1] + x[t] with h[-1] = 0, per sequence (one
    program each): a two-operand tl.associative_scan."""
    seq = tl.program_id(0)
    t = tl.arange(0, BLOCK_T)
    mask = t < seq_len
    decay = tl.load(decay_ptr + seq * seq_len + t, mask=mask, other=1.0)
    x = tl.load(x_ptr + seq * seq_len + t, mask=mask, other=0.0)
    _, h = tl.associative_scan((decay, x), 0, _linear_recurrence)
    tl.store(h_ptr + seq * seq_len + t, h, mask=mask)


def _recurrence_args(rng):
    batch, length = 4, 200
    return {
        "decay_ptr": rng.uniform(0.5, 1.0, (batch, length)).astype(np.float32),
        "x_ptr": rng.standard_normal((batch, length)).astype(np.float32),
        "h_ptr": np.zeros((batch, length), np.float32),
        "seq_len": length,
    }


def _recurrence_ref(a):
    decay = a["decay_ptr"].astype(np.float64)
    x = a["x_ptr"].astype(np.float64)
    h = np.zeros_like(x)
    state = np.zeros(x.shape[0])
    for t in range(x.shape[1]):
        state = decay[:, t] * state + x[:, t]
        h[:, t] = state
    return {"h_ptr": h.astype(np.float32)}


register(Case(name="scan_linear_recurrence", kernel=linear_recurrence_kernel, make_args=_recurrence_args,
              grid=(4, ), constexprs={"BLOCK_T": 256}, reference=_recurrence_ref, outputs=("h_ptr", ),
              tolerances={"fp32": (1e-5, 1e-5)}))
