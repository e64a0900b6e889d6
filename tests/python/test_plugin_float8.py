"""8-bit floats through the real frontend and the emulator: conversions from
and to every float type with both rounding modes, saturation, NaN, fp8
operands of tl.dot, and tl.dot_scaled (microscaling formats). Apple GPUs have no fp8 arithmetic; tmetal keeps fp8 as
bits and converts in software (codegen/float_conversions.h), so these checks
pin that software to an independent reference written here: every fp8 code
decoded by its formula, and rounding done by searching the sorted values.

Each check takes a `Device` (test_plugin_language.py) so that
test_plugin_cuda.py runs the same checks on an NVIDIA GPU.
"""
from __future__ import annotations

import numpy as np
import pytest
import triton
import triton.language as tl

from test_plugin_language import EMULATOR, Device

# name: (exponent bits, mantissa bits, bias, specials) as Triton's formats
# define them: "ieee" has infinities and NaNs, "fn" only the NaN S.1111.111,
# "fnuz" only the NaN 0x80 (no negative zero), "none" neither (fp8e4b15,
# which only converts as Triton's NVIDIA backend does: check_fp8e4b15).
FORMATS = {
    "fp8e5": (5, 2, 15, "ieee"),
    "fp8e4nv": (4, 3, 7, "fn"),
    "fp8e4b8": (4, 3, 8, "fnuz"),
    "fp8e5b16": (5, 2, 16, "fnuz"),
}
ALL_FORMATS = dict(FORMATS, fp8e4b15=(4, 3, 15, "none"))
TL_TYPES = {"fp8e5": tl.float8e5, "fp8e4nv": tl.float8e4nv, "fp8e4b8": tl.float8e4b8, "fp8e5b16": tl.float8e5b16,
            "fp8e4b15": tl.float8e4b15}


def fp8_values(name: str) -> np.ndarray:
    """The value of each of the 256 codes, as float64 (NaN where the code is one)."""
    e_bits, m_bits, bias, specials = ALL_FORMATS[name]
    codes = np.arange(256)
    exponent = (codes >> m_bits) & ((1 << e_bits) - 1)
    mantissa = codes & ((1 << m_bits) - 1)
    magnitude = np.where(exponent == 0, mantissa * 2.0**(1 - bias - m_bits),
                         (1 + mantissa / 2.0**m_bits) * 2.0**(exponent.astype(np.float64) - bias))
    values = np.where(codes >= 128, -magnitude, magnitude)
    if specials == "ieee":
        top = exponent == (1 << e_bits) - 1
        values = np.where(top & (mantissa == 0), np.copysign(np.inf, values), values)
        values = np.where(top & (mantissa != 0), np.nan, values)
    elif specials == "fn":
        values = np.where((codes & 0x7F) == 0x7F, np.nan, values)
    elif specials == "fnuz":
        values = np.where(codes == 0x80, np.nan, values)
    return values


def fp8_round(x: np.ndarray, name: str, toward_zero: bool) -> np.ndarray:
    """The codes Triton's conversions give: nearest (ties to the even code)
    or toward zero, saturating at the largest finite value, NaN to a NaN."""
    values = fp8_values(name)
    finite = np.isfinite(values[:128])
    positive = values[:128][finite]  # increasing with the code
    codes = np.arange(128)[finite]
    magnitude = np.abs(x.astype(np.float64))
    index = np.clip(np.searchsorted(positive, magnitude, side="right") - 1, 0, len(positive) - 1)
    below, above = positive[index], positive[np.minimum(index + 1, len(positive) - 1)]
    if toward_zero:
        code = codes[index]
    else:
        up = (magnitude - below > above - magnitude) | ((magnitude - below == above - magnitude) & (codes[index] & 1 == 1))
        code = np.where(up, codes[np.minimum(index + 1, len(codes) - 1)], codes[index])
    code = np.where(magnitude >= positive[-1], codes[-1], code)  # saturate (infinities too)
    negative = np.signbit(x) & ((code != 0) | (FORMATS[name][3] != "fnuz"))  # FNUZ: no -0
    return (code | np.where(negative, 0x80, 0)).astype(np.uint8)


