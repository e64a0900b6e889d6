"""tmetal's Triton driver: where and how compiled kernels run.

Triton imports this module through the `triton.backends` entry point and
needs exactly one concrete `DriverBase` subclass in it: `TmetalDriver`. Like
`pathlib.Path`, constructing it gives an instance of the subclass for the
selected device (device_selection.py):

  MetalDriver     (metal_driver.py)     PyTorch MPS tensors, MSL through
                                        torch.mps.compile_shader; macOS only
  EmulatorDriver  (emulator_driver.py)  tmetal's CPU emulator; NumPy arrays
                                        (triton_metal.tensor) and PyTorch CPU
                                        tensors
  CudaValidationDriver (cuda_driver.py) the same pipeline with a CUDA final
                                        stage, on PyTorch CUDA tensors of an
                                        NVIDIA GPU: a validation/measurement
                                        mode (TRITON_METAL_DEVICE=cuda)

Either can also be made active explicitly:
    triton.runtime.driver.set_active(triton_metal.EmulatorDriver())

The two subclasses live in their own modules so that Triton's discovery sees
only `TmetalDriver` here.
"""
from __future__ import annotations

import functools

from triton.backends.driver import DriverBase

from . import device_selection
from ._native import core
from .compiler import make_target
from .errors import UnavailableError

# MSL spellings of Triton's argument types (map_python_to_cpp_type).
_MSL_SCALAR_TYPES = {
    "i1": "bool", "i8": "char", "i16": "short", "i32": "int", "i64": "long",
    "u1": "bool", "u8": "uchar", "u16": "ushort", "u32": "uint", "u64": "ulong",
    "fp16": "half", "bf16": "bfloat", "fp32": "float", "f32": "float", "fp64": "double",
}


class TmetalDriver(DriverBase):
    """The driver Triton discovers. `TmetalDriver()` returns a MetalDriver or
    an EmulatorDriver, as TRITON_METAL_DEVICE and the machine decide."""

    device_kind = ""  # "metal", "emulator" or "cuda", set by the subclasses

    def __new__(cls, *args, **kwargs):
        if cls is TmetalDriver:
            device = device_selection.selected_device()
            if device is None:
                _, why = device_selection.metal_status()
                raise UnavailableError(f"no tmetal device is selected: {why}. Set "
                                       f"{device_selection.ENV_DEVICE}=emulator to run kernels on the CPU emulator")
            cls = _driver_class(device)
        return super().__new__(cls)

    def __init__(self):
        super().__init__()
        selection = core().select_hardware("")
        self.hardware_profile = dict(selection)
        self.profile_id = selection["id"]

    @classmethod
    def is_active(cls):
        return device_selection.selected_device() is not None

    # What Triton's JIT and compiler ask every driver.
    def get_current_target(self):
        return make_target(self.profile_id, emulator=self.device_kind == device_selection.EMULATOR,
                           cuda=self.device_kind == device_selection.CUDA)

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        if device != 0:
            raise UnavailableError(f"tmetal drives one device (0), not {device!r}")

    def get_current_stream(self, device=None):
        return 0  # launches are ordered; there is no stream to choose

    def map_python_to_cpp_type(self, ty: str) -> str:
        if ty.startswith("*"):
            return f"device {_MSL_SCALAR_TYPES.get(ty[1:], ty[1:])}*"
        return _MSL_SCALAR_TYPES.get(ty, ty)

    def get_benchmarker(self):
        from triton.testing import do_bench
        return do_bench

    def get_active_torch_device(self):
        raise UnavailableError("TmetalDriver itself drives no device")  # the subclasses answer

    def __repr__(self):
        return f"{type(self).__name__}(hardware={self.profile_id!r})"


@functools.lru_cache(maxsize=None)
def _driver_class(device: str):
    if device == device_selection.EMULATOR:
        from .emulator_driver import EmulatorDriver
        return EmulatorDriver
    if device == device_selection.CUDA:
        from .cuda_driver import CudaValidationDriver
        return CudaValidationDriver
    from .metal_driver import MetalDriver
    return MetalDriver


# Apple publishes no register counts: neither a core's register file nor a
# pipeline's registers a thread (Metal reports threads only). tmetal's
# drivers count occupancy in threads instead: every kernel's `n_regs` is one
# nominal register a thread and a core's `max_num_regs` is the threads it
# keeps resident, so that arithmetic written for NVIDIA's figures (Triton's
# fused-softmax tutorial: max_num_regs // (n_regs * warpSize * num_warps))
# gives the threadgroups a core holds by their thread count.
NOMINAL_REGISTERS_PER_THREAD = 1


def device_properties(profile: dict) -> dict:
    """What Triton reads from `utils.get_device_properties(device)`, from a
    hardware profile: threadgroup memory ("shared"), cores, SIMD width, and
    the resident threads a core keeps as its nominal registers."""
    return {
        "max_shared_mem": int(profile["threadgroup_memory_bytes"]),
        "multiprocessor_count": int(profile["gpu_cores"]),
        "max_num_regs": int(profile["max_resident_threads_per_core"]) * NOMINAL_REGISTERS_PER_THREAD,
        "warpSize": int(profile["simd_width"]),
        "max_threads_per_threadgroup": int(profile["max_threads_per_threadgroup"]),
        "dram_bandwidth_gbs": float(profile["dram_bandwidth_gbs"]),
        "name": profile["name"],
    }
