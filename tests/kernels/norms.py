"""Row-wise normalizations: softmax (single block and online, looping),
layernorm and rmsnorm forward."""
import numpy as np
import triton
import triton.language as tl

from suite import Case, register

# ---------------------------------------------------------------------------


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, in_row_stride, out_row_stride, BLOCK_N: tl.constexpr):
    """One program per row; the whole row fits in one block."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * in_row_stride + cols, mask=mask, other=float("-inf"))
    shifted = x - tl.max(x, axis=0)
    numerator = tl.exp(shifted)
    denominator = tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, numerator / denominator, mask=mask)


def _softmax_ref_rows(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _softmax_args(rng):
    m, n = 40, 300
    return {"x_ptr": (rng.standard_normal((m, n)) * 3).astype(np.float32), "out_ptr": np.zeros((m, n), np.float32),
            "n_cols": n, "in_row_stride": n, "out_row_stride": n}


register(Case(name="softmax_rows", kernel=softmax_kernel, make_args=_softmax_args, grid=(40, ),
              constexprs={"BLOCK_N": 512}, outputs=("out_ptr", ),
              reference=lambda a: {"out_ptr": _softmax_ref_rows(a["x_ptr"]).astype(np.float32)},
              tolerances={"fp32": (1e-5, 1e-7)}))

# ---------------------------------------------------------------------------


@triton.jit
def online_softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK_N: tl.constexpr):
    """Rows longer than the block: one loop keeps a running max and a
    rescaled running sum (online softmax), a second loop writes the output.
    f16 in and out, f32 arithmetic."""
    row = tl.program_id(0)
    row_start = row.to(tl.int64) * n_cols
    running_max = tl.full((BLOCK_N, ), float("-inf"), tl.float32)
    running_sum = tl.zeros((BLOCK_N, ), tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row_start + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        new_max = tl.maximum(running_max, x)
        # Lanes that have seen only padding keep max -inf: avoid inf - inf.
        scale = tl.where(new_max == float("-inf"), 0.0, tl.exp(running_max - new_max))
        contribution = tl.where(new_max == float("-inf"), 0.0, tl.exp(x - new_max))
        running_sum = running_sum * scale + contribution
        running_max = new_max
    row_max = tl.max(running_max, axis=0)
    row_sum = tl.sum(running_sum * tl.exp(running_max - row_max), axis=0)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_ptr + row_start + cols, mask=mask, other=0.0).to(tl.float32)
        y = tl.exp(x - row_max) / row_sum
        tl.store(out_ptr + row_start + cols, y.to(tl.float16), mask=mask)


def _online_softmax_args(rng):
    m, n = 8, 1000
    return {"x_ptr": (rng.standard_normal((m, n)) * 2).astype(np.float16), "out_ptr": np.zeros((m, n), np.float16),
            "n_cols": n}


register(Case(name="softmax_online_f16", kernel=online_softmax_kernel, make_args=_online_softmax_args, grid=(8, ),
              constexprs={"BLOCK_N": 128}, outputs=("out_ptr", ),
              reference=lambda a: {"out_ptr": _softmax_ref_rows(a["x_ptr"]).astype(np.float16)},
              tolerances={"fp16": (1e-2, 1e-5)}))

# ---------------------------------------------------------------------------


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, weight_ptr, bias_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps,
                     BLOCK_N: tl.constexpr):
    """LayerNorm forward over rows, looping over the columns in three passes
    (mean, variance, normalize), as the Triton tutorial's kernel is shaped."""
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        centered = tl.where(cols < n_cols, x - mean, 0.0)
        acc += centered * centered
    variance = tl.sum(acc, axis=0) / n_cols
    rstd = 1 / tl.sqrt(variance + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        w = tl.load(weight_ptr + cols, mask=mask)
        b = tl.load(bias_ptr + cols, mask=mask)
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (x - mean) * rstd * w + b, mask=mask)


def _layernorm_args(rng):
    m, n = 24, 700
    return {
        "x_ptr": (rng.standard_normal((m, n)) * 2 + 0.5).astype(np.float32),
        "y_ptr": np.zeros((m, n), np.float32),
        "weight_ptr": rng.uniform(0.5, 1.5, n).astype(np.float32),
        "bias_ptr": (rng.standard_normal(n) * 0.1).astype(np.float32),
        "mean_ptr": np.zeros(m, np.float32),
        "rstd_ptr": np.zeros(m, np.float32),
        "stride": n,
        "n_cols": n,
        "eps": 1e-5,
    }


def _layernorm_ref(a):
    x = a["x_ptr"].astype(np.float64)
    mean = x.mean(axis=1)
    rstd = 1.0 / np.sqrt(x.var(axis=1) + a["eps"])
    y = (x - mean[:, None]) * rstd[:, None] * a["weight_ptr"] + a["bias_ptr"]
    return {"y_ptr": y.astype(np.float32), "mean_ptr": mean.astype(np.float32), "rstd_ptr": rstd.astype(np.float32)}


register(Case(name="layernorm_fwd", kernel=layernorm_kernel, make_args=_layernorm_args, grid=(24, ),
              constexprs={"BLOCK_N": 256}, reference=_layernorm_ref, outputs=("y_ptr", "mean_ptr", "rstd_ptr"),
              tolerances={"fp32": (1e-5, 1e-5)}))

# ---------------------------------------------------------------------------


@triton.jit
def rmsnorm_kernel(x_ptr, weight_ptr, out_ptr, n_rows, n_cols, eps, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """RMSNorm forward, f16 in and out: BLOCK_M rows per program, each row
    entirely in one block (a 2-D tile reduced along axis 1)."""
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offsets = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    mean_square = tl.sum(x * x, axis=1) / n_cols
    inv_rms = tl.math.rsqrt(mean_square + eps)
    w = tl.load(weight_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    y = x * inv_rms[:, None] * w[None, :]
    tl.store(out_ptr + offsets, y.to(tl.float16), mask=mask)


def _rmsnorm_args(rng):
    m, n = 30, 96
    return {
        "x_ptr": rng.standard_normal((m, n)).astype(np.float16),
        "weight_ptr": rng.uniform(0.5, 1.5, n).astype(np.float16),
        "out_ptr": np.zeros((m, n), np.float16),
        "n_rows": m,
        "n_cols": n,
        "eps": 1e-6,
    }


def _rmsnorm_ref(a):
    x = a["x_ptr"].astype(np.float64)
    inv_rms = 1.0 / np.sqrt((x * x).mean(axis=1) + a["eps"])
    return {"out_ptr": (x * inv_rms[:, None] * a["weight_ptr"].astype(np.float64)).astype(np.float16)}


register(Case(name="rmsnorm_fwd_f16", kernel=rmsnorm_kernel, make_args=_rmsnorm_args, grid=(8, ),
              constexprs={"BLOCK_M": 4, "BLOCK_N": 128}, reference=_rmsnorm_ref, outputs=("out_ptr", )))