def check_nan_codes(got: np.ndarray, x: np.ndarray, name: str):
    nan = np.isnan(x)
    assert np.isnan(fp8_values(name)[got[nan]]).all(), "NaN did not stay NaN"
    return ~nan


@triton.jit
def convert_kernel(x_ptr, y_ptr, n, ROUNDING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty, fp_downcast_rounding=ROUNDING), mask=mask)


@triton.jit
def upcast_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(y_ptr.dtype.element_ty), mask=mask)


def bf16_of(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def check_fp8_to_wider(device: Device):
    codes = np.arange(256, dtype=np.uint8)
    for name in ALL_FORMATS:
        expected = fp8_values(name)
        x = device.put_bits(codes, TL_TYPES[name])
        for out in (np.float32, np.float16):
            y = device.put(np.zeros(256, out))
            upcast_kernel[(1, )](x, y, 256, BLOCK=256)
            device.synchronize()
            with np.errstate(invalid="ignore"):
                got = device.get(y).astype(np.float64)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(expected), err_msg=f"{name} -> {out}")
            np.testing.assert_array_equal(got[~np.isnan(got)], expected[~np.isnan(expected)], err_msg=f"{name} -> {out}")
        y = device.put_bf16(np.zeros(256, np.uint16))
        upcast_kernel[(1, )](x, y, 256, BLOCK=256)
        device.synchronize()
        got = bf16_of(device.get_bf16(y)).astype(np.float64)
        np.testing.assert_array_equal(got[~np.isnan(expected)], expected[~np.isnan(expected)], err_msg=f"{name} -> bf16")
        assert np.isnan(got[np.isnan(expected)]).all()


def float32_probes(name: str) -> np.ndarray:
    """Every fp8 value, the midpoints between neighbours and values just
    beside them, values beyond the range, tiny values, random values across
    the range, zeros, infinities and NaN."""
    values = fp8_values(name)
    finite = np.unique(values[np.isfinite(values)])
    mids = (finite[1:] + finite[:-1]) / 2
    near = np.concatenate([mids, np.nextafter(mids.astype(np.float32), np.float32(np.inf)),
                           np.nextafter(mids.astype(np.float32), np.float32(-np.inf))])
    rng = np.random.default_rng(8)
    top = finite.max()
    spread = rng.standard_normal(4000) * np.exp2(rng.uniform(-20, np.log2(top) + 2, 4000))
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, top * 1.01, -top * 1.5, 1e30, -1e-30, 1e-45, 3e38]
    return np.concatenate([finite, near, spread, specials]).astype(np.float32)


def check_float_to_fp8(device: Device):
    for name in FORMATS:
        x32 = float32_probes(name)
        for rounding in ("rtne", "rtz"):
            y = device.put_bits(np.zeros(len(x32), np.uint8), TL_TYPES[name])
            convert_kernel[(triton.cdiv(len(x32), 1024), )](device.put(x32), y, len(x32), ROUNDING=rounding, BLOCK=1024)
            device.synchronize()
            got = device.get_bits(y)
            keep = check_nan_codes(got, x32, name)
            expected = fp8_round(x32, name, rounding == "rtz")
            bad = np.nonzero(got[keep] != expected[keep])[0]
            assert not len(bad), (f"f32 -> {name} {rounding}: {x32[keep][bad[:5]]} gave "
                                  f"{[hex(v) for v in got[keep][bad[:5]]]}, expected {[hex(v) for v in expected[keep][bad[:5]]]}")
        # From float16 and bfloat16, rounded to nearest: one rounding of the exact value.
        with np.errstate(over="ignore"):
            x16 = x32.astype(np.float16)
        y = device.put_bits(np.zeros(len(x16), np.uint8), TL_TYPES[name])
        convert_kernel[(triton.cdiv(len(x16), 1024), )](device.put(x16), y, len(x16), ROUNDING="rtne", BLOCK=1024)
        device.synchronize()
        got = device.get_bits(y)
        keep = check_nan_codes(got, x16, name)
        np.testing.assert_array_equal(got[keep], fp8_round(x16, name, False)[keep], err_msg=f"f16 -> {name}")
        xbf = (x32.view(np.uint32) >> 16).astype(np.uint16)
        y = device.put_bits(np.zeros(len(xbf), np.uint8), TL_TYPES[name])
        convert_kernel[(triton.cdiv(len(xbf), 1024), )](device.put_bf16(xbf), y, len(xbf), ROUNDING="rtne", BLOCK=1024)
        device.synchronize()
        got = device.get_bits(y)
        keep = check_nan_codes(got, bf16_of(xbf), name)
        np.testing.assert_array_equal(got[keep], fp8_round(bf16_of(xbf), name, False)[keep], err_msg=f"bf16 -> {name}")


