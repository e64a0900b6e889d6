"""Ops the kernel suite does not exercise, checked by running small TTIR
kernels on the reference interpreter and on the emulator (the emitted MSL)
with `tmetal run`, under every layout policy: the two must agree (exactly
for integers and for correctly rounded float ops, within a few ulps for the
transcendental functions).

The kernels are written in TTIR as Triton prints it; each loads its inputs,
applies ops and stores every result into one output row per op.
"""
from __future__ import annotations

import numpy as np
import pytest

from test_kernel_suite import _describe, _tmetal

POLICIES = ["coalesced", "row_major", "column_major", "tiled"]


def _load(name: str, arg: int, n: int, ty: str, ptr: str = None) -> str:
    ptr = ptr or f"%{name}_base"
    return (f"    %{name}_p = tt.splat %arg{arg} : !tt.ptr<{ty}> -> tensor<{n}x!tt.ptr<{ty}>>\n"
            f"    %{name}_q = tt.addptr %{name}_p, %r : tensor<{n}x!tt.ptr<{ty}>>, tensor<{n}xi32>\n"
            f"    %{name} = tt.load %{name}_q : tensor<{n}x!tt.ptr<{ty}>>\n")


def _store_rows(values: list[tuple[str, str]], out_arg: int, n: int, ty: str) -> str:
    """Stores value k (name, type) at out + k * n + r."""
    text = f"    %o_p = tt.splat %arg{out_arg} : !tt.ptr<{ty}> -> tensor<{n}x!tt.ptr<{ty}>>\n"
    text += f"    %o_q = tt.addptr %o_p, %r : tensor<{n}x!tt.ptr<{ty}>>, tensor<{n}xi32>\n"
    for k, (name, _) in enumerate(values):
        text += (f"    %row{k} = arith.constant dense<{k * n}> : tensor<{n}xi32>\n"
                 f"    %o{k} = tt.addptr %o_q, %row{k} : tensor<{n}x!tt.ptr<{ty}>>, tensor<{n}xi32>\n"
                 f"    tt.store %o{k}, %{name} : tensor<{n}x!tt.ptr<{ty}>>\n")
    return text


N = 128

FLOAT_OPS = [
    ("remf", "arith.remf %x, %y : tensor<128xf32>"),
    ("maximumf", "arith.maximumf %x, %y : tensor<128xf32>"),
    ("minimumf", "arith.minimumf %x, %y : tensor<128xf32>"),
    ("negf", "arith.negf %x : tensor<128xf32>"),
    ("exp2", "math.exp2 %x : tensor<128xf32>"),
    ("tanh", "math.tanh %x : tensor<128xf32>"),
    ("ceil", "math.ceil %x : tensor<128xf32>"),
    ("sqrt", "tt.precise_sqrt %ax : tensor<128xf32>"),
    ("fast_sqrt", "math.sqrt %ax : tensor<128xf32>"),
    ("sin", "math.sin %x : tensor<128xf32>"),  # with the cos below: one sincos
    ("cos", "math.cos %x : tensor<128xf32>"),
    ("divf", "tt.precise_divf %x, %y : tensor<128xf32>"),
    ("clamp", "tt.clampf %x, %y, %ax, propagateNan = none : tensor<128xf32>"),
    ("log2", "math.log2 %ax : tensor<128xf32>"),
    ("fma", "math.fma %x, %y, %ax : tensor<128xf32>"),
    ("erf", "math.erf %x : tensor<128xf32>"),
]

FLOAT_KERNEL = ("module {\n  tt.func public @float_ops(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, "
                "%arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}) "
                "attributes {noinline = false} {\n"
                "    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>\n"
                + _load("x", 0, N, "f32") + _load("y", 1, N, "f32")
                + "    %ax = math.absf %x : tensor<128xf32>\n"
                + "".join(f"    %{name} = {op}\n" for name, op in FLOAT_OPS)
                + _store_rows([(name, "f32") for name, _ in FLOAT_OPS], 2, N, "f32")
                + "    tt.return\n  }\n}\n")

