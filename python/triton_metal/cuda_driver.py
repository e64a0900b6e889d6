"""The CUDA validation mode: the Metal pipeline, run on an NVIDIA GPU.

A validation and measurement mode of the `metal` backend, not a product
target. Kernels go through exactly what Metal kernels go through (Triton's
TTIR passes, tmetal's layout assignment for the hardware profile, the same
lowering decisions); only the final stage emits tmetal's CUDA dialect instead
of MSL (`compile_ttir(..., target="cuda")`, docs/cuda.md). The driver compiles
that source with NVRTC and launches it through tmetal's CUDA runtime
(tmetal/runtime/cuda) on PyTorch CUDA tensors. It answers, on real hardware
and at full size, "does the Metal pipeline compute the right thing, and how
do its layouts perform", which the CPU emulator cannot.

Selected with TRITON_METAL_DEVICE=cuda, or in code:
    triton.runtime.driver.set_active(triton_metal.CudaValidationDriver())
(`triton_metal.activate()` does the latter and also registers the backend
with Triton when it runs from a source tree without `pip install`).

Kernel arguments: PyTorch CUDA tensors (their data_ptr() is passed as the
device pointer) on the device TMETAL_CUDA_DEVICE names (default 0), and
Python numbers. Launches are enqueued on PyTorch's current CUDA stream and
are synchronous: the launcher waits for the device (cuCtxSynchronize) before
`kernel[grid](...)` returns, so a kernel fault is reported at its launch.
`triton.testing.do_bench` works with torch.cuda's events; the times include
that synchronization (microseconds), which matters only for tiny kernels.
On a stream being captured into a CUDA graph (`torch.cuda.graph`,
`triton.testing.do_bench_cudagraph`, `triton.autotune(use_cuda_graph=True)`)
a launch is recorded without waiting, as with Triton's own launcher; kernels
that print or assert cannot be captured (their output is read back after
each launch) and say so.

The grid is Triton's: gridX x gridY x gridZ CUDA blocks of
num_warps x 32 threads, one block per Metal threadgroup.
"""
from __future__ import annotations

import atexit
import json
import os
import weakref
from dataclasses import dataclass, field
from typing import Any

from . import device_selection, errors
from ._native import core
from .driver import NOMINAL_REGISTERS_PER_THREAD, TmetalDriver, device_properties
from .launch_plan import LaunchPlan

# Bytes written between benchmark repetitions: more than any NVIDIA L2 (H100: 50 MB).
BENCHMARK_CACHE_FLUSH_BYTES = 256 * 1024 * 1024


def cuda_device_ordinal() -> int:
    """The GPU the runtime uses: TMETAL_CUDA_DEVICE, default 0."""
    value = os.environ.get("TMETAL_CUDA_DEVICE", "").strip()
    try:
        return int(value) if value else 0
    except ValueError:
        raise errors.UnavailableError(f"TMETAL_CUDA_DEVICE={value!r} is not a device number") from None


@dataclass(eq=False)
class CudaProgram:
    """A kernel's CUDA source as `utils.load_binary` hands it to the launcher;
    NVRTC compiles it on the first launch (the runtime needs the metadata,
    which only the launcher has)."""

    name: str
    source: str
    compiled: Any = field(default=None, repr=False)


# The programs whose kernels NVRTC compiled, released at exit (below).
_compiled_programs: "weakref.WeakSet[CudaProgram]" = weakref.WeakSet()


@atexit.register
def _release_compiled_kernels() -> None:
    """Unloads every compiled kernel's CUDA module while the interpreter and
    the CUDA context are still whole. Triton's JIT caches hold the programs
    until interpreter shutdown, which may tear the binding down first: then
    the modules are never unloaded and nanobind reports each kernel as a leak
    (`nanobind: leaked N instances`)."""
    for program in list(_compiled_programs):
        program.compiled = None


class CudaRuntime:
    """The calls into tmetal's CUDA runtime (triton_metal._core); tests replace
    it to check the launcher without a GPU."""

    @staticmethod
    def compile(source: str, abi_json: str, device: int):
        return core().cuda_compile(source, abi_json, device=device)

    @staticmethod
    def launch(compiled, args: list, grid: list, stream: int):
        compiled.launch(args, grid, stream)