def check_float32_to_half_toward_zero(device: Device):
    # tl.float16 and tl.bfloat16 with fp_downcast_rounding="rtz": the nearest
    # value not larger in magnitude; finite values beyond the range stop at
    # the largest finite one.
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.standard_normal(3000) * np.exp2(rng.uniform(-30, 20, 3000)),
                        [0.0, -0.0, np.inf, -np.inf, 65519.0, 65520.0, 1e6, -1e6, 2.0**-25, -3 * 2.0**-26, 3.4e38]])
    x = x.astype(np.float32)
    with np.errstate(over="ignore"):
        nearest = x.astype(np.float16)
    expected = np.where(np.abs(nearest.astype(np.float64)) > np.abs(x.astype(np.float64)),
                        np.nextafter(nearest, np.float16(0)), nearest)
    y = device.put(np.zeros(len(x), np.float16))
    convert_kernel[(triton.cdiv(len(x), 1024), )](device.put(x), y, len(x), ROUNDING="rtz", BLOCK=1024)
    device.synchronize()
    np.testing.assert_array_equal(device.get(y), expected)
    y = device.put_bf16(np.zeros(len(x), np.uint16))
    convert_kernel[(triton.cdiv(len(x), 1024), )](device.put(x), y, len(x), ROUNDING="rtz", BLOCK=1024)
    device.synchronize()
    np.testing.assert_array_equal(device.get_bf16(y), (x.view(np.uint32) >> 16).astype(np.uint16))