INT_OPS = [
    ("ceildiv", "arith.ceildivsi %a, %b : tensor<128xi32>"),
    ("floordiv", "arith.floordivsi %a, %b : tensor<128xi32>"),
    ("maxu", "arith.maxui %a, %b : tensor<128xi32>"),
    ("minu", "arith.minui %a, %b : tensor<128xi32>"),
    ("absi", "math.absi %a : tensor<128xi32>"),
    ("mulhi", "tt.mulhiui %a, %b : tensor<128xi32>"),
    ("i8s", "arith.extsi %a8 : tensor<128xi8> to tensor<128xi32>"),
    ("i16u", "arith.extui %a16 : tensor<128xi16> to tensor<128xi32>"),
    ("bits", "arith.bitcast %af : tensor<128xf32> to tensor<128xi32>"),
    ("wide", "arith.trunci %a64 : tensor<128xi64> to tensor<128xi32>"),
    ("negone", "arith.extsi %neg : tensor<128xi1> to tensor<128xi32>"),
    ("fromf", "arith.fptosi %hf : tensor<128xf16> to tensor<128xi32>"),
]

INT_KERNEL = ("module {\n  tt.func public @int_ops(%arg0: !tt.ptr<i32> {tt.divisibility = 16 : i32}, "
              "%arg1: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<i32> {tt.divisibility = 16 : i32}) "
              "attributes {noinline = false} {\n"
              "    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>\n"
              + _load("a", 0, N, "i32") + _load("b", 1, N, "i32")
              + "    %a8 = arith.trunci %a : tensor<128xi32> to tensor<128xi8>\n"
              + "    %a16 = arith.trunci %a : tensor<128xi32> to tensor<128xi16>\n"
              + "    %af = arith.sitofp %a : tensor<128xi32> to tensor<128xf32>\n"
              + "    %a64 = arith.extsi %a : tensor<128xi32> to tensor<128xi64>\n"
              + "    %neg = arith.cmpi slt, %a, %b : tensor<128xi32>\n"
              + "    %hf = arith.sitofp %b : tensor<128xi32> to tensor<128xf16>\n"
              + "".join(f"    %{name} = {op}\n" for name, op in INT_OPS)
              + _store_rows([(name, "i32") for name, _ in INT_OPS], 2, N, "i32")
              + "    tt.return\n  }\n}\n")

ATOMIC_KERNEL = """module {
  tt.func public @atomics(%arg0: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<i32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %c8 = arith.constant dense<8> : tensor<128xi32>
    %bucket = arith.remsi %r, %c8 : tensor<128xi32>
    %vp = tt.splat %arg0 : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %vq = tt.addptr %vp, %r : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %v = tt.load %vq : tensor<128x!tt.ptr<i32>>
    %true = arith.constant dense<true> : tensor<128xi1>
    %hp = tt.splat %arg1 : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %hq = tt.addptr %hp, %bucket : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %c16 = arith.constant dense<16> : tensor<128xi32>
    %hq2 = tt.addptr %hq, %c16 : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %hq3 = tt.addptr %hq2, %c16 : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %hq4 = tt.addptr %hq3, %c16 : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %0 = tt.atomic_rmw xor, acq_rel, gpu, %hq, %v, %true : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    %1 = tt.atomic_rmw min, acq_rel, gpu, %hq2, %v, %true : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    %2 = tt.atomic_rmw umax, acq_rel, gpu, %hq3, %v, %true : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    %3 = tt.atomic_rmw or, acq_rel, gpu, %hq4, %v, %true : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    %fp = tt.splat %arg2 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %fq = tt.addptr %fp, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %vf = arith.sitofp %v : tensor<128xi32> to tensor<128xf32>
    %old = tt.load %fq : tensor<128x!tt.ptr<f32>>
    %4 = tt.atomic_cas acq_rel, gpu, %fq, %old, %vf : (tensor<128x!tt.ptr<f32>>, tensor<128xf32>, tensor<128xf32>) -> tensor<128xf32>
    %5 = tt.atomic_rmw exch, acq_rel, gpu, %vq, %bucket, %true : (tensor<128x!tt.ptr<i32>>, tensor<128xi32>, tensor<128xi1>) -> tensor<128xi32>
    %f128 = arith.constant dense<128> : tensor<128xi32>
    %fm = tt.addptr %fq, %f128 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %6 = tt.atomic_rmw max, acq_rel, gpu, %fm, %vf, %true : (tensor<128x!tt.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> tensor<128xf32>
    %op = tt.splat %arg3 : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>>
    %oq = tt.addptr %op, %r : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    %casi = arith.fptosi %4 : tensor<128xf32> to tensor<128xi32>
    tt.store %oq, %casi : tensor<128x!tt.ptr<i32>>
    %c128 = arith.constant dense<128> : tensor<128xi32>
    %oq2 = tt.addptr %oq, %c128 : tensor<128x!tt.ptr<i32>>, tensor<128xi32>
    tt.store %oq2, %5 : tensor<128x!tt.ptr<i32>>
    tt.return
  }
}
"""


