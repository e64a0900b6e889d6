"""tmetal's main job on two bundled Triton kernels.

Unchanged @triton.jit kernels go through Triton's own frontend, tmetal's
TTIR reader and its Metal code generator; the emitted Metal Shading Language
runs on tmetal's CPU emulator (no Mac needed) and is checked against NumPy.
The generated MSL of the softmax kernel is printed at the end.

    TRITON_METAL_DEVICE=emulator .venv/bin/python examples/quickstart.py
(scripts/quickstart.sh sets that up and runs it.)
"""
import os
import sys

os.environ.setdefault("TRITON_METAL_DEVICE", "emulator")

import numpy as np
import triton
import triton.language as tl

import triton_metal


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


def main() -> int:
    rng = np.random.default_rng(0)

    n = 10_000
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.zeros_like(x)
    add_kernel[(triton.cdiv(n, 1024),)](triton_metal.tensor(x), triton_metal.tensor(y), triton_metal.tensor(out), n,
                                         BLOCK=1024)
    add_ok = np.array_equal(out, x + y)
    print(f"vector add, {n} elements: {'matches NumPy exactly' if add_ok else 'MISMATCH'}")

    rows, cols = 64, 1000
    a = rng.standard_normal((rows, cols), dtype=np.float32)
    result = np.zeros_like(a)
    handle = softmax_kernel[(rows,)](triton_metal.tensor(a), triton_metal.tensor(result), cols, cols, BLOCK=1024)
    expected = np.exp(a - a.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    err = float(np.max(np.abs(result - expected)))
    softmax_ok = err < 1e-6
    print(f"row softmax, {rows}x{cols}: max abs error vs NumPy {err:.2e} ({'ok' if softmax_ok else 'MISMATCH'})")

    print("\nThe Metal Shading Language tmetal emitted for softmax_kernel:\n")
    print(handle.asm["msl"].decode() if isinstance(handle.asm["msl"], bytes) else handle.asm["msl"])
    return 0 if add_ok and softmax_ok else 1


if __name__ == "__main__":
    sys.exit(main())
