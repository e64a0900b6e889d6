"""The emulator driver: Triton kernels compiled to MSL, run by tmetal's CPU
emulator (the MSL compiled as C++ against a shim of the Metal library).

Kernel arguments: NumPy arrays wrapped by `triton_metal.tensor(array)`
(Triton itself rejects bare arrays), PyTorch CPU tensors, or any object with
`data_ptr()`, `dtype` and `nbytes`. Kernels read and write that memory in
place. Launches are synchronous: when `kernel[grid](...)` returns, the
outputs are written.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import device_selection, errors
from ._native import core
from .driver import NOMINAL_REGISTERS_PER_THREAD, TmetalDriver, device_properties
from .launch_plan import LaunchPlan

# Bytes written between benchmark repetitions to evict the kernel's data
# from the CPU caches (the emulator's data lives in them).
BENCHMARK_CACHE_FLUSH_BYTES = 32 * 1024 * 1024


@dataclass
class MslProgram:
    """A kernel's MSL as `utils.load_binary` hands it to the launcher; the
    emulator compiles it once, on first launch (it needs the metadata, which
    only the launcher has)."""

    name: str
    source: str
    compiled: Any = field(default=None, repr=False)


class EmulatorUtils:

    def __init__(self, profile: dict):
        self.profile = profile

    def get_device_properties(self, device):
        return device_properties(self.profile)

    def load_binary(self, name, kernel, shared, device):
        if isinstance(kernel, bytes):
            if kernel.startswith(b"MTLB"):
                raise errors.UnavailableError(f"kernel '{name}' was compiled to a .metallib, which the emulator "
                                              "cannot run; emulator targets keep MSL as their binary")
            kernel = kernel.decode("utf-8")
        max_threads = int(self.profile["max_threads_per_threadgroup"])
        return None, MslProgram(name, kernel), NOMINAL_REGISTERS_PER_THREAD, 0, max_threads


class EmulatorLauncher:
    """Runs one compiled kernel; Triton calls it as
    launcher(gridX, gridY, gridZ, stream, function, packed_metadata,
             launch_metadata, launch_enter_hook, launch_exit_hook, *args)."""

    def __init__(self, src, metadata):
        # The Triton function's name: the emitted entry point may differ (metadata.name).
        self.kernel_name = getattr(src, "name", metadata.name)
        self.abi = metadata.tmetal_abi
        self.plan = LaunchPlan.from_source(src, self.abi, self.kernel_name)

    def __call__(self, gridX, gridY, gridZ, stream, function, packed_metadata, launch_metadata, enter_hook,
                 exit_hook, *args):
        if enter_hook is not None and launch_metadata is not None:
            enter_hook(launch_metadata)
        try:
            if function.compiled is None:
                function.compiled = core().emulator_compile(function.source, json.dumps(self.abi))
            function.compiled.launch(self.plan.select(args), [int(gridX), int(gridY), int(gridZ)])
        except errors.TmetalError as error:
            raise errors.with_kernel(error, self.kernel_name) from None
        if exit_hook is not None and launch_metadata is not None:
            exit_hook(launch_metadata)


class HostEvent:
    """A timing event on the host clock: emulator launches are synchronous, so
    the time between two records is the time of the work between them."""

    def __init__(self, enable_timing: bool = True):
        self.timestamp = None

    def record(self, stream=None):
        self.timestamp = time.perf_counter()

    def elapsed_time(self, end: "HostEvent") -> float:
        if self.timestamp is None or end.timestamp is None:
            raise RuntimeError("elapsed_time() needs both events recorded")
        return (end.timestamp - self.timestamp) * 1000.0

    def synchronize(self):
        pass

    def query(self) -> bool:
        return True


class HostDeviceInterface:
    """What triton.testing.do_bench needs of a device module (torch.cuda's
    role), for the emulator."""

    Event = HostEvent

    @staticmethod
    def synchronize(device=None):
        pass  # every launch has finished when it returns

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def device_count():
        return 1

    @staticmethod
    def is_available():
        return True


class EmulatorDriver(TmetalDriver):
    """Runs kernels on the CPU emulator."""

    device_kind = device_selection.EMULATOR

    def __init__(self):
        super().__init__()
        capabilities = core().capabilities()
        if not capabilities.get("emulator"):
            raise errors.UnavailableError("the emulator driver needs the MSL emulator, which this build of "
                                          "triton_metal._core does not contain")
        self.utils = EmulatorUtils(self.hardware_profile)
        self.launcher_cls = EmulatorLauncher

    @classmethod
    def is_active(cls):
        return device_selection.selected_device() == device_selection.EMULATOR

    def get_active_torch_device(self):
        try:
            import torch
        except ImportError:
            return "cpu"
        return torch.device("cpu")

    def get_device_interface(self):
        return HostDeviceInterface

    def get_empty_cache_for_benchmark(self):
        return np.empty(BENCHMARK_CACHE_FLUSH_BYTES, dtype=np.uint8)

    def clear_cache(self, cache):
        cache.fill(0)