def run(ttir, tmp_path, args: dict, outs: list[int], device: str, layout: str = "coalesced"):
    path = tmp_path / "kernel.ttir"
    path.write_text(ttir)
    work = tmp_path / f"{device}_{layout}"
    work.mkdir(exist_ok=True)
    command = ["run", str(path), "--grid", "1", "--device", device]
    if device == "emulator":
        command += ["--layout", layout, "--sanitize"]
    for index, value in args.items():
        p = work / f"arg{index}.npy"
        np.save(p, value)
        command += ["--arg", f"{index}={p}"]
    for index in outs:
        command += ["--out", f"{index}={work / f'out{index}.npy'}"]
    proc = _tmetal(*command)
    assert proc.returncode == 0, _describe(proc)
    return {index: np.load(work / f"out{index}.npy") for index in outs}


def float_inputs():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(N) * 3).astype(np.float32)
    y = (rng.standard_normal(N) * 2).astype(np.float32)
    x[5] = np.nan
    y[9] = np.nan
    y[11] = 0.0
    x[12], y[12] = -0.0, 0.0
    return {0: x, 1: y, 2: np.zeros(len(FLOAT_OPS) * N, np.float32)}


@pytest.mark.parametrize("layout", POLICIES)
def test_float_ops_match_the_interpreter(layout, tmp_path):
    args = float_inputs()
    ref = run(FLOAT_KERNEL, tmp_path, args, [2], "interpreter")[2].reshape(-1, N)
    got = run(FLOAT_KERNEL, tmp_path, args, [2], "emulator", layout)[2].reshape(-1, N)
    for k, (name, _) in enumerate(FLOAT_OPS):
        # maximumf/minimumf of -0.0 and 0.0 may return either zero
        np.testing.assert_allclose(got[k], ref[k], rtol=2e-6, atol=1e-7, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("layout", POLICIES)
def test_int_ops_match_the_interpreter(layout, tmp_path):
    rng = np.random.default_rng(4)
    a = rng.integers(-70000, 70000, N).astype(np.int32)
    b = rng.integers(-50, 50, N).astype(np.int32)
    b[b == 0] = 3
    a[:4] = [2**31 - 1, -2**31, -1, 0]
    args = {0: a, 1: b, 2: np.zeros(len(INT_OPS) * N, np.int32)}
    ref = run(INT_KERNEL, tmp_path, args, [2], "interpreter")[2].reshape(-1, N)
    got = run(INT_KERNEL, tmp_path, args, [2], "emulator", layout)[2].reshape(-1, N)
    for k, (name, _) in enumerate(INT_OPS):
        np.testing.assert_array_equal(got[k], ref[k], err_msg=name)


@pytest.mark.parametrize("layout", POLICIES)
def test_atomics_match_the_interpreter(layout, tmp_path):
    rng = np.random.default_rng(5)
    values = rng.integers(-1000, 1000, N).astype(np.int32)
    hist = np.zeros(64, np.int32)
    hist[16:24] = 1 << 30  # min starts high
    floats = rng.standard_normal(2 * N).astype(np.float32)
    args = {0: values, 1: hist, 2: floats, 3: np.zeros(2 * N, np.int32)}
    ref = run(ATOMIC_KERNEL, tmp_path, args, [0, 1, 2, 3], "interpreter")
    got = run(ATOMIC_KERNEL, tmp_path, args, [0, 1, 2, 3], "emulator", layout)
    for index in ref:
        np.testing.assert_array_equal(got[index], ref[index], err_msg=f"argument {index}")


# x + y^T: y is read column-major (contiguous along dimension 0), so its
# loads and x's have different coalesced layouts and meet through a layout
# conversion in threadgroup memory.
TRANSPOSED_KERNEL = """module {
  tt.func public @transposed_add(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %i = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %c32 = arith.constant dense<32> : tensor<32x1xi32>
    %rows = tt.expand_dims %i {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %cols = tt.expand_dims %i {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %r32 = arith.muli %rows, %c32 : tensor<32x1xi32>
    %rb = tt.broadcast %r32 : tensor<32x1xi32> -> tensor<32x32xi32>
    %cb = tt.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
    %rowmajor = arith.addi %rb, %cb : tensor<32x32xi32>
    %c32t = arith.constant dense<32> : tensor<1x32xi32>
    %c32c = arith.muli %cols, %c32t : tensor<1x32xi32>
    %ccb = tt.broadcast %c32c : tensor<1x32xi32> -> tensor<32x32xi32>
    %rrb = tt.broadcast %rows : tensor<32x1xi32> -> tensor<32x32xi32>
    %colmajor = arith.addi %rrb, %ccb : tensor<32x32xi32>
    %xp = tt.splat %arg0 : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %xq = tt.addptr %xp, %rowmajor : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    %x = tt.load %xq : tensor<32x32x!tt.ptr<f32>>
    %yp = tt.splat %arg1 : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %yq = tt.addptr %yp, %colmajor : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    %y = tt.load %yq : tensor<32x32x!tt.ptr<f32>>
    %y2 = arith.mulf %y, %y : tensor<32x32xf32>
    %s = arith.addf %x, %y2 : tensor<32x32xf32>
    %op = tt.splat %arg2 : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>>
    %oq = tt.addptr %op, %rowmajor : tensor<32x32x!tt.ptr<f32>>, tensor<32x32xi32>
    tt.store %oq, %s : tensor<32x32x!tt.ptr<f32>>
    tt.return
  }
}
"""

# Atomics on a tensor smaller than the threadgroup (replicated elements must
# update once) whose old values are used, and a scalar atomic whose old value
# every thread needs.
SMALL_ATOMIC_KERNEL = """module {
  tt.func public @small_atomics(%arg0: !tt.ptr<i32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<i32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %p = tt.splat %arg0 : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %q = tt.addptr %p, %r : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %true = arith.constant dense<true> : tensor<16xi1>
    %old = tt.atomic_rmw add, acq_rel, gpu, %q, %r, %true : (tensor<16x!tt.ptr<i32>>, tensor<16xi32>, tensor<16xi1>) -> tensor<16xi32>
    %c7 = arith.constant 7 : i32
    %t = arith.constant true
    %counter = tt.addptr %arg1, %c7 : !tt.ptr<i32>, i32
    %before = tt.atomic_rmw add, acq_rel, gpu, %counter, %c7, %t : (!tt.ptr<i32>, i32, i1) -> i32
    %bs = tt.splat %before : i32 -> tensor<16xi32>
    %sum = arith.addi %old, %bs : tensor<16xi32>
    %c16 = arith.constant dense<16> : tensor<16xi32>
    %out = tt.addptr %q, %c16 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    tt.store %out, %sum : tensor<16x!tt.ptr<i32>>
    tt.return
  }
}
"""


@pytest.mark.parametrize("layout", POLICIES)
def test_layout_conversion_matches_the_interpreter(layout, tmp_path):
    rng = np.random.default_rng(6)
    args = {0: rng.standard_normal(1024).astype(np.float32), 1: rng.standard_normal(1024).astype(np.float32),
            2: np.zeros(1024, np.float32)}
    ref = run(TRANSPOSED_KERNEL, tmp_path, args, [2], "interpreter")[2]
    got = run(TRANSPOSED_KERNEL, tmp_path, args, [2], "emulator", layout)[2]
    np.testing.assert_array_equal(got, ref)


def test_transposed_read_goes_through_a_conversion(tmp_path):
    path = tmp_path / "k.ttir"
    path.write_text(TRANSPOSED_KERNEL)
    proc = _tmetal("compile", str(path), "--metadata", str(tmp_path / "k.json"), "-o", str(tmp_path / "k.metal"))
    assert proc.returncode == 0, _describe(proc)
    import json
    layouts = json.loads((tmp_path / "k.json").read_text())["layouts"]
    assert len(layouts["conversions"]) == 1
    assert "threadgroup_barrier" in (tmp_path / "k.metal").read_text()


@pytest.mark.parametrize("layout", POLICIES)
def test_atomics_on_replicated_elements_update_once(layout, tmp_path):
    args = {0: np.arange(32, dtype=np.int32) * 100, 1: np.zeros(8, np.int32)}
    ref = run(SMALL_ATOMIC_KERNEL, tmp_path, args, [0, 1], "interpreter")
    got = run(SMALL_ATOMIC_KERNEL, tmp_path, args, [0, 1], "emulator", layout)
    for index in ref:
        np.testing.assert_array_equal(got[index], ref[index], err_msg=f"argument {index}")


JOIN_SPLIT_CAT_KERNEL = """module {
  tt.func public @join_split_cat(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg3: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %ap = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %aq = tt.addptr %ap, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %a = tt.load %aq : tensor<64x!tt.ptr<f32>>
    %bp = tt.splat %arg1 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %bq = tt.addptr %bp, %r : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %b = tt.load %bq : tensor<64x!tt.ptr<f32>>
    %j = tt.join %a, %b : tensor<64xf32> -> tensor<64x2xf32>
    %lo, %hi = tt.split %j : tensor<64x2xf32> -> tensor<64xf32>
    %d = arith.subf %hi, %lo : tensor<64xf32>
    %c = tt.cat %d, %a : tensor<64xf32> -> tensor<128xf32>
    %r128 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %cp = tt.splat %arg2 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %cq = tt.addptr %cp, %r128 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    tt.store %cq, %c : tensor<128x!tt.ptr<f32>>
    %rows = tt.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c2 = arith.constant dense<2> : tensor<64x1xi32>
    %rows2 = arith.muli %rows, %c2 : tensor<64x1xi32>
    %two = tt.make_range {end = 2 : i32, start = 0 : i32} : tensor<2xi32>
    %cols = tt.expand_dims %two {axis = 0 : i32} : tensor<2xi32> -> tensor<1x2xi32>
    %rb = tt.broadcast %rows2 : tensor<64x1xi32> -> tensor<64x2xi32>
    %cb = tt.broadcast %cols : tensor<1x2xi32> -> tensor<64x2xi32>
    %offs = arith.addi %rb, %cb : tensor<64x2xi32>
    %jp = tt.splat %arg3 : !tt.ptr<f32> -> tensor<64x2x!tt.ptr<f32>>
    %jq = tt.addptr %jp, %offs : tensor<64x2x!tt.ptr<f32>>, tensor<64x2xi32>
    tt.store %jq, %j : tensor<64x2x!tt.ptr<f32>>
    tt.return
  }
}
"""


@pytest.mark.parametrize("layout", POLICIES)
def test_join_split_cat_match_the_interpreter(layout, tmp_path):
    rng = np.random.default_rng(7)
    args = {0: rng.standard_normal(64).astype(np.float32), 1: rng.standard_normal(64).astype(np.float32),
            2: np.zeros(128, np.float32), 3: np.zeros(128, np.float32)}
    ref = run(JOIN_SPLIT_CAT_KERNEL, tmp_path, args, [2, 3], "interpreter")
    got = run(JOIN_SPLIT_CAT_KERNEL, tmp_path, args, [2, 3], "emulator", layout)
    for index in ref:
        np.testing.assert_array_equal(got[index], ref[index], err_msg=f"argument {index}")
