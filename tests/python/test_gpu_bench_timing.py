"""bench/gpu_bench.py's timing set-up without a GPU: after each L2 flush the
GPU idles long enough for the host to queue the timed launch, both in
triton.testing.do_bench's flush and in the harness's own."""
from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "bench"))

import gpu_bench  # noqa: E402


class FakeCuda:
    def __init__(self, calls):
        self.calls = calls

    def _sleep(self, cycles):
        self.calls.append(("sleep", cycles))


class FakeTorch:
    def __init__(self, calls):
        self.cuda = FakeCuda(calls)


class FakeCupy:
    """cupy.cuda.runtime.getDeviceProperties with a clock rate in kHz, or
    without the key (CUDA 13 removed clockRate)."""

    def __init__(self, khz):
        props = {} if khz is None else {"clockRate": khz}

        class Runtime:
            @staticmethod
            def getDeviceProperties(index):
                return props

        class Cuda:
            runtime = Runtime

        self.cuda = Cuda


class FakeDevice:
    index = 0


def _gpu(khz, calls):
    gpu = gpu_bench.Gpu.__new__(gpu_bench.Gpu)  # no CUDA here: only the attributes the timing code reads
    gpu.torch, gpu.cupy, gpu.device = FakeTorch(calls), FakeCupy(khz), FakeDevice()
    return gpu


def test_idle_cycles_follow_the_clock_rate():
    assert gpu_bench.Gpu.IDLE_AFTER_FLUSH_US == 100
    assert _gpu(1_980_000, [])._cycles_for_us(100) == 198_000
    # Without a clock rate the harness assumes 2 GHz, no less than an H100's or H200's clock.
    assert _gpu(None, [])._cycles_for_us(100) == 200_000


def test_do_bench_flush_is_followed_by_the_idle():
    calls = []
    gpu = _gpu(1_500_000, calls)
    gpu._idle_cycles = gpu._cycles_for_us(gpu.IDLE_AFTER_FLUSH_US)

    class Driver:
        def clear_cache(self, cache):
            calls.append(("flush", cache))

    driver = Driver()
    gpu._idle_after_triton_flush(driver)
    driver.clear_cache("buffer")
    driver.clear_cache("buffer")
    assert calls == [("flush", "buffer"), ("sleep", 150_000)] * 2
