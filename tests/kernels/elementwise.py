"""Elementwise kernels: vector add, fused activations, selects, integer
arithmetic and bit operations, and conversions between float formats."""
import math

import numpy as np
import triton
import triton.language as tl

from suite import Case, bf16_bits_to_f32, cdiv, f32_to_bf16_bits, register

# ---------------------------------------------------------------------------


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def _add_case(name, n, block, dtype):
    def make_args(rng):
        return {
            "x_ptr": rng.standard_normal(n).astype(dtype),
            "y_ptr": rng.standard_normal(n).astype(dtype),
            "out_ptr": np.zeros(n, dtype),
            "n_elements": n,
        }

    def reference(a):
        return {"out_ptr": (a["x_ptr"] + a["y_ptr"]).astype(dtype)}

    register(Case(name=name, kernel=add_kernel, make_args=make_args, grid=(cdiv(n, block), ),
                  constexprs={"BLOCK_SIZE": block}, reference=reference, outputs=("out_ptr", )))


# 1000 is not a multiple of the block: the last program is partly masked.
_add_case("vector_add_f32", 1000, 256, np.float32)
_add_case("vector_add_f16", 4096, 1024, np.float16)

# ---------------------------------------------------------------------------


@triton.jit
def gelu_erf_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    # Exact GELU: x * Phi(x), Phi the normal CDF written with erf.
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offsets, y, mask=mask)


def _gelu_args(rng):
    n = 3000
    return {"x_ptr": (rng.standard_normal(n) * 3).astype(np.float32), "out_ptr": np.zeros(n, np.float32),
            "n_elements": n}


def _gelu_ref(a):
    x = a["x_ptr"].astype(np.float64)
    erf = np.vectorize(math.erf)(x / math.sqrt(2.0))
    return {"out_ptr": (0.5 * x * (1.0 + erf)).astype(np.float32)}


register(Case(name="gelu_erf", kernel=gelu_erf_kernel, make_args=_gelu_args, grid=(cdiv(3000, 512), ),
              constexprs={"BLOCK_SIZE": 512}, reference=_gelu_ref, outputs=("out_ptr", ),
              tolerances={"fp32": (1e-5, 1e-6)}))

# ---------------------------------------------------------------------------