@triton.jit
def abs_kernel(x_ptr, abs_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(abs_ptr + offs, tl.abs(tl.load(x_ptr + offs)))


def check_fp8_abs(device: Device):
    # tl.abs clears the sign bit; in the FNUZ formats the NaN 0x80 stays.
    codes = np.arange(256, dtype=np.uint8)
    for name in FORMATS:
        fnuz = FORMATS[name][3] == "fnuz"
        keep = fnuz & (codes == 0x80)
        absolute = device.put_bits(np.zeros(256, np.uint8), TL_TYPES[name])
        abs_kernel[(1, )](device.put_bits(codes, TL_TYPES[name]), absolute, BLOCK=256)
        device.synchronize()
        np.testing.assert_array_equal(device.get_bits(absolute), np.where(keep, codes, codes & 0x7F), err_msg=name)


def check_fp8e4b15(device: Device):
    # Triton's own conversion: float32 rounds toward zero to float16, whose
    # magnitude is clamped at 1.75 (NaN too) and rounded half up to 3
    # mantissa bits. Every code but the top two (1.875) comes back.
    codes = np.arange(256, dtype=np.uint8)
    values = fp8_values("fp8e4b15").astype(np.float32)
    y = device.put_bits(np.zeros(256, np.uint8), tl.float8e4b15)
    convert_kernel[(1, )](device.put(values), y, 256, ROUNDING="rtne", BLOCK=256)
    device.synchronize()
    np.testing.assert_array_equal(device.get_bits(y), np.where((codes & 0x7F) == 0x7F, codes - 1, codes))
    x = np.array([0.3, -0.3, 5.0, np.nan, -np.inf, 2.0**-18, 1.0 + 2.0**-4, 1.0 + 2.0**-4 - 2.0**-12], np.float32)
    y = device.put_bits(np.zeros(len(x), np.uint8), tl.float8e4b15)
    convert_kernel[(1, )](device.put(x), y, len(x), ROUNDING="rtne", BLOCK=8)
    device.synchronize()
    # 0.3: f16 0.29980 = 1.1992 * 2^-2, half up to 1.25; half of the
    # smallest subnormal rounds up; 1 + 2^-4 is a tie (up), a hair below it
    # is not (once through float16 toward zero).
    assert list(device.get_bits(y)) == [0x6A, 0xEA, 0x7E, 0x7E, 0xFE, 0x01, 0x79, 0x78]


@triton.jit
def fp8_dot_kernel(a_ptr, b_ptr, c_ptr, c8_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)
    # Selects and constants of fp8 move bits: negative products become 0.
    c8 = c.to(c8_ptr.dtype.element_ty)
    tl.store(c8_ptr + rm[:, None] * N + rn[None, :], tl.where(c > 0, c8, tl.zeros_like(c8)))


def check_fp8_dot(device: Device):
    rng = np.random.default_rng(10)
    M, N, K = 32, 16, 64
    for a_name, b_name in (("fp8e5", "fp8e5"), ("fp8e4nv", "fp8e5"), ("fp8e4nv", "fp8e4nv")):
        # Small values: products and sums are exact in float32, so the result is too.
        a = fp8_round(rng.integers(-6, 7, (M, K)).astype(np.float32) / 4, a_name, False)
        b = fp8_round(rng.integers(-6, 7, (K, N)).astype(np.float32) / 2, b_name, False)
        expected = fp8_values(a_name)[a] @ fp8_values(b_name)[b]
        c = device.put(np.zeros((M, N), np.float32))
        c8 = device.put_bits(np.zeros((M, N), np.uint8), tl.float8e4nv)
        fp8_dot_kernel[(1, )](device.put_bits(a, TL_TYPES[a_name]), device.put_bits(b, TL_TYPES[b_name]), c, c8, M, N, K)
        device.synchronize()
        np.testing.assert_array_equal(device.get(c), expected.astype(np.float32), err_msg=f"{a_name} x {b_name}")
        np.testing.assert_array_equal(device.get_bits(c8), np.where(expected > 0, fp8_round(expected, "fp8e4nv", False), 0))


@triton.jit
def dot_scaled_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                      K: tl.constexpr, A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr, A_SCALED: tl.constexpr,
                      B_SCALED: tl.constexpr, FAST: tl.constexpr):
    A_K: tl.constexpr = K // 2 if A_FORMAT == "e2m1" else K
    B_K: tl.constexpr = K // 2 if B_FORMAT == "e2m1" else K
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    a = tl.load(a_ptr + rm[:, None] * A_K + tl.arange(0, A_K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, B_K)[:, None] * N + rn[None, :])
    a_scale = None
    b_scale = None
    if A_SCALED:
        a_scale = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    if B_SCALED:
        b_scale = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    c = tl.dot_scaled(a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, fast_math=FAST)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


E2M1_VALUES = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