class CudaUtils:

    def __init__(self, profile: dict):
        self.profile = profile

    def get_device_properties(self, device):
        # The hardware profile the kernels are planned for (the Metal
        # pipeline's), not the NVIDIA GPU's.
        return device_properties(self.profile)

    def load_binary(self, name, kernel, shared, device):
        if isinstance(kernel, bytes):
            kernel = kernel.decode("utf-8")
        if "__global__" not in kernel:
            raise errors.UnavailableError(f"kernel '{name}' was not compiled for the CUDA validation mode (its binary "
                                          "is not CUDA source); compile it with a CudaValidationDriver active")
        max_threads = int(self.profile["max_threads_per_threadgroup"])
        program = CudaProgram(name, kernel)
        # The program is the "module" too: Triton reloads the binary (and makes
        # a new launcher) on every launch while the module it got is None,
        # which would run NVRTC for every launch.
        return program, program, NOMINAL_REGISTERS_PER_THREAD, 0, max_threads


def _describe(value) -> str:
    device = getattr(value, "device", None)
    return f"{type(value).__name__}" + (f" on {device}" if device is not None else "")


class CudaValidationLauncher:
    """Runs one compiled kernel; Triton calls it as
    launcher(gridX, gridY, gridZ, stream, function, packed_metadata,
             launch_metadata, launch_enter_hook, launch_exit_hook, *args)."""

    runtime = CudaRuntime

    def __init__(self, src, metadata):
        # The Triton function's name: the emitted entry point may differ (metadata.name).
        self.kernel_name = getattr(src, "name", metadata.name)
        self.abi = metadata.tmetal_abi
        self.plan = LaunchPlan.from_source(src, self.abi, self.kernel_name)
        self.device = cuda_device_ordinal()

    def pack(self, args: tuple) -> list:
        """The kernel's arguments out of Triton's: device pointers (ints) for
        the tensors, Python numbers for the scalars."""
        packed = []
        for planned, value in zip(self.plan.arguments, self.plan.select(args)):
            if not planned.is_pointer:
                packed.append(value)
                continue
            device = getattr(value, "device", None)
            if not hasattr(value, "data_ptr") or getattr(device, "type", None) != "cuda":
                raise errors.LaunchError(f"kernel '{self.kernel_name}': argument {planned.name!r} must be a tensor on "
                                         f"a CUDA device (the CUDA validation mode), got {_describe(value)}",
                                         kernel=self.kernel_name)
            index = getattr(device, "index", None)
            if index is not None and index != self.device:
                raise errors.LaunchError(f"kernel '{self.kernel_name}': argument {planned.name!r} is on cuda:{index}, "
                                         f"but tmetal's CUDA runtime runs on device {self.device} "
                                         "(TMETAL_CUDA_DEVICE)", kernel=self.kernel_name)
            packed.append(int(value.data_ptr()))
        return packed

    def __call__(self, gridX, gridY, gridZ, stream, function, packed_metadata, launch_metadata, enter_hook,
                 exit_hook, *args):
        kernel_args = self.pack(args)
        if enter_hook is not None and launch_metadata is not None:
            enter_hook(launch_metadata)
        try:
            if function.compiled is None:
                function.compiled = self.runtime.compile(function.source, json.dumps(self.abi), self.device)
                _compiled_programs.add(function)
            self.runtime.launch(function.compiled, kernel_args, [int(gridX), int(gridY), int(gridZ)],
                                int(stream or 0))
        except errors.TmetalError as error:
            raise errors.with_kernel(error, self.kernel_name) from None
        if exit_hook is not None and launch_metadata is not None:
            exit_hook(launch_metadata)


class CudaValidationDriver(TmetalDriver):
    """Runs the Metal pipeline's kernels, emitted as CUDA, on an NVIDIA GPU
    (PyTorch CUDA tensors). A validation/measurement mode, not a product
    target; module docstring."""

    device_kind = device_selection.CUDA

    def __init__(self):
        available, why = device_selection.cuda_status()
        if not available:
            raise errors.UnavailableError(f"the CUDA validation mode cannot run here: {why}")
        super().__init__()
        self.utils = CudaUtils(self.hardware_profile)
        self.launcher_cls = CudaValidationLauncher

    @classmethod
    def is_active(cls):
        return device_selection.selected_device() == device_selection.CUDA

    def get_current_stream(self, device=None):
        """PyTorch's current stream on the runtime's device, as a CUstream handle."""
        import torch
        return torch.cuda.current_stream(cuda_device_ordinal()).cuda_stream

    def get_active_torch_device(self):
        import torch
        return torch.device("cuda", cuda_device_ordinal())

    def get_device_interface(self):
        import torch
        return torch.cuda

    def get_empty_cache_for_benchmark(self):
        import torch
        return torch.empty(BENCHMARK_CACHE_FLUSH_BYTES // 4, dtype=torch.int32, device=self.get_active_torch_device())

    def clear_cache(self, cache):
        cache.zero_()
