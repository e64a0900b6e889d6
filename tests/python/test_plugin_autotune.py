"""triton.autotune and triton.testing.do_bench with real kernels on the
emulator driver."""
from __future__ import annotations

import numpy as np
import pytest
import triton
import triton.language as tl

import triton_metal


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64}, num_warps=1),
        triton.Config({"BLOCK": 256}, num_warps=2),
        triton.Config({"BLOCK": 256}, num_warps=4, num_stages=1),
    ],
    key=["n"],
)
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * scale, mask=mask)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_autotune_picks_a_config_and_computes_right(codegen_emulator):
    n = 5000
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    out = np.zeros_like(x)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]), )
    scale_kernel[grid](triton_metal.tensor(x), triton_metal.tensor(out), n, 3.0)
    np.testing.assert_allclose(out, 3.0 * x, rtol=1e-6)
    best = scale_kernel.best_config
    assert best in scale_kernel.configs
    timings = scale_kernel.configs_timings
    assert set(timings) == set(scale_kernel.configs)
    assert all(np.isfinite(t[0]) and t[0] > 0 for t in timings.values()), timings
    # A second launch with the same key reuses the choice.
    out[:] = 0
    scale_kernel[grid](triton_metal.tensor(x), triton_metal.tensor(out), n, -1.0)
    np.testing.assert_allclose(out, -x, rtol=1e-6)
    assert scale_kernel.best_config is best


def test_do_bench_times_a_kernel(codegen_emulator):
    n = 1 << 16
    x, y = np.ones(n, np.float32), np.full(n, 2.0, np.float32)
    out = np.zeros_like(x)
    args = (triton_metal.tensor(x), triton_metal.tensor(y), triton_metal.tensor(out), n)
    ms = triton.testing.do_bench(lambda: add_kernel[(n // 1024, )](*args, BLOCK=1024), warmup=5, rep=25)
    assert ms > 0 and np.isfinite(ms)
    assert (out == 3.0).all()
    lo, mid, hi = triton.testing.do_bench(lambda: add_kernel[(n // 1024, )](*args, BLOCK=1024), warmup=5, rep=25,
                                          quantiles=[0.2, 0.5, 0.8])
    assert 0 < lo <= mid <= hi


def test_specialization_divisibility_by_16_compiles_separate_kernels(codegen_emulator):
    # n = 1024 is divisible by 16 and n = 1000 is not: Triton specializes the
    # integer argument, so the two launches use two compiled kernels.
    for n in (1024, 1000):
        x, y = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
        out = np.zeros_like(x)
        kernel = add_kernel[(triton.cdiv(n, 256), )](triton_metal.tensor(x), triton_metal.tensor(y),
                                                     triton_metal.tensor(out), n, BLOCK=256)
        np.testing.assert_array_equal(out, x + 1)
        divisible = "tt.divisibility = 16" in kernel.asm["ttir"].split("%n")[1].split(")")[0]
        assert divisible == (n % 16 == 0)


def test_autotune_drops_configs_past_the_hardware(codegen_emulator):
    # As on NVIDIA: a config that needs more threadgroup memory or threads
    # than the GPU has raises Triton's OutOfResources, which the autotuner
    # catches; it times the others and picks one of them.
    import plugin_error_kernels as bad
    from triton.runtime.errors import OutOfResources

    seen = []
    fits = triton.Config({"BLOCK": 64}, num_warps=4)
    configs = [triton.Config({"BLOCK": 512}, num_warps=4), triton.Config({"BLOCK": 64}, num_warps=64), fits]
    tuned = triton.autotune(configs=configs, key=["n"],
                            post_hook=lambda *args, exception: seen.append(exception))(bad.transpose_tiles_kernel)
    n = 128
    x = np.arange(n * n, dtype=np.float32).reshape(n, n)
    out = np.zeros_like(x)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]), triton.cdiv(n, meta["BLOCK"]))
    tuned[grid](triton_metal.tensor(x), triton_metal.tensor(out), n)
    np.testing.assert_array_equal(out, x.T)
    assert tuned.best_config is fits
    assert [t[0] == float("inf") for t in (tuned.configs_timings[c] for c in configs)] == [True, True, False]
    problems = sorted((e.name, e.required, e.limit) for e in seen if e is not None)
    assert problems == [("shared memory", 1048576, 32768), ("threads", 2048, 1024)]
    assert all(isinstance(e, (OutOfResources, type(None))) for e in seen)
