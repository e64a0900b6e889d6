"""Kernels and configurations of the GPU benchmarks (bench/gpu_bench.py).

- `row_sum_kernel`: the row reduction of the layout benchmark. Each program
  owns BLOCK_M rows and walks the columns BLOCK_N at a time with a
  [BLOCK_M, BLOCK_N] float32 accumulator, reduced along axis 1 at the end;
  the same TTIR compiled under each MemoryLayout policy gives different
  kernels (vector widths, which threads read which elements, how the sum is
  combined). One TTIR serves every size whose sizes Triton specializes alike.
- `larger_cases()`: kernel-suite kernels (tests/kernels) at sizes that move
  tens to hundreds of MB, for timings that mean something. They are
  `suite.Case`s, not registered in the suite (its cases stay small), with
  their arguments described by `Arr`/scalars so that the TTIR can be produced
  without allocating the arrays.

Import with tests/kernels on sys.path (gpu_bench.py arranges it), as the
suite's README asks.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
import triton
import triton.language as tl

import suite
from suite import Case, cdiv

# ---------------------------------------------------------------------------
# The layout benchmark's kernel
# ---------------------------------------------------------------------------


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_row, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """out[r] = sum(x[r, :]) in float32, for float32 or float16 x. Offsets
    are int32: n_rows * stride_row must stay below 2**31."""
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :], mask=mask, other=0.0)
        acc += x.to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=row_mask)


ROW_SUM_DEFAULTS = {"BLOCK_M": 4, "BLOCK_N": 256, "num_warps": 4}


def row_sum_case(rows: int, cols: int, dtype: str, block_m: int, block_n: int, num_warps: int) -> Case:
    """The layout benchmark's kernel as a Case, for TTIR generation only:
    its arrays are 16-element stand-ins (the TTIR depends on their element
    types, not their sizes; the scalars are the real ones)."""
    np_dtype = np.dtype(dtype)

    def make_args(rng):
        return {"x_ptr": np.zeros(16, np_dtype), "out_ptr": np.zeros(16, np.float32), "n_rows": rows,
                "n_cols": cols, "stride_row": cols}

    return Case(name=f"bench_row_sum_{dtype}_{rows}x{cols}", kernel=row_sum_kernel, make_args=make_args,
                grid=(cdiv(rows, block_m), ), reference=lambda a: {}, outputs=("out_ptr", ),
                constexprs={"BLOCK_M": block_m, "BLOCK_N": block_n}, num_warps=num_warps)


# ---------------------------------------------------------------------------
# Larger configurations of suite kernels
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Arr:
    """A pointer argument: shape, NumPy dtype and how to fill it."""

    shape: tuple
    dtype: str  # a NumPy dtype, or "bfloat16": the bits, as uint16 (suite.py)
    fill: str = "normal"  # "normal", "zeros", "uniform" (0.5 to 1.5)
    scale: float = 1.0

    @property
    def storage(self) -> str:
        return "uint16" if self.dtype == "bfloat16" else self.dtype

    def make(self, rng: np.random.Generator) -> np.ndarray:
        if self.fill == "zeros":
            return np.zeros(self.shape, self.storage)
        if self.fill == "uniform":
            values = rng.uniform(0.5, 1.5, self.shape).astype(np.float32)
        else:
            values = rng.standard_normal(self.shape, dtype=np.float32)
            if self.scale != 1.0:
                values *= self.scale
        return suite.f32_to_bf16_bits(values) if self.dtype == "bfloat16" else values.astype(self.dtype)

    def stand_in(self) -> np.ndarray:
        return np.zeros(16, self.storage)


@dataclasses.dataclass
class BenchConfig:
    """A larger configuration of a suite kernel."""

    name: str
    kernel: object
    args: dict  # name -> Arr or a Python scalar, in signature order
    grid: tuple
    constexprs: dict
    outputs: tuple
    reference: Callable[[dict], dict]
    num_warps: int = 4
    tolerances: dict = dataclasses.field(default_factory=dict)

    def case(self) -> Case:
        """The Case with its real inputs."""

        def make_args(rng):
            return {k: (v.make(rng) if isinstance(v, Arr) else v) for k, v in self.args.items()}

        return self._case(make_args)

    def ttir_case(self) -> Case:
        """The same Case with 16-element stand-in arrays: enough for Triton to
        produce the TTIR (which depends on dtypes and scalar values only)."""

        def make_args(rng):
            return {k: (v.stand_in() if isinstance(v, Arr) else v) for k, v in self.args.items()}

        return self._case(make_args)

    def _case(self, make_args) -> Case:
        bf16 = tuple(k for k, v in self.args.items() if isinstance(v, Arr) and v.dtype == "bfloat16")
        return Case(name=self.name, kernel=self.kernel, make_args=make_args, grid=self.grid,
                    reference=self.reference, outputs=self.outputs, constexprs=self.constexprs,
                    num_warps=self.num_warps, tolerances=self.tolerances, bf16_args=bf16)

    def bytes_moved(self) -> int:
        """Bytes of all buffers, each counted once (read or written)."""
        return sum(int(np.prod(v.shape)) * np.dtype(v.storage).itemsize for v in self.args.values()
                   if isinstance(v, Arr))


def _softmax_ref(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def larger_cases() -> list[BenchConfig]:
    import elementwise
    import linalg
    import norms
    import reductions
    import scans

    n = 1 << 25  # 32M elements: 128 MB per float32 array, past the H100's 50 MB L2
    configs = []
    for dtype in ("float32", "float16"):
        configs.append(
            BenchConfig(
                name=f"big_vector_add_{dtype}_32M", kernel=elementwise.add_kernel,
                args={"x_ptr": Arr((n, ), dtype), "y_ptr": Arr((n, ), dtype), "out_ptr": Arr((n, ), dtype, "zeros"),
                      "n_elements": n}, grid=(cdiv(n, 1024), ), constexprs={"BLOCK_SIZE": 1024},
                outputs=("out_ptr", ), reference=lambda a, d=dtype: {"out_ptr": (a["x_ptr"] + a["y_ptr"]).astype(d)}))

    def silu_ref(a):
        g = a["gate_ptr"].astype(np.float64)
        return {"out_ptr": (g / (1.0 + np.exp(-g)) * a["up_ptr"].astype(np.float64)).astype(np.float16)}

    configs.append(
        BenchConfig(
            name="big_silu_mul_f16_32M", kernel=elementwise.silu_mul_kernel,
            args={"gate_ptr": Arr((n, ), "float16", scale=2.0), "up_ptr": Arr((n, ), "float16"),
                  "out_ptr": Arr((n, ), "float16", "zeros"), "n_elements": n}, grid=(cdiv(n, 1024), ),
            constexprs={"BLOCK_SIZE": 1024}, outputs=("out_ptr", ), reference=silu_ref))

    configs.append(
        BenchConfig(
            name="big_dropout_f32_32M", kernel=elementwise.dropout_kernel,
            args={"x_ptr": Arr((n, ), "float32"), "out_ptr": Arr((n, ), "float32", "zeros"),
                  "rand_ptr": Arr((n, ), "float32", "zeros"), "n_elements": n, "p": 0.3, "seed": 1234},
            grid=(cdiv(n, 1024), ), constexprs={"BLOCK_SIZE": 1024}, outputs=("out_ptr", "rand_ptr"),
            reference=elementwise.dropout_reference, tolerances={"fp32": (0.0, 0.0)}))

    # Elementwise at scale: exact GELU (erf, computed), and float32 to
    # float16 and bfloat16 and back (three outputs, two of 2-byte elements).
    configs.append(
        BenchConfig(
            name="big_gelu_erf_f32_32M", kernel=elementwise.gelu_erf_kernel,
            args={"x_ptr": Arr((n, ), "float32", scale=3.0), "out_ptr": Arr((n, ), "float32", "zeros"),
                  "n_elements": n}, grid=(cdiv(n, 1024), ), constexprs={"BLOCK_SIZE": 1024}, outputs=("out_ptr", ),
            reference=elementwise._gelu_ref, tolerances={"fp32": (1e-5, 1e-6)}))
    configs.append(
        BenchConfig(
            name="big_cast_float_formats_32M", kernel=elementwise.cast_float_formats_kernel,
            args={"x_ptr": Arr((n, ), "float32", scale=100.0), "h_ptr": Arr((n, ), "float16", "zeros"),
                  "bf_ptr": Arr((n, ), "bfloat16", "zeros"), "back_ptr": Arr((n, ), "float32", "zeros"),
                  "n_elements": n}, grid=(cdiv(n, 1024), ), constexprs={"BLOCK_SIZE": 1024},
            outputs=("h_ptr", "bf_ptr", "back_ptr"), reference=elementwise._cast_float_ref,
            tolerances={"fp32": (0.0, 0.0), "fp16": (0.0, 0.0), "bf16": (0.0, 0.0)}))
    # Each program's 2048 elements summed in groups and permuted as a 3-D
    # block (tl.reshape, tl.permute): a store along another dimension.
    programs, groups, size = 16384, 32, 64

    def reshape_ref(a, programs=programs, groups=groups, size=size):
        x = a["x_ptr"].reshape(programs, groups, size)
        permuted = x.reshape(programs, 2, groups // 2, size).transpose(0, 3, 1, 2)
        return {"group_sum_ptr": x.sum(axis=2, dtype=np.float64).astype(np.float32).reshape(-1),
                "permuted_ptr": permuted.reshape(-1).copy()}

    configs.append(
        BenchConfig(
            name=f"big_reshape_permute_f32_{programs}x{groups}x{size}", kernel=linalg.reshape_kernel,
            args={"x_ptr": Arr((programs * groups * size, ), "float32"),
                  "group_sum_ptr": Arr((programs * groups, ), "float32", "zeros"),
                  "permuted_ptr": Arr((programs * groups * size, ), "float32", "zeros")}, grid=(programs, ),
            constexprs={"GROUPS": groups, "GROUP_SIZE": size}, outputs=("group_sum_ptr", "permuted_ptr"),
            reference=reshape_ref, tolerances={"fp32": (1e-5, 1e-5)}))

    # Prefix sums of every 1024 elements (one program each): a scan across
    # the lanes and the SIMD groups of every block.
    configs.append(
        BenchConfig(
            name="big_cumsum_i32_32M", kernel=scans.cumsum_1d_kernel,
            args={"x_ptr": Arr((n, ), "int32", scale=100.0), "out_ptr": Arr((n, ), "int32", "zeros"),
                  "n_elements": n}, grid=(cdiv(n, 1024), ), constexprs={"BLOCK_SIZE": 1024}, outputs=("out_ptr", ),
            reference=lambda a: {"out_ptr": a["x_ptr"].reshape(-1, 1024).cumsum(axis=1, dtype=np.int32).reshape(-1)}))

    m, c = 32768, 1024
    configs.append(
        BenchConfig(
            name=f"big_softmax_rows_{m}x{c}", kernel=norms.softmax_kernel,
            args={"x_ptr": Arr((m, c), "float32", scale=3.0), "out_ptr": Arr((m, c), "float32", "zeros"), "n_cols": c,
                  "in_row_stride": c, "out_row_stride": c}, grid=(m, ), constexprs={"BLOCK_N": 1024},
            outputs=("out_ptr", ), reference=lambda a: {"out_ptr": _softmax_ref(a["x_ptr"]).astype(np.float32)},
            tolerances={"fp32": (1e-5, 1e-7)}))

    m, c = 8192, 4096
    configs.append(
        BenchConfig(
            name=f"big_softmax_online_f16_{m}x{c}", kernel=norms.online_softmax_kernel,
            args={"x_ptr": Arr((m, c), "float16", scale=2.0), "out_ptr": Arr((m, c), "float16", "zeros"), "n_cols": c},
            grid=(m, ), constexprs={"BLOCK_N": 1024}, outputs=("out_ptr", ),
            reference=lambda a: {"out_ptr": _softmax_ref(a["x_ptr"]).astype(np.float16)},
            tolerances={"fp16": (1e-2, 1e-5)}))

    def layernorm_ref(a):
        x = a["x_ptr"].astype(np.float64)
        mean = x.mean(axis=1)
        rstd = 1.0 / np.sqrt(x.var(axis=1) + a["eps"])
        y = (x - mean[:, None]) * rstd[:, None] * a["weight_ptr"] + a["bias_ptr"]
        return {"y_ptr": y.astype(np.float32), "mean_ptr": mean.astype(np.float32), "rstd_ptr": rstd.astype(np.float32)}

    configs.append(
        BenchConfig(
            name=f"big_layernorm_fwd_{m}x{c}", kernel=norms.layernorm_kernel,
            args={"x_ptr": Arr((m, c), "float32", scale=2.0), "y_ptr": Arr((m, c), "float32", "zeros"),
                  "weight_ptr": Arr((c, ), "float32", "uniform"), "bias_ptr": Arr((c, ), "float32", scale=0.1),
                  "mean_ptr": Arr((m, ), "float32", "zeros"), "rstd_ptr": Arr((m, ), "float32", "zeros"), "stride": c,
                  "n_cols": c, "eps": 1e-5}, grid=(m, ), constexprs={"BLOCK_N": 1024},
            outputs=("y_ptr", "mean_ptr", "rstd_ptr"), reference=layernorm_ref, tolerances={"fp32": (1e-4, 1e-4)}))

    def rmsnorm_ref(a):
        x = a["x_ptr"].astype(np.float64)
        inv_rms = 1.0 / np.sqrt((x * x).mean(axis=1) + a["eps"])
        return {"out_ptr": (x * inv_rms[:, None] * a["weight_ptr"].astype(np.float64)).astype(np.float16)}

    m, c = 32768, 1024
    configs.append(
        BenchConfig(
            name=f"big_rmsnorm_fwd_f16_{m}x{c}", kernel=norms.rmsnorm_kernel,
            args={"x_ptr": Arr((m, c), "float16"), "weight_ptr": Arr((c, ), "float16", "uniform"),
                  "out_ptr": Arr((m, c), "float16", "zeros"), "n_rows": m, "n_cols": c, "eps": 1e-6},
            grid=(cdiv(m, 4), ), constexprs={"BLOCK_M": 4, "BLOCK_N": 1024}, outputs=("out_ptr", ),
            reference=rmsnorm_ref))

    m, c = 16384, 4096
    configs.append(
        BenchConfig(
            name=f"big_row_sum_loop_{m}x{c}", kernel=reductions.row_sum_loop_kernel,
            args={"x_ptr": Arr((m, c), "float32"), "out_ptr": Arr((m, ), "float32", "zeros"), "n_rows": m,
                  "n_cols": c, "stride_row": c}, grid=(cdiv(m, 8), ), constexprs={"BLOCK_M": 8, "BLOCK_N": 256},
            outputs=("out_ptr", ),
            reference=lambda a: {"out_ptr": a["x_ptr"].astype(np.float64).sum(axis=1).astype(np.float32)},
            tolerances={"fp32": (1e-4, 1e-3)}))

    m, c = 4096, 16384
    configs.append(
        BenchConfig(
            name=f"big_col_reduce_loop_{m}x{c}", kernel=reductions.col_reduce_loop_kernel,
            args={"x_ptr": Arr((m, c), "float32"), "sum_ptr": Arr((c, ), "float32", "zeros"),
                  "max_ptr": Arr((c, ), "float32", "zeros"), "n_rows": m, "n_cols": c}, grid=(cdiv(c, 32), ),
            constexprs={"BLOCK_M": 64, "BLOCK_N": 32}, outputs=("sum_ptr", "max_ptr"),
            reference=lambda a: {"sum_ptr": a["x_ptr"].astype(np.float64).sum(axis=0).astype(np.float32),
                                 "max_ptr": a["x_ptr"].max(axis=0)}, tolerances={"fp32": (1e-4, 1e-3)}))
    # A transpose through tl.trans: read along rows, written along columns.
    m, c = 8192, 8192
    configs.append(
        BenchConfig(
            name=f"big_transpose_i32_{m}x{c}", kernel=linalg.transpose_kernel,
            args={"x_ptr": Arr((m, c), "int32", scale=1000.0), "out_ptr": Arr((c, m), "int32", "zeros"), "M": m,
                  "N": c}, grid=(cdiv(m, 64), cdiv(c, 64)), constexprs={"BLOCK_M": 64, "BLOCK_N": 64},
            outputs=("out_ptr", ), reference=lambda a: {"out_ptr": np.ascontiguousarray(a["x_ptr"].T)}))
    # The same in float32 tiles of 128x128: 64 KB, twice a threadgroup's
    # memory on Apple GPUs, converted to the store's layout in pieces.
    configs.append(
        BenchConfig(
            name=f"big_transpose_f32_tiles128_{m}x{c}", kernel=linalg.transpose_kernel,
            args={"x_ptr": Arr((m, c), "float32"), "out_ptr": Arr((c, m), "float32", "zeros"), "M": m, "N": c},
            grid=(cdiv(m, 128), cdiv(c, 128)), constexprs={"BLOCK_M": 128, "BLOCK_N": 128},
            outputs=("out_ptr", ), reference=lambda a: {"out_ptr": np.ascontiguousarray(a["x_ptr"].T)}))
    # And in tiles of 256x128 (128 KB, four times a threadgroup's memory),
    # with 4 and 8 SIMD groups.
    for warps in (4, 8):
        configs.append(
            BenchConfig(
                name=f"big_transpose_f32_tiles256x128_w{warps}_{m}x{c}", kernel=linalg.transpose_kernel,
                args={"x_ptr": Arr((m, c), "float32"), "out_ptr": Arr((c, m), "float32", "zeros"), "M": m, "N": c},
                grid=(cdiv(m, 256), cdiv(c, 128)), constexprs={"BLOCK_M": 256, "BLOCK_N": 128},
                outputs=("out_ptr", ), num_warps=warps,
                reference=lambda a: {"out_ptr": np.ascontiguousarray(a["x_ptr"].T)}))
    # Float16 tiles of 256x256 (128 KB) and 256x128 (64 KB).
    for (bm, bn), warps in (((256, 256), 4), ((256, 256), 8), ((256, 128), 4)):
        configs.append(
            BenchConfig(
                name=f"big_transpose_f16_tiles{bm}x{bn}_w{warps}_{m}x{c}", kernel=linalg.transpose_kernel,
                args={"x_ptr": Arr((m, c), "float16"), "out_ptr": Arr((c, m), "float16", "zeros"), "M": m, "N": c},
                grid=(cdiv(m, bm), cdiv(c, bn)), constexprs={"BLOCK_M": bm, "BLOCK_N": bn},
                outputs=("out_ptr", ), num_warps=warps,
                reference=lambda a: {"out_ptr": np.ascontiguousarray(a["x_ptr"].T)}))
    # A matmul as Triton's tutorial tiles it, large enough to be bound by
    # arithmetic rather than by the launch: float16 or bfloat16 in, float32 out.
    size = 2048

    def as_f64(x: np.ndarray) -> np.ndarray:
        return (suite.bf16_bits_to_f32(x) if x.dtype == np.uint16 else x).astype(np.float64)

    for short, dtype in (("f16", "float16"), ("bf16", "bfloat16")):
        configs.append(
            BenchConfig(
                name=f"big_matmul_{short}_{size}", kernel=linalg.matmul_kernel,
                args={"a_ptr": Arr((size, size), dtype), "b_ptr": Arr((size, size), dtype),
                      "c_ptr": Arr((size, size), "float32", "zeros"), "M": size, "N": size, "K": size,
                      "stride_am": size, "stride_ak": 1, "stride_bk": size, "stride_bn": 1, "stride_cm": size,
                      "stride_cn": 1}, grid=(cdiv(size, 64), cdiv(size, 64)),
                constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, outputs=("c_ptr", ),
                reference=lambda a: {"c_ptr": (as_f64(a["a_ptr"]) @ as_f64(a["b_ptr"])).astype(np.float32)},
                tolerances={"fp32": (1e-3, 1e-3)}))
    # Fused attention's forward pass (the tutorial's loop of two dots and an
    # online softmax): 32 heads of 2048 queries and keys, 64 wide, in
    # 32x32 blocks (two dots' stagings within 32 KB of threadgroup memory).
    # And its causal form as the tutorial runs it (causal_attention_kernel):
    # the blocks left of the diagonal, then the diagonal block, each in a
    # loop of two dots, in the tutorial's 128x64 blocks with 4 SIMD groups
    # and heads 128 wide; the second loop's stagings take the first loop's
    # memory.
    for name, kernel, reference, (heads, seq, head), (block_m, block_n), atol in (
        ("attention_fwd", linalg.attention_forward_kernel, linalg.attention_reference, (32, 2048, 64), (32, 32), 5e-4),
        ("causal_attention", linalg.causal_attention_kernel, linalg.causal_attention_reference, (16, 2048, 128),
         (128, 64), 1e-3)):
        configs.append(
            BenchConfig(
                name=f"big_{name}_f16_{heads}x{seq}x{head}", kernel=kernel,
                args={"q_ptr": Arr((heads, seq, head), "float16"), "k_ptr": Arr((heads, seq, head), "float16"),
                      "v_ptr": Arr((heads, seq, head), "float16"),
                      "out_ptr": Arr((heads, seq, head), "float32", "zeros"), "seq_len": seq,
                      "scale": float(1.0 / np.sqrt(head))}, grid=(cdiv(seq, block_m), heads),
                constexprs={"BLOCK_M": block_m, "BLOCK_N": block_n, "HEAD": head}, outputs=("out_ptr", ),
                reference=lambda a, reference=reference: {
                    "out_ptr": reference(a["q_ptr"], a["k_ptr"], a["v_ptr"], a["scale"]).astype(np.float32)},
                tolerances={"fp32": (1e-3, atol)}))
    return configs


def suite_cases() -> list[Case]:
    return suite.all_cases()
