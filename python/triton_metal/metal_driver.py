"""The Metal driver: Triton kernels on Apple GPUs through PyTorch's MPS backend.

UNVERIFIED: no machine of this project has an Apple GPU. This driver is
written to PyTorch's documented API and has never run:
  - `torch.mps.compile_shader(source)` compiles MSL and returns a library
    whose attributes are its kernels;
  - `library.<kernel>(*args, threads=..., group_size=..., arg_casts=...)`
    binds tensors (MPS tensors) and Python numbers to the kernel's buffers in
    order and dispatches `threads` threads in threadgroups of `group_size`;
    `arg_casts` maps an argument index to the type a number is passed as
    ("int32", "fp16", "bf16", ...);
  - `torch.mps.load_metallib(data)` (newer PyTorch) loads a compiled
    .metallib the same way;
  - `torch.mps.synchronize()` and `torch.mps.Event(enable_timing=True)`.
A kernel with `tl.device_assert` (`debug=True`) or `tl.device_print` gets an
int32 tensor, the debug buffer, after its arguments, read after
`torch.mps.synchronize()`: the printed lines go to stdout, a failed
assertion raises DeviceAssertionError.
The kernel is dispatched as `threads = (gridX * T, gridY, gridZ)` with
`group_size = (T, 1, 1)`, T = num_warps * 32, so that the grid has exactly
gridX x gridY x gridZ threadgroups, as Triton's program ids expect.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import device_selection, errors
from ._native import core
from .driver import NOMINAL_REGISTERS_PER_THREAD, TmetalDriver, device_properties
from .launch_plan import LaunchPlan

# How Python numbers reach each scalar dtype of the kernel ABI (arg_casts).
# Floats default to float32 and ints to int64 in PyTorch's binding.
_ARG_CASTS = {
    "i1": "int8", "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "int16", "i32": "int32", "u32": "int32",
    "f16": "fp16", "bf16": "bf16",
}
_DEFAULT_SCALAR_DTYPES = ("i64", "u64", "f32")
# Bytes written between benchmark repetitions: more than the largest Apple
# system level cache (96 MB).
BENCHMARK_CACHE_FLUSH_BYTES = 256 * 1024 * 1024


@dataclass
class MetalProgram:
    name: str
    library: Any  # what torch.mps.compile_shader / load_metallib returned


class MetalUtils:

    def __init__(self, profile: dict):
        self.profile = profile

    def get_device_properties(self, device):
        return device_properties(self.profile)

    def load_binary(self, name, kernel, shared, device):
        import torch

        if isinstance(kernel, bytes) and kernel.startswith(b"MTLB"):
            if not hasattr(torch.mps, "load_metallib"):
                raise errors.UnavailableError(
                    f"kernel '{name}' was compiled to a .metallib but PyTorch {torch.__version__} has no "
                    "torch.mps.load_metallib; set TRITON_METAL_METALLIB=0 to run kernels from MSL source through "
                    "torch.mps.compile_shader")
            library = torch.mps.load_metallib(kernel)
        else:
            source = kernel.decode("utf-8") if isinstance(kernel, bytes) else kernel
            try:
                library = torch.mps.compile_shader(source)
            except Exception as e:  # PyTorch raises RuntimeError with Metal's diagnostics
                raise errors.CompileError(f"Metal rejected the MSL of kernel '{name}': {e}", kernel=name) from e
        return (None, MetalProgram(name, library), NOMINAL_REGISTERS_PER_THREAD, 0,
                int(self.profile["max_threads_per_threadgroup"]))


class MetalLauncher:

    def __init__(self, src, metadata):
        # The Triton function's name: the emitted entry point may differ (metadata.name).
        self.kernel_name = getattr(src, "name", metadata.name)
        self.abi = metadata.tmetal_abi
        self.plan = LaunchPlan.from_source(src, self.abi, self.kernel_name)
        self.threads_per_threadgroup = int(self.abi["threads_per_threadgroup"])
        self.arg_casts = {}
        for index, planned in enumerate(self.plan.arguments):
            if planned.is_pointer or planned.dtype in _DEFAULT_SCALAR_DTYPES:
                continue
            if planned.dtype not in _ARG_CASTS:
                raise errors.LaunchError(f"kernel '{self.kernel_name}': scalar argument {planned.name!r} of type "
                                         f"{planned.dtype} cannot be passed through torch.mps",
                                         kernel=self.kernel_name)
            self.arg_casts[index] = _ARG_CASTS[planned.dtype]

    def __call__(self, gridX, gridY, gridZ, stream, function, packed_metadata, launch_metadata, enter_hook,
                 exit_hook, *args):
        problem = core().grid_problem(gridX, gridY, gridZ)
        if problem:
            raise errors.LaunchError(f"kernel '{self.kernel_name}': {problem}", kernel=self.kernel_name)
        if gridX * gridY * gridZ == 0:
            return
        kernel_args = self.plan.select(args)
        for planned, value in zip(self.plan.arguments, kernel_args):
            device = getattr(value, "device", None)
            if planned.is_pointer and getattr(device, "type", None) != "mps":
                raise errors.LaunchError(f"kernel '{self.kernel_name}': argument {planned.name!r} must be a tensor "
                                         f"on the 'mps' device, got {type(value).__name__} on {device}",
                                         kernel=self.kernel_name)
        if enter_hook is not None and launch_metadata is not None:
            enter_hook(launch_metadata)
        import torch
        kernel = getattr(function.library, self.abi["kernel"])  # the entry point's name
        T = self.threads_per_threadgroup
        # A kernel with tl.device_assert or tl.device_print takes the debug
        # buffer after its arguments (kernel_abi.h); it is read once the kernel has run.
        debug = None
        if self.abi.get("assertions") or self.abi.get("prints"):
            abi_json = json.dumps(self.abi)
            debug = torch.tensor(core().debug_buffer_words(abi_json), dtype=torch.int32, device="mps")
        extra = (debug, ) if debug is not None else ()
        kernel(*kernel_args, *extra, threads=(gridX * T, gridY, gridZ), group_size=(T, 1, 1),
               arg_casts=self.arg_casts)
        if debug is not None:
            torch.mps.synchronize()
            try:
                core().report_debug_buffer(abi_json, debug.cpu().tolist())
            except errors.TmetalError as error:
                raise errors.with_kernel(error, self.kernel_name) from None
        if exit_hook is not None and launch_metadata is not None:
            exit_hook(launch_metadata)


class MpsDeviceInterface:
    """What triton.testing.do_bench needs of a device module, for MPS."""

    @staticmethod
    def synchronize(device=None):
        import torch
        torch.mps.synchronize()

    @staticmethod
    def Event(enable_timing=True):
        import torch
        return torch.mps.Event(enable_timing=enable_timing)

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def device_count():
        import torch
        return torch.mps.device_count()


class MetalDriver(TmetalDriver):
    """Runs kernels on the Apple GPU through PyTorch MPS (unverified)."""

    device_kind = device_selection.METAL

    def __init__(self):
        available, why = device_selection.metal_status()
        if not available:
            raise errors.UnavailableError(f"the Metal driver cannot run here: {why}. Set "
                                          f"{device_selection.ENV_DEVICE}=emulator to use the CPU emulator")
        super().__init__()
        self.utils = MetalUtils(self.hardware_profile)
        self.launcher_cls = MetalLauncher

    @classmethod
    def is_active(cls):
        return device_selection.selected_device() == device_selection.METAL

    def get_active_torch_device(self):
        import torch
        return torch.device("mps")

    def get_device_interface(self):
        return MpsDeviceInterface

    def get_empty_cache_for_benchmark(self):
        import torch
        return torch.empty(BENCHMARK_CACHE_FLUSH_BYTES // 4, dtype=torch.int32, device="mps")

    def clear_cache(self, cache):
        cache.zero_()
