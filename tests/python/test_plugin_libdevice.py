"""libdevice (``triton.language.extra.libdevice``) through the plugin: the
module map, and the generated helpers against references computed here
with SciPy, Python's math and exact rationals (fractions) -- independent of
tmetal's interpreter, which tests/unit/test_libdevice.cpp checks the same
code against over a wider sweep.

Each check takes a `Device` (test_plugin_language.py) so that
test_plugin_cuda.py runs the same checks on an NVIDIA GPU.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import triton
import triton.language as tl
from triton.language.extra import libdevice

import triton_metal
from test_plugin_language import EMULATOR, Device

N = 256

# Python names whose every variant tmetal implements; the others raise
# NotImplementedError until their helpers land (test_pending_functions_...).
IMPLEMENTED = {name for name, *_, done in triton_metal._native.core().libdevice_functions() if done} - {
    name for name, *_, done in triton_metal._native.core().libdevice_functions() if not done}


@triton.jit
def unary_kernel(out_ptr, x_ptr, FN: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, getattr(libdevice, FN)(x))


@triton.jit
def binary_kernel(out_ptr, x_ptr, y_ptr, FN: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, getattr(libdevice, FN)(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


@triton.jit
def ternary_kernel(out_ptr, x_ptr, y_ptr, z_ptr, FN: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x, y, z = tl.load(x_ptr + offs), tl.load(y_ptr + offs), tl.load(z_ptr + offs)
    tl.store(out_ptr + offs, getattr(libdevice, FN)(x, y, z))


def run_unary(dev: Device, fn: str, x: np.ndarray, out_dtype=np.float32) -> np.ndarray:
    out = dev.put(np.zeros(N, out_dtype))
    unary_kernel[(1, )](out, dev.put(x), FN=fn, N=N)
    dev.synchronize()
    return dev.get(out)


def run_binary(dev: Device, fn: str, x: np.ndarray, y: np.ndarray, out_dtype=np.float32) -> np.ndarray:
    out = dev.put(np.zeros(N, out_dtype))
    binary_kernel[(1, )](out, dev.put(x), dev.put(y), FN=fn, N=N)
    dev.synchronize()
    return dev.get(out)


def assert_ulps(got, want, ulps, atol=0.0, what=""):
    want = np.asarray(want, np.float64)
    got = np.asarray(got, np.float64)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), f"{what}: NaN where the reference has none, or the reverse"
    inf = np.isinf(want)
    assert np.array_equal(got[inf], want[inf]), f"{what}: infinities differ"
    finite = ~nan & ~inf
    spacing = np.spacing(np.abs(want[finite]).astype(np.float32)).astype(np.float64)
    err = np.abs(got[finite] - want[finite])
    bad = (err > ulps * spacing) & (err > atol)
    assert not bad.any(), (f"{what}: {bad.sum()} values beyond {ulps} ulp / {atol}, e.g. x index "
                           f"{np.flatnonzero(finite)[bad][:3]}: got {got[finite][bad][:3]}, want {want[finite][bad][:3]}")


class _SciPy:
    """scipy.special, imported when a reference is first needed (the GPU
    machine's Python may lack SciPy; CI installs it from requirements.txt)."""

    def __getattr__(self, name):
        return getattr(pytest.importorskip("scipy.special"), name)


sp = _SciPy()


def sample(low, high, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, N).astype(np.float32)


# ---- special functions against SciPy / math ----------------------------------------

SPECIAL = {
    # name: (inputs, reference in float64, ulps, absolute tolerance)
    "j0": (sample(-30, 30), lambda x: sp.j0(x), 8, 2.5e-6),
    "j1": (sample(-30, 30, 1), lambda x: sp.j1(x), 8, 2.5e-6),
    "y0": (sample(0.01, 30), lambda x: sp.y0(x), 8, 2.5e-6),
    "y1": (sample(0.01, 30, 1), lambda x: sp.y1(x), 8, 2.5e-6),
    "cyl_bessel_i0": (sample(-20, 20), lambda x: sp.i0(x), 8, 0),
    "cyl_bessel_i1": (sample(-20, 20, 1), lambda x: sp.i1(x), 8, 0),
    "erf": (sample(-5, 5), lambda x: sp.erf(x), 3, 0),
    "erfc": (sample(-3, 10), lambda x: sp.erfc(x), 5, 0),
    "erfcx": (sample(-5, 50), lambda x: sp.erfcx(x), 5, 0),
    "erfinv": (sample(-0.9999, 0.9999), lambda x: sp.erfinv(x), 5, 0),
    "erfcinv": (sample(1e-6, 1.999), lambda x: sp.erfcinv(x), 4, 0),
    "normcdf": (sample(-12, 6), lambda x: sp.ndtr(x), 5, 0),
    "normcdfinv": (sample(1e-6, 0.999999), lambda x: sp.ndtri(x), 5, 0),
    "lgamma": (sample(0.01, 40), lambda x: sp.gammaln(x), 6, 0),
    "tgamma": (sample(0.05, 30), lambda x: sp.gamma(x), 6, 0),
    "expm1": (sample(-5, 5), np.expm1, 2, 0),
    "log1p": (sample(-0.99, 10), np.log1p, 2, 0),
    "cbrt": (sample(-1e6, 1e6), np.cbrt, 1, 0),
    "rcbrt": (sample(0.001, 1e6), lambda x: 1 / np.cbrt(x), 2, 0),
    "sinpi": (sample(-100, 100), lambda x: np.sin(np.pi * np.fmod(x, 2.0)), 2, 1e-7),
    "logb": (sample(-1e30, 1e30), lambda x: np.floor(np.log2(np.abs(x))), 0, 0),
}


def check_special(dev: Device) -> None:
    for fn, (x, ref, ulps, atol) in SPECIAL.items():
        if fn not in IMPLEMENTED:
            continue
        assert_ulps(run_unary(dev, fn, x), ref(x.astype(np.float64)), ulps, atol, what=fn)
    # Special values as C99 and CUDA define them.
    x = np.zeros(N, np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0]
    if "lgamma" in IMPLEMENTED:
        lg = run_unary(dev, "lgamma", x)
        assert lg[0] == np.inf and lg[2] == np.inf and lg[3] == np.inf and np.isnan(lg[4]) and lg[5] == np.inf
    if "y0" in IMPLEMENTED:
        y0 = run_unary(dev, "y0", x)
        assert y0[0] == -np.inf and y0[2] == 0 and np.isnan(y0[5])
    e1 = run_unary(dev, "expm1", x)
    assert e1[3] == -1 and e1[2] == np.inf and np.signbit(e1[1])
    l1 = run_unary(dev, "log1p", x)
    assert l1[5] == -np.inf and l1[2] == np.inf and np.signbit(l1[1]) and np.isnan(l1[3])


def check_binary(dev: Device) -> None:
    rng = np.random.default_rng(3)
    x = rng.uniform(-50, 50, N).astype(np.float32)
    y = rng.uniform(-50, 50, N).astype(np.float32)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    assert {"copysign", "fdim", "fmod", "atan2"} <= IMPLEMENTED
    np.testing.assert_array_equal(run_binary(dev, "copysign", x, y), np.copysign(x, y))
    np.testing.assert_array_equal(run_binary(dev, "fdim", x, y), np.maximum(x - y, 0).astype(np.float32))
    np.testing.assert_array_equal(run_binary(dev, "fmod", x, y), np.fmod(x, y))
    assert_ulps(run_binary(dev, "atan2", x, y), np.arctan2(x64, y64), 2, what="atan2")
    if "hypot" in IMPLEMENTED:
        assert_ulps(run_binary(dev, "hypot", x, y), np.hypot(x64, y64), 2, what="hypot")
    if "remainder" in IMPLEMENTED:
        np.testing.assert_array_equal(run_binary(dev, "remainder", x, y),
                                      np.array([math.remainder(a, b) for a, b in zip(x64, y64)], np.float32))
    if "nextafter" in IMPLEMENTED:
        np.testing.assert_array_equal(run_binary(dev, "nextafter", x, y), np.nextafter(x, y))
    n = np.arange(N, dtype=np.int32) % 9
    if {"jn", "yn"} <= IMPLEMENTED:
        assert_ulps(run_binary(dev, "jn", n, np.abs(x) / 2), sp.jv(n, np.abs(x64) / 2), 16, 3e-6, what="jn")
        assert_ulps(run_binary(dev, "yn", n, np.abs(x) / 2 + 0.5), sp.yv(n, np.abs(x64) / 2 + 0.5), 16, 3e-6,
                    what="yn")
    if "pow" in IMPLEMENTED:
        assert_ulps(run_binary(dev, "pow", np.abs(x), y / 8), np.abs(x64)**(y64 / 8), 2, what="pow")
        e = (np.arange(N, dtype=np.int32) % 61) - 30
        assert_ulps(run_binary(dev, "pow", x / 16, e), (x64 / 16)**e.astype(np.float64), 2, what="powi")


# ---- rounding modes, exactly ----------------------------------------------------------------


def rounded(value: Fraction, mode: str) -> np.float32:
    """The float32 that `value` rounds to in `mode` (rn, rz, rd, ru)."""
    g = np.float32(float(value))
    while Fraction(float(g)) > value:
        g = np.nextafter(g, np.float32(-np.inf))
    up = g if Fraction(float(g)) == value else np.nextafter(g, np.float32(np.inf))
    if mode == "rd" or (mode == "rz" and value >= 0):
        return g
    if mode == "ru" or mode == "rz":
        return up
    dg, du = value - Fraction(float(g)), Fraction(float(up)) - value
    if dg != du:
        return g if dg < du else up
    return g if (int(np.float32(g).view(np.uint32)) & 1) == 0 else up


def check_rounding(dev: Device) -> None:
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(N) * 2.0**rng.integers(-20, 20, N)).astype(np.float32)
    y = (rng.standard_normal(N) * 2.0**rng.integers(-20, 20, N)).astype(np.float32)
    exact = {
        "add": lambda a, b: Fraction(float(a)) + Fraction(float(b)),
        "sub": lambda a, b: Fraction(float(a)) - Fraction(float(b)),
        "mul": lambda a, b: Fraction(float(a)) * Fraction(float(b)),
        "div": lambda a, b: Fraction(float(a)) / Fraction(float(b)),
    }
    for op, f in exact.items():
        for mode in ("rn", "rz", "rd", "ru"):
            if f"{op}_{mode}" not in IMPLEMENTED:
                continue
            got = run_binary(dev, f"{op}_{mode}", x, y)
            want = np.array([rounded(f(a, b), mode) for a, b in zip(x, y)], np.float32)
            np.testing.assert_array_equal(got, want, err_msg=f"{op}_{mode}")
    # fma: addends of every size against the product, and the product's own
    # rounding negated (the exact sum is then the product's rounding error).
    z = (rng.standard_normal(N) * 2.0**rng.integers(-45, 45, N)).astype(np.float32)
    z[::3] = -(x[::3] * y[::3])
    z[1::7] = 0.0
    for mode in ("rn", "rz", "rd", "ru"):
        if f"fma_{mode}" not in IMPLEMENTED:
            continue
        out = dev.put(np.zeros(N, np.float32))
        ternary_kernel[(1, )](out, dev.put(x), dev.put(y), dev.put(z), FN=f"fma_{mode}", N=N)
        dev.synchronize()
        want = [rounded(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)), mode) for a, b, c in zip(x, y, z)]
        np.testing.assert_array_equal(dev.get(out), np.array(want, np.float32), err_msg=f"fma_{mode}")
    if "rsqrt_rn" in IMPLEMENTED:
        # The float nearest 1/sqrt(v): the midpoints between it and the floats
        # beside it enclose the exact value (m * m * v against 1, in rationals).
        v = np.abs(x)
        v[:6] = [2.0**-149, 2.0**-126, np.finfo(np.float32).max, 1.0, 4.0, 0.25]
        got = run_unary(dev, "rsqrt_rn", v)
        for a, r in zip(v, got):
            a, below, above = Fraction(float(a)), np.nextafter(r, np.float32(0)), np.nextafter(r, np.float32(np.inf))
            low, high = (Fraction(float(below)) + Fraction(float(r))) / 2, (Fraction(float(r)) + Fraction(float(above))) / 2
            assert low * low * a < 1 < high * high * a, (float(a), float(r))
        special = run_unary(dev, "rsqrt_rn", np.array([0.0, -0.0, np.inf, -1.0, np.nan] * (N // 5), np.float32))
        np.testing.assert_array_equal(special[:5], [np.inf, -np.inf, 0.0, np.nan, np.nan])
    for mode in ("rn", "rz", "rd", "ru"):
        if f"float2int_{mode}" not in IMPLEMENTED:
            continue
        got = run_unary(dev, f"float2int_{mode}", x * 1000)
        want = np.array([{"rn": round, "rz": math.trunc, "rd": math.floor, "ru": math.ceil}[mode](Fraction(float(v)))
                         for v in x * 1000], np.int64)
        np.testing.assert_array_equal(got, np.clip(want, -2**31, 2**31 - 1).astype(np.float32), err_msg=mode)


def check_integers(dev: Device) -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
    a[:4] = [0, -1, 1, -2**31]
    u = a.view(np.uint32).astype(np.int64)
    np.testing.assert_array_equal(run_unary(dev, "popc", a, np.int32), [bin(v).count("1") for v in u])
    np.testing.assert_array_equal(run_unary(dev, "clz", a, np.int32), [32 - int(v).bit_length() for v in u])
    np.testing.assert_array_equal(run_unary(dev, "ffs", a, np.int32),
                                  [(int(v) & -int(v)).bit_length() for v in u])
    np.testing.assert_array_equal(run_unary(dev, "brev", a, np.int32).view(np.uint32),
                                  [int(f"{int(v):032b}"[::-1], 2) for v in u])
    np.testing.assert_array_equal(run_binary(dev, "mulhi", a, b, np.int32),
                                  ((a.astype(np.int64) * b.astype(np.int64)) >> 32).astype(np.int32))
    np.testing.assert_array_equal(run_binary(dev, "hadd", a, b, np.int32),
                                  ((a.astype(np.int64) + b.astype(np.int64)) >> 1).astype(np.int32))
    np.testing.assert_array_equal(run_binary(dev, "rhadd", a, b, np.int32),
                                  ((a.astype(np.int64) + b.astype(np.int64) + 1) >> 1).astype(np.int32))
    big = rng.integers(-2**63, 2**63 - 1, N, dtype=np.int64)
    np.testing.assert_array_equal(run_binary(dev, "mulhi", big, big[::-1].copy(), np.int64),
                                  [(int(p) * int(q)) >> 64 for p, q in zip(big, big[::-1])])
    np.testing.assert_array_equal(run_unary(dev, "popc", big, np.int32), [bin(int(v) & (2**64 - 1)).count("1")
                                                                          for v in big])


CHECKS = {
    "special": check_special,
    "binary": check_binary,
    "rounding": check_rounding,
    "integers": check_integers,
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_libdevice_on_the_emulator(codegen_emulator, name):
    CHECKS[name](EMULATOR)


def test_module_map_points_triton_at_tmetals_libdevice():
    from triton_metal import libdevice as ours
    from triton_metal.compiler import MetalBackend
    assert MetalBackend.get_module_map(None)["triton.language.extra.libdevice"] is ours
    assert ours.j0.__name__ == "j0"


@triton.jit
def float64_kernel(out_ptr, x_ptr):
    tl.store(out_ptr, libdevice.tanh(tl.load(x_ptr)))


@triton.jit
def missing_kernel(out_ptr, x_ptr):
    tl.store(out_ptr, libdevice.double2float_rn(tl.load(x_ptr)))


def test_unavailable_variants_name_the_line(codegen_emulator):
    with pytest.raises(triton.CompilationError, match=r"libdevice\.tanh: tmetal has no variant for arguments \('fp64',\)"):
        float64_kernel[(1, )](triton_metal.tensor(np.zeros(1, np.float32)), triton_metal.tensor(np.zeros(1, np.float64)))
    with pytest.raises(triton.CompilationError, match=r"libdevice\.double2float_rn is not implemented by tmetal"):
        missing_kernel[(1, )](triton_metal.tensor(np.zeros(1, np.float32)), triton_metal.tensor(np.zeros(1, np.float32)))


def test_every_function_of_the_table_is_implemented():
    pending = {name for name, *_, done in triton_metal._native.core().libdevice_functions() if not done}
    assert not pending