@triton.jit
def silu_mul_kernel(gate_ptr, up_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """SwiGLU's elementwise part, f16 in and out, computed in f32."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    gate = tl.load(gate_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(up_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    silu = gate * tl.sigmoid(gate)
    tl.store(out_ptr + offsets, (silu * up).to(tl.float16), mask=mask)


def _silu_args(rng):
    n = 2500
    return {
        "gate_ptr": (rng.standard_normal(n) * 2).astype(np.float16),
        "up_ptr": rng.standard_normal(n).astype(np.float16),
        "out_ptr": np.zeros(n, np.float16),
        "n_elements": n,
    }


def _silu_ref(a):
    g = a["gate_ptr"].astype(np.float64)
    u = a["up_ptr"].astype(np.float64)
    return {"out_ptr": (g / (1.0 + np.exp(-g)) * u).astype(np.float16)}


register(Case(name="silu_mul_f16", kernel=silu_mul_kernel, make_args=_silu_args, grid=(cdiv(2500, 1024), ),
              constexprs={"BLOCK_SIZE": 1024}, reference=_silu_ref, outputs=("out_ptr", )))

# ---------------------------------------------------------------------------


@triton.jit
def where_clamp_kernel(x_ptr, y_ptr, out_ptr, lo, hi, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0)
    # Pick the larger magnitude, clamp it, then zero the elements whose
    # inputs have opposite signs.
    picked = tl.where(tl.abs(x) > tl.abs(y), x, y)
    clamped = tl.clamp(picked, lo, hi)
    same_sign = (x >= 0) == (y >= 0)
    result = tl.where(same_sign, clamped, 0.0)
    result = tl.minimum(tl.maximum(result, lo * 0.5), hi * 0.5) + tl.where(same_sign, 0.0, x * y)
    tl.store(out_ptr + offsets, result, mask=mask)


def _where_clamp_args(rng):
    n = 777
    return {
        "x_ptr": (rng.standard_normal(n) * 2).astype(np.float32),
        "y_ptr": (rng.standard_normal(n) * 2).astype(np.float32),
        "out_ptr": np.full(n, -7.0, np.float32),
        "lo": -1.5,
        "hi": 2.25,
        "n_elements": n,
    }


def _where_clamp_ref(a):
    x, y, lo, hi = a["x_ptr"], a["y_ptr"], np.float32(a["lo"]), np.float32(a["hi"])
    picked = np.where(np.abs(x) > np.abs(y), x, y)
    clamped = np.minimum(np.maximum(picked, lo), hi)
    same = (x >= 0) == (y >= 0)
    result = np.where(same, clamped, np.float32(0))
    result = np.minimum(np.maximum(result, lo * np.float32(0.5)), hi * np.float32(0.5))
    result = result + np.where(same, np.float32(0), x * y)
    return {"out_ptr": result.astype(np.float32)}


register(Case(name="where_clamp", kernel=where_clamp_kernel, make_args=_where_clamp_args,
              grid=(cdiv(777, 256), ), constexprs={"BLOCK_SIZE": 256}, reference=_where_clamp_ref,
              outputs=("out_ptr", )))

# ---------------------------------------------------------------------------


@triton.jit
def integer_ops_kernel(a_ptr, b_ptr, shift_ptr, arith_ptr, bits_ptr, divrem_ptr, n_elements,
                       BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask, other=0)
    b = tl.load(b_ptr + offsets, mask=mask, other=1)
    s = tl.load(shift_ptr + offsets, mask=mask, other=0)
    arith = a * 3 - b + (a + b) * (a - b)
    bits = ((a << s) ^ (b >> s)) | (a & 0x0F0F) | (~b & 0x70)
    # Triton's integer / and % truncate toward zero, as in C.
    divrem = (a // b) * 1000 + a % b
    tl.store(arith_ptr + offsets, arith, mask=mask)
    tl.store(bits_ptr + offsets, bits, mask=mask)
    tl.store(divrem_ptr + offsets, divrem, mask=mask)


def _integer_args(rng):
    n = 1200
    b = rng.integers(-50, 50, n).astype(np.int32)
    b[b == 0] = 7
    return {
        "a_ptr": rng.integers(-20000, 20000, n).astype(np.int32),
        "b_ptr": b,
        "shift_ptr": rng.integers(0, 16, n).astype(np.int32),
        "arith_ptr": np.zeros(n, np.int32),
        "bits_ptr": np.zeros(n, np.int32),
        "divrem_ptr": np.zeros(n, np.int32),
        "n_elements": n,
    }


def _integer_ref(x):
    a = x["a_ptr"].astype(np.int64)
    b = x["b_ptr"].astype(np.int64)
    s = x["shift_ptr"].astype(np.int64)
    arith = a * 3 - b + (a + b) * (a - b)
    # a << s stays within 32 bits for |a| < 2**15 and s < 16; wrap as i32 does.
    bits = ((a << s) ^ (b >> s)) | (a & 0x0F0F) | (~b & 0x70)
    quotient = np.trunc(a / b).astype(np.int64)
    remainder = a - quotient * b
    divrem = quotient * 1000 + remainder
    wrap = lambda v: v.astype(np.int64).astype(np.uint32).view(np.int32)
    return {"arith_ptr": wrap(arith), "bits_ptr": wrap(bits), "divrem_ptr": wrap(divrem)}


register(Case(name="integer_ops", kernel=integer_ops_kernel, make_args=_integer_args, grid=(cdiv(1200, 512), ),
              constexprs={"BLOCK_SIZE": 512}, reference=_integer_ref,
              outputs=("arith_ptr", "bits_ptr", "divrem_ptr")))

# ---------------------------------------------------------------------------


@triton.jit
def unsigned_ops_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """uint32 arithmetic: logical right shift, unsigned division and
    remainder, wrap-around multiply."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask, other=0)
    b = tl.load(b_ptr + offsets, mask=mask, other=1)
    mixed = (a >> 3) + (a // b) * 7 + a % b + a * 2654435761
    tl.store(out_ptr + offsets, mixed, mask=mask)


def _unsigned_args(rng):
    n = 600
    return {
        "a_ptr": rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32),
        "b_ptr": rng.integers(1, 1000, n).astype(np.uint32),
        "out_ptr": np.zeros(n, np.uint32),
        "n_elements": n,
    }


def _unsigned_ref(x):
    a = x["a_ptr"].astype(np.uint64)
    b = x["b_ptr"].astype(np.uint64)
    mixed = (a >> 3) + (a // b) * 7 + a % b + a * 2654435761
    return {"out_ptr": (mixed & 0xFFFFFFFF).astype(np.uint32)}


register(Case(name="unsigned_ops", kernel=unsigned_ops_kernel, make_args=_unsigned_args, grid=(cdiv(600, 256), ),
              constexprs={"BLOCK_SIZE": 256}, reference=_unsigned_ref, outputs=("out_ptr", )))

# ---------------------------------------------------------------------------


@triton.jit
def cast_float_formats_kernel(x_ptr, h_ptr, bf_ptr, back_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    h = x.to(tl.float16)
    bf = x.to(tl.bfloat16)
    tl.store(h_ptr + offsets, h, mask=mask)
    tl.store(bf_ptr + offsets, bf, mask=mask)
    # Widening both back is exact, so their sum only rounds once, in f32.
    tl.store(back_ptr + offsets, h.to(tl.float32) + bf.to(tl.float32), mask=mask)


def _cast_float_args(rng):
    n = 1000
    x = (rng.standard_normal(n) * 100).astype(np.float32)
    x[:4] = [0.0, -0.0, 65504.0, 1.0 / 3.0]
    return {"x_ptr": x, "h_ptr": np.zeros(n, np.float16), "bf_ptr": np.zeros(n, np.uint16),
            "back_ptr": np.zeros(n, np.float32), "n_elements": n}


def _cast_float_ref(a):
    x = a["x_ptr"]
    h = x.astype(np.float16)
    bf = f32_to_bf16_bits(x)
    return {"h_ptr": h, "bf_ptr": bf, "back_ptr": h.astype(np.float32) + bf16_bits_to_f32(bf)}


# Conversions are exact operations: compare bit for bit. The TTIR op is
# `arith.truncf` (round to nearest even), but Triton 3.6's interpreter
# truncates f32 -> bf16 toward zero, so against it bf16 may be one bf16 ulp
# (2**-7 relative) off.
register(Case(name="cast_float_formats", kernel=cast_float_formats_kernel, make_args=_cast_float_args,
              grid=(cdiv(1000, 256), ), constexprs={"BLOCK_SIZE": 256}, reference=_cast_float_ref,
              outputs=("h_ptr", "bf_ptr", "back_ptr"), bf16_args=("bf_ptr", ),
              tolerances={"fp32": (0.0, 0.0), "fp16": (0.0, 0.0), "bf16": (0.0, 0.0)},
              interpreter_tolerances={"fp32": (2.0**-7, 0.0), "bf16": (2.0**-7, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def cast_int_float_kernel(x_ptr, i_ptr, to_int_ptr, to_float_ptr, to_half_ptr, n_elements,
                          BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    i = tl.load(i_ptr + offsets, mask=mask, other=0)
    # f32 -> i32 truncates toward zero; i32 -> f32 rounds to nearest.
    tl.store(to_int_ptr + offsets, x.to(tl.int32), mask=mask)
    tl.store(to_float_ptr + offsets, i.to(tl.float32) * 0.25, mask=mask)
    tl.store(to_half_ptr + offsets, (i % 2048).to(tl.float16), mask=mask)


def _cast_int_args(rng):
    n = 700
    return {
        "x_ptr": (rng.standard_normal(n) * 1000).astype(np.float32),
        "i_ptr": rng.integers(-2**30, 2**30, n).astype(np.int32),
        "to_int_ptr": np.zeros(n, np.int32),
        "to_float_ptr": np.zeros(n, np.float32),
        "to_half_ptr": np.zeros(n, np.float16),
        "n_elements": n,
    }


def _cast_int_ref(a):
    i = a["i_ptr"].astype(np.int64)
    rem = i - np.trunc(i / 2048).astype(np.int64) * 2048
    return {
        "to_int_ptr": np.trunc(a["x_ptr"]).astype(np.int32),
        "to_float_ptr": a["i_ptr"].astype(np.float32) * np.float32(0.25),
        "to_half_ptr": rem.astype(np.float16),
    }


register(Case(name="cast_int_float", kernel=cast_int_float_kernel, make_args=_cast_int_args,
              grid=(cdiv(700, 256), ), constexprs={"BLOCK_SIZE": 256}, reference=_cast_int_ref,
              outputs=("to_int_ptr", "to_float_ptr", "to_half_ptr"),
              tolerances={"fp32": (0.0, 0.0), "fp16": (0.0, 0.0)}))

# ---------------------------------------------------------------------------


@triton.jit
def bf16_axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n_elements, BLOCK_SIZE: tl.constexpr):
    """out = alpha * x + y with bf16 storage and f32 arithmetic."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offsets, (alpha * x + y).to(tl.bfloat16), mask=mask)


def _bf16_axpy_args(rng):
    n = 1500
    return {
        "x_ptr": f32_to_bf16_bits(rng.standard_normal(n)),
        "y_ptr": f32_to_bf16_bits(rng.standard_normal(n)),
        "out_ptr": np.zeros(n, np.uint16),
        "alpha": 0.75,
        "n_elements": n,
    }


def _bf16_axpy_ref(a):
    x = bf16_bits_to_f32(a["x_ptr"])
    y = bf16_bits_to_f32(a["y_ptr"])
    return {"out_ptr": f32_to_bf16_bits(np.float32(a["alpha"]) * x + y)}


register(Case(name="bf16_axpy", kernel=bf16_axpy_kernel, make_args=_bf16_axpy_args, grid=(cdiv(1500, 512), ),
              constexprs={"BLOCK_SIZE": 512}, reference=_bf16_axpy_ref, outputs=("out_ptr", ),
              bf16_args=("x_ptr", "y_ptr", "out_ptr")))

# ---------------------------------------------------------------------------


@triton.jit
def math_functions_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """A mix of the math library: exp, log, sqrt, rsqrt, sin, cos, tanh-like
    via exp, floor, fma, and division."""
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)
    pos = tl.abs(x) + 0.5
    a = tl.exp(x * 0.5) + tl.log(pos) + tl.sqrt(pos) * tl.math.rsqrt(pos + 1.0)
    b = tl.sin(x) * tl.cos(x) + tl.floor(x * 3.0) / 4.0
    c = tl.math.fma(x, x, 1.0) / pos
    tl.store(out_ptr + offsets, a + b + c, mask=mask)


def _math_args(rng):
    n = 1100
    return {"x_ptr": (rng.standard_normal(n) * 2).astype(np.float32), "out_ptr": np.zeros(n, np.float32),
            "n_elements": n}


def _math_ref(a):
    x = a["x_ptr"].astype(np.float64)
    pos = np.abs(x) + 0.5
    va = np.exp(x * 0.5) + np.log(pos) + np.sqrt(pos) / np.sqrt(pos + 1.0)
    vb = np.sin(x) * np.cos(x) + np.floor(a["x_ptr"] * np.float32(3.0)).astype(np.float64) / 4.0
    vc = (x * x + 1.0) / pos
    return {"out_ptr": (va + vb + vc).astype(np.float32)}


register(Case(name="math_functions", kernel=math_functions_kernel, make_args=_math_args, grid=(cdiv(1100, 512), ),
              constexprs={"BLOCK_SIZE": 512}, reference=_math_ref, outputs=("out_ptr", ),
              tolerances={"fp32": (1e-5, 1e-5)}))

# ---------------------------------------------------------------------------


@triton.jit
def dropout_kernel(x_ptr, out_ptr, rand_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    """Dropout with Triton's Philox generator (tl.rand: ten rounds of 32-bit
    multiplies, high halves and xors an element), as in Triton's low-memory
    dropout tutorial; the kept elements doubled (p = 0.5 would keep them
    unbiased), the random numbers stored too."""
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    r = tl.rand(seed, offsets)
    tl.store(out_ptr + offsets, tl.where(r > p, x * 2.0, 0.0), mask=mask)
    tl.store(rand_ptr + offsets, r, mask=mask)


def philox_uniform(seed: int, offsets: np.ndarray) -> np.ndarray:
    """tl.rand(seed, offsets) for int32 offsets, as triton/language/random.py
    computes it: Philox 4x32 with ten rounds, counter (offset, 0, 0, 0), key
    (the seed's low and high words); the first word as a float in [0, 1)."""
    m = np.uint64(0xFFFFFFFF)
    c0 = offsets.astype(np.uint32)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.uint32(seed & 0xFFFFFFFF)
    k1 = np.uint32((seed >> 32) & 0xFFFFFFFF)
    a, b = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        p0, p2 = a * c0.astype(np.uint64), b * c2.astype(np.uint64)
        c0, c1, c2, c3 = ((p2 >> np.uint64(32)).astype(np.uint32) ^ c1 ^ k0, (p2 & m).astype(np.uint32),
                          (p0 >> np.uint64(32)).astype(np.uint32) ^ c3 ^ k1, (p0 & m).astype(np.uint32))
        k0 = np.uint32((int(k0) + 0x9E3779B9) & 0xFFFFFFFF)
        k1 = np.uint32((int(k1) + 0xBB67AE85) & 0xFFFFFFFF)
    x = c0.view(np.int32)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def dropout_reference(a):
    n = a["n_elements"]
    r = philox_uniform(a["seed"], np.arange(n, dtype=np.int32))
    out = np.where(r > np.float32(a["p"]), a["x_ptr"] * np.float32(2.0), np.float32(0.0)).astype(np.float32)
    return {"out_ptr": out, "rand_ptr": r}


def _dropout_args(rng):
    n = 3000
    return {"x_ptr": rng.standard_normal(n).astype(np.float32), "out_ptr": np.zeros(n, np.float32),
            "rand_ptr": np.zeros(n, np.float32), "n_elements": n, "p": 0.3, "seed": 1234}


register(Case(name="dropout_rand", kernel=dropout_kernel, make_args=_dropout_args, grid=(cdiv(3000, 1024), ),
              constexprs={"BLOCK_SIZE": 1024}, reference=dropout_reference, outputs=("out_ptr", "rand_ptr"),
              tolerances={"fp32": (0.0, 0.0)}))
