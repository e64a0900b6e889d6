"""bench/gpu_bench.py's timing set-up without a GPU: after each L2 flush the
GPU idles long enough for the host to queue the timed launch, both in
triton.testing.do_bench's flush and in the harness's own."""
from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "bench"))

import gpu_bench  # noqa: E402
import pytest  # noqa: E402


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


class FakeTimer:
    """bench_ms returning each launch's next time, in ms, in the order called."""

    def __init__(self, times):
        self.times, self.order = times, []

    def bench_ms(self, launch):
        side = launch()
        self.order.append(side)
        value = self.times[side].pop(0)
        if isinstance(value, Exception):
            raise value
        return value

    def context_ok(self):
        return True


def _suite(rounds, timer):
    bench = gpu_bench.SuiteBench.__new__(gpu_bench.SuiteBench)  # only what time_sides reads
    bench.args = type("Args", (), {"rounds": rounds})()
    bench.gpu = timer
    return bench


def test_rounds_take_turns_and_record_the_median():
    timer = FakeTimer({"tmetal": [0.0050, 0.0041, 0.0042], "triton": [0.0044, 0.0046, 0.0090]})
    row = {}
    _suite(3, timer).time_sides(row, {"tmetal": lambda: "tmetal", "triton": lambda: "triton"})
    assert timer.order == ["tmetal", "triton", "triton", "tmetal", "tmetal", "triton"]
    assert (row["tmetal_us"], row["triton_us"]) == (4.2, 4.6)
    assert row["tmetal_us_rounds"] == [5.0, 4.1, 4.2] and row["triton_us_rounds"] == [4.4, 4.6, 9.0]


def test_one_round_records_no_list_and_a_failing_side_stops_timing():
    timer = FakeTimer({"tmetal": [0.005], "triton": [RuntimeError("launch failed: out of resources")]})
    row = {}
    _suite(1, timer).time_sides(row, {"tmetal": lambda: "tmetal", "triton": lambda: "triton"})
    assert row == {"tmetal_us": 5.0, "triton_error": "RuntimeError: launch failed: out of resources"}
    # A side that fails in a later round is timed no more and records no time.
    timer = FakeTimer({"tmetal": [0.005, RuntimeError("unspecified launch failure")], "triton": [0.004, 0.004, 0.004]})
    row = {}
    _suite(3, timer).time_sides(row, {"tmetal": lambda: "tmetal", "triton": lambda: "triton"})
    assert timer.order == ["tmetal", "triton", "triton", "tmetal", "triton"]
    assert row == {"tmetal_error": "RuntimeError: unspecified launch failure", "triton_us": 4.0,
                   "triton_us_rounds": [4.0, 4.0, 4.0]}


def test_tmetal_kernels_launch_through_tritons_launcher(monkeypatch):
    """suite's default launch of a tmetal kernel: Triton's launcher built for
    the kernel's argument types (once for each), called as Triton calls it for
    its own kernels, with tmetal's CUfunction and each argument's value."""
    import numpy as np
    import triton.backends.nvidia.driver as nvidia_driver

    built, calls = [], []

    class FakeLauncher:
        def __init__(self, src, metadata):
            built.append((src.constants, dict(src.signature), metadata.global_scratch_size, metadata.num_ctas,
                          metadata.launch_pdl, metadata.launch_cooperative_grid))

        def __call__(self, *args):
            calls.append(args)

    monkeypatch.setattr(nvidia_driver, "CudaLauncher", FakeLauncher)
    gpu = gpu_bench.Gpu.__new__(gpu_bench.Gpu)
    gpu._triton_launchers = {}

    class Stream:
        cuda_stream = 77

    class Cuda:
        @staticmethod
        def current_stream():
            return Stream

    class Torch:
        cuda = Cuda

    class Function:
        ptr = 0xF00D

    gpu.torch = Torch
    args = (np.uint64(0x7F0000001000), np.int32(-5), np.float32(0.5), np.float16(1.0), np.bool_(True),
            np.uint16(0x3F80))
    launch = gpu.triton_launch(Function, (3, 2, 1), 4, args)
    launch()
    gpu.triton_launch(Function, (1, 1, 1), 8, args)()  # the same types: the launcher built before
    assert built == [({}, {0: "u64", 1: "i32", 2: "fp32", 3: "u16", 4: "u8", 5: "u16"}, 0, 1, False, False)]
    assert calls[0] == (3, 2, 1, 77, 0xF00D, (4, 1, 0), None, None, None, 0x7F0000001000, -5, 0.5, 0x3C00, 1, 0x3F80)
    assert calls[1][:6] == (1, 1, 1, 77, 0xF00D, (8, 1, 0))
    # A scalar type the launcher table lacks is refused by name.
    with pytest.raises(gpu_bench.BenchError, match="kernel argument of type float64"):
        gpu.triton_launch(Function, (1, 1, 1), 4, (np.int32(1), np.float64(1.0)))