def mx_operand(rng, fmt: str, rows: int, k: int, device: Device, is_b: bool):
    """Random data of `fmt` laid out as tl.dot_scaled takes it (K-major; e2m1
    two a byte along K, the low nibble first), and its values [rows, K]."""
    if fmt == "e2m1":
        packed = rng.integers(0, 256, (rows, k // 2), dtype=np.uint8)
        values = np.empty((rows, k))
        values[:, 0::2], values[:, 1::2] = E2M1_VALUES[packed & 15], E2M1_VALUES[packed >> 4]
        data = packed.T.copy() if is_b else packed
        return device.put(data), values
    if fmt in ("e4m3", "e5m2"):
        name = "fp8e4nv" if fmt == "e4m3" else "fp8e5"
        codes = rng.integers(0, 256, (rows, k), dtype=np.uint8)
        codes[np.isnan(fp8_values(name)[codes]) | np.isinf(fp8_values(name)[codes])] = 0x30
        data = codes.T.copy() if is_b else codes
        return device.put_bits(data, TL_TYPES[name]), fp8_values(name)[codes]
    values = rng.integers(-8, 9, (rows, k)) / 4.0
    data = (values.T.copy() if is_b else values)
    if fmt == "bf16":
        return device.put_bf16((data.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)), values
    return device.put(data.astype(np.float16)), values


def check_dot_scaled(device: Device):
    # tl.dot_scaled against NumPy: each operand's values times 2^(s - 127)
    # for its block of 32 along K, then a float64 product.
    rng = np.random.default_rng(11)
    cases = [("e2m1", "e4m3", True, True), ("e4m3", "e5m2", True, False), ("e2m1", "e2m1", True, True),
             ("bf16", "e2m1", False, True), ("fp16", "e4m3", False, True), ("e5m2", "bf16", True, False)]
    # 128x32x128 tiles: the spread scales must not take threadgroup memory
    # of the size of an operand (they gather from the small factors).
    # An e2m1 operand makes two dots (even and odd k), so that its nibbles
    # need no interleaving: 128x64x256 with e2m1 B fits that way.
    sizes = [(32, 16, 64)] * len(cases) + [(128, 32, 128)] * 2 + [(128, 64, 256)]
    cases += [("e4m3", "e4m3", True, True), ("e2m1", "fp16", True, False), ("e4m3", "e2m1", True, True)]
    for (a_format, b_format, a_scaled, b_scaled), (M, N, K) in zip(cases, sizes):
        a, a_values = mx_operand(rng, a_format, M, K, device, False)
        b, b_values = mx_operand(rng, b_format, N, K, device, True)
        a_scale = rng.integers(124, 131, (M, K // 32), dtype=np.uint8)
        b_scale = rng.integers(124, 131, (N, K // 32), dtype=np.uint8)
        if a_scaled:
            a_values = a_values * np.repeat(2.0**(a_scale.astype(np.float64) - 127), 32, axis=1)
        if b_scaled:
            b_values = b_values * np.repeat(2.0**(b_scale.astype(np.float64) - 127), 32, axis=1)
        expected = a_values @ b_values.T
        c = device.put(np.zeros((M, N), np.float32))
        dot_scaled_kernel[(1, )](a, device.put(a_scale), b, device.put(b_scale), c, M, N, K, a_format, b_format,
                                 a_scaled, b_scaled, False)
        device.synchronize()
        np.testing.assert_allclose(device.get(c), expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max(),
                                   err_msg=f"{a_format} x {b_format}")
    M, N, K = 32, 16, 64
    # A scale of 0xFF is NaN; fast_math skips that check, and the factor is
    # then 2^128 = inf (all-ones e4m3 operands: +inf sums instead of NaN).
    ones = np.full((M, K), 0x38, np.uint8)
    a_scale = np.full((M, K // 32), 127, np.uint8)
    a_scale[3, 1] = 0xFF
    for fast in (False, True):
        c = device.put(np.zeros((M, N), np.float32))
        dot_scaled_kernel[(1, )](device.put_bits(ones, tl.float8e4nv), device.put(a_scale),
                                 device.put_bits(np.full((K, N), 0x38, np.uint8), tl.float8e4nv), device.put(a_scale[:N]),
                                 c, M, N, K, "e4m3", "e4m3", True, False, fast)
        device.synchronize()
        got = device.get(c)
        expected = np.full((M, N), float(K), np.float32)
        expected[3] = np.inf if fast else np.nan
        np.testing.assert_array_equal(got, expected, err_msg=f"fast_math={fast}")


@triton.jit
def dot_scaled_mn_packed_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                                K: tl.constexpr, A_K_PACK: tl.constexpr, B_K_PACK: tl.constexpr):
    # e2m1 A and B, each packed two a byte along K or along M (A) / N (B).
    A_ROWS: tl.constexpr = M if A_K_PACK else M // 2
    A_K: tl.constexpr = K // 2 if A_K_PACK else K
    B_K: tl.constexpr = K // 2 if B_K_PACK else K
    B_N: tl.constexpr = N if B_K_PACK else N // 2
    a = tl.load(a_ptr + tl.arange(0, A_ROWS)[:, None] * A_K + tl.arange(0, A_K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, B_K)[:, None] * B_N + tl.arange(0, B_N)[None, :])
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    a_scale = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    b_scale = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    c = tl.dot_scaled(a, a_scale, "e2m1", b, b_scale, "e2m1", lhs_k_pack=A_K_PACK, rhs_k_pack=B_K_PACK)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


def check_dot_scaled_packed_along_m_or_n(device: Device):
    # Triton's test_block_scale_fp4 with PACK_ALONG_K=False: e2m1 pairs
    # packed along M in A (a byte's low nibble row 2i, its high one 2i + 1)
    # or along N in B, against NumPy. The pairs are unpacked in registers
    # (A's by renaming each thread's registers): no threadgroup memory but
    # the dot's and the scales' (a 128x128x128 product in 18 KB).
    rng = np.random.default_rng(23)
    codes = {v: i for i, v in enumerate(E2M1_VALUES[:8])}

    def code(v):
        return np.vectorize(lambda x: codes[abs(x)] | (8 if np.signbit(x) else 0))(v).astype(np.uint8)

    def packed(values, along_rows):  # two a byte, the low nibble first
        c = code(values)
        return (c[0::2] | (c[1::2] << 4)) if along_rows else (c[:, 0::2] | (c[:, 1::2] << 4))

    for (M, N, K), a_k_pack, b_k_pack in (((64, 32, 128), False, True), ((64, 32, 128), True, False),
                                          ((64, 32, 128), False, False), ((128, 128, 128), False, False)):
        a_values = E2M1_VALUES[rng.integers(0, 16, (M, K))]
        b_values = E2M1_VALUES[rng.integers(0, 16, (K, N))]
        a_scale = rng.integers(124, 131, (M, K // 32), dtype=np.uint8)
        b_scale = rng.integers(124, 131, (N, K // 32), dtype=np.uint8)
        expected = ((a_values * np.repeat(2.0**(a_scale.astype(np.float64) - 127), 32, axis=1)) @
                    (b_values * np.repeat(2.0**(b_scale.astype(np.float64) - 127), 32, axis=1).T))
        a = packed(a_values, along_rows=not a_k_pack)  # along K: the pairs lie along A's rows
        b = packed(b_values, along_rows=b_k_pack)  # along K: down B's columns
        c = device.put(np.zeros((M, N), np.float32))
        compiled = dot_scaled_mn_packed_kernel[(1, )](device.put(np.ascontiguousarray(a)), device.put(a_scale),
                                                      device.put(np.ascontiguousarray(b)), device.put(b_scale), c, M,
                                                      N, K, a_k_pack, b_k_pack)
        device.synchronize()
        where = f"{M}x{N}x{K} lhs_k_pack={a_k_pack} rhs_k_pack={b_k_pack}"
        np.testing.assert_allclose(device.get(c), expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max(),
                                   err_msg=where)
        buffers = compiled.metadata.tmetal_abi["layouts"]["threadgroup_buffers"]
        assert {b["purpose"].split(" ")[0] for b in buffers} <= {"dot_ab", "gather"}, (where, buffers)


@triton.jit
def dot_scaled_column_major_a_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                                     K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rk[None, :] * M + rm[:, None])  # K not contiguous
    b = tl.load(b_ptr + tl.arange(0, K // 2)[:, None] * N + rn[None, :])
    a_scale = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    b_scale = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    c = tl.dot_scaled(a, a_scale, "e4m3", b, b_scale, "e2m1")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


def check_dot_scaled_column_major_a(device: Device):
    # Triton's test_scaled_dot with a column-major 128x128 e4m3 A and an
    # e2m1 B: splitting A into its even and odd k goes through threadgroup
    # memory beside the dots' staging, in pieces (it had been refused).
    rng = np.random.default_rng(29)
    M = N = K = 128
    codes = rng.integers(0, 256, (M, K), dtype=np.uint8)
    codes[np.isnan(fp8_values("fp8e4nv")[codes])] = 0x30
    b, b_values = mx_operand(rng, "e2m1", N, K, device, True)
    a_scale = rng.integers(124, 131, (M, K // 32), dtype=np.uint8)
    b_scale = rng.integers(124, 131, (N, K // 32), dtype=np.uint8)
    expected = ((fp8_values("fp8e4nv")[codes] * np.repeat(2.0**(a_scale.astype(np.float64) - 127), 32, axis=1)) @
                (b_values * np.repeat(2.0**(b_scale.astype(np.float64) - 127), 32, axis=1)).T)
    c = device.put(np.zeros((M, N), np.float32))
    compiled = dot_scaled_column_major_a_kernel[(1, )](device.put_bits(codes.T.copy(), tl.float8e4nv),
                                                        device.put(a_scale), b, device.put(b_scale), c, M, N, K)
    device.synchronize()
    np.testing.assert_allclose(device.get(c), expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] <= 32768


@triton.jit
def dot_scaled_nvfp4_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                            K: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    a = tl.load(a_ptr + rm[:, None] * (K // 2) + tl.arange(0, K // 2)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K // 2)[:, None] * N + rn[None, :])
    a_scale = tl.load(a_scale_ptr + rm[:, None] * (K // 16) + tl.arange(0, K // 16)[None, :])
    b_scale = tl.load(b_scale_ptr + rn[:, None] * (K // 16) + tl.arange(0, K // 16)[None, :])
    c = tl.dot_scaled(a, a_scale, "e2m1", b, b_scale, "e2m1")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


def check_dot_scaled_nvfp4(device: Device):
    # NVIDIA's nvfp4 (Triton's test_block_scale_fp4 'nvfp4'): e2m1 operands
    # whose blocks of 16 elements along K share an e4m3 factor.
    rng = np.random.default_rng(31)
    M, N, K = 32, 16, 64
    a, a_values = mx_operand(rng, "e2m1", M, K, device, False)
    b, b_values = mx_operand(rng, "e2m1", N, K, device, True)
    a_codes = rng.integers(0x28, 0x48, (M, K // 16), dtype=np.uint8)  # 0.125 to 4: exact in bf16
    b_codes = rng.integers(0x28, 0x48, (N, K // 16), dtype=np.uint8)
    factor = fp8_values("fp8e4nv")
    expected = ((a_values * np.repeat(factor[a_codes], 16, axis=1)) @
                (b_values * np.repeat(factor[b_codes], 16, axis=1)).T)
    c = device.put(np.zeros((M, N), np.float32))
    dot_scaled_nvfp4_kernel[(1, )](a, device.put_bits(a_codes, tl.float8e4nv), b,
                                   device.put_bits(b_codes, tl.float8e4nv), c, M, N, K)
    device.synchronize()
    np.testing.assert_allclose(device.get(c), expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max())


CHECKS = {
    "dot_scaled_nvfp4": check_dot_scaled_nvfp4,
    "dot_scaled_packed_along_m_or_n": check_dot_scaled_packed_along_m_or_n,
    "dot_scaled_column_major_a": check_dot_scaled_column_major_a,
    "fp8_to_wider": check_fp8_to_wider,
    "float_to_fp8": check_float_to_fp8,
    "float32_to_half_toward_zero": check_float32_to_half_toward_zero,
    "fp8_dot": check_fp8_dot,
    "fp8e4b15": check_fp8e4b15,
    "fp8_abs": check_fp8_abs,
    "dot_scaled": check_dot_scaled,
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_float8_on_the_emulator(codegen_emulator, name):
    CHECKS[name](EMULATOR)


def test_reference_decodes_known_codes():
    # The reference itself, against values from the formats' specifications.
    assert fp8_values("fp8e4nv")[0x7E] == 448 and np.isnan(fp8_values("fp8e4nv")[0x7F])
    assert fp8_values("fp8e4nv")[0x01] == 2.0**-9 and fp8_values("fp8e4nv")[0xB8] == -1
    assert fp8_values("fp8e5")[0x7B] == 57344 and fp8_values("fp8e5")[0x7C] == np.inf
    assert fp8_values("fp8e5")[0x01] == 2.0**-16 and np.isnan(fp8_values("fp8e5")[0x7D])
    assert list(fp8_round(np.array([464.0, 480.0, -1e9, 2.0**-10, 3 * 2.0**-11]), "fp8e4nv", False)) == [0x7E, 0x7E, 0xFE, 0, 1]
