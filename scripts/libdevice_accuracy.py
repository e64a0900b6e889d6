#!/usr/bin/env python3
"""Accuracy of tmetal's libdevice functions: every float32 function of one or
two float arguments runs on the emulator (the MSL tmetal generates, compiled
against the emulator's shim) and on the interpreter (libdevice's meaning in
double precision, interp/libdevice_semantics.h) over the same 65536 inputs;
prints, per function, the largest difference in ulps of the reference, and
the largest absolute difference where the reference is at most 1 in
magnitude (what matters near a function's zeros).

    scripts/libdevice_accuracy.py [--tmetal build/bin/tmetal] [--seed 1]

Inputs: a quarter uniform in [-1, 1], a quarter in [-12, 12], a quarter in
[0, 40], a quarter log-uniform over every binade of both signs; the second
argument of two-argument functions is the first rotated and scaled.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

BLOCK, PROGRAMS = 1024, 64
N = BLOCK * PROGRAMS


def kernel(symbols: list[str], arity: int) -> str:
    t = lambda e: f"tensor<{BLOCK}x{e}>"
    p = lambda e: t(f"!tt.ptr<{e}>")
    lines = ["    %cN = arith.constant 1024 : i32", "    %pid = tt.get_program_id x : i32",
             "    %base = arith.muli %pid, %cN : i32",
             f"    %r0 = tt.make_range {{end = {BLOCK} : i32, start = 0 : i32}} : {t('i32')}",
             f"    %bs = tt.splat %base : i32 -> {t('i32')}", f"    %r = arith.addi %r0, %bs : {t('i32')}"]
    for k in range(arity):
        lines += [f"    %p{k} = tt.splat %in{k} : !tt.ptr<f32> -> {p('f32')}",
                  f"    %q{k} = tt.addptr %p{k}, %r : {p('f32')}, {t('i32')}", f"    %x{k} = tt.load %q{k} : {p('f32')}"]
    lines.append(f"    %po = tt.splat %out : !tt.ptr<f32> -> {p('f32')}")
    operands = ", ".join(f"%x{k}" for k in range(arity))
    types = ", ".join([t("f32")] * arity)
    for j, s in enumerate(symbols):
        lines += [f'    %y{j} = tt.extern_elementwise {operands} {{libname = "", libpath = "", pure = true, '
                  f'symbol = "{s}"}} : ({types}) -> {t("f32")}',
                  f"    %c{j} = arith.constant dense<{j * N}> : {t('i32')}", f"    %o{j} = arith.addi %r, %c{j} : {t('i32')}",
                  f"    %s{j} = tt.addptr %po, %o{j} : {p('f32')}, {t('i32')}", f"    tt.store %s{j}, %y{j} : {p('f32')}"]
    params = ", ".join([f"%in{k}: !tt.ptr<f32>" for k in range(arity)] + ["%out: !tt.ptr<f32>"])
    return "module {\n  tt.func public @accuracy(" + params + ") attributes {noinline = false} {\n" + \
        "\n".join(lines) + "\n    tt.return\n  }\n}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tmetal", default=str(Path(__file__).resolve().parents[1] / "build/bin/tmetal"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
    from triton_metal._native import core
    table = [f for f in core().libdevice_functions() if f[4] and f[2] == "fp32" and set(f[3]) == {"fp32"}]
    rng = np.random.default_rng(args.seed)
    q = N // 4
    x = np.concatenate([rng.uniform(-1, 1, q), rng.uniform(-12, 12, q), rng.uniform(0, 40, q),
                        np.exp2(rng.uniform(-149, 128, q)) * np.where(rng.random(q) < 0.5, -1, 1)]).astype(np.float32)
    with np.errstate(over="ignore"):
        y = (np.roll(x, 12345) * np.float32(1.7)).astype(np.float32)
    print(f"{'function':22s} {'max ulp':>12s} {'abs, |f|<=1':>12s}  (against the reference; {N} inputs, seed {args.seed})")
    with tempfile.TemporaryDirectory() as work:
        w = Path(work)
        np.save(w / "x.npy", x)
        np.save(w / "y.npy", y)
        for arity in (1, 2):
            symbols = [f[1] for f in table if len(f[3]) == arity]
            (w / "k.ttir").write_text(kernel(symbols, arity))
            np.save(w / "out.npy", np.zeros(N * len(symbols), np.float32))
            ins = " ".join(f"--arg {k}={'xy'[k]}.npy" for k in range(arity))
            results = {}
            for device in ("interpreter", "emulator"):
                subprocess.run(f"'{args.tmetal}' run k.ttir --grid {PROGRAMS} {ins} --arg {arity}=out.npy "
                               f"--out {arity}={device}.npy --device {device}", shell=True, cwd=w, check=True,
                               stdout=subprocess.DEVNULL)
                results[device] = np.load(w / f"{device}.npy").astype(np.float64)
            for j, s in enumerate(symbols):
                want, got = (results[d][j * N:(j + 1) * N] for d in ("interpreter", "emulator"))
                finite = np.isfinite(want) & np.isfinite(got)
                with np.errstate(over="ignore"):
                    spacing = np.spacing(np.abs(want[finite]).astype(np.float32)).astype(np.float64)
                err = np.abs(got[finite] - want[finite])
                small = np.abs(want[finite]) <= 1
                absolute = err[small].max() if small.any() else 0.0
                special = int(((np.isnan(want) != np.isnan(got)) | ((np.isinf(want) | np.isinf(got)) & (want != got) &
                                                                   ~np.isnan(want))).sum())
                note = f"  {special} NaN/inf differ" if special else ""
                print(f"{s:22s} {(err / spacing).max():12.0f} {absolute:12.2e}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
