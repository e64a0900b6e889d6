"""triton_metal: run unchanged `@triton.jit` kernels through tmetal.

Installed (`pip install .`), it is a Triton backend plugin (entry point group
`triton.backends`, name `metal`): Triton imports `triton_metal.compiler` and
`triton_metal.driver` by itself. Kernels run on Apple GPUs through PyTorch MPS
(macOS), or anywhere on tmetal's CPU emulator; TRITON_METAL_DEVICE=cuda is a
validation/measurement mode that runs the same pipeline's CUDA output on
NVIDIA GPUs (CudaValidationDriver):

    TRITON_METAL_DEVICE=emulator python my_script.py

    import triton_metal
    x = triton_metal.tensor(np.ones(1024, np.float32))    # NumPy arrays need this wrapper
    kernel[grid](x, ...)

docs/plugin.md is the user guide; `python -m triton_metal.check` reports what
works on this machine.
"""
from __future__ import annotations

# Triton first: importing it discovers its backends, which imports
# triton_metal.compiler and triton_metal.driver. Were a submodule of this
# package imported before Triton, Triton's discovery would find that module
# half-initialized.
import triton  # noqa: F401

from .errors import (CompileError, DeviceAssertionError, EmulatorError, InvalidOptionError, LaunchError,
                     OutOfResourcesError, TmetalError, UnavailableError)
from .host_tensor import HostTensor, tensor

__all__ = [
    "CompileError", "DeviceAssertionError", "EmulatorError", "InvalidOptionError", "LaunchError",
    "OutOfResourcesError", "TmetalError", "UnavailableError", "HostTensor", "tensor",
    "EmulatorDriver", "MetalDriver", "TmetalDriver", "CudaValidationDriver", "MetalBackend", "MetalOptions", "core",
    "capabilities", "activate", "register_backend",
]


def __getattr__(name):
    # Imported on first use: these modules import Triton, and Triton imports
    # this package while it discovers its backends.
    if name == "EmulatorDriver":
        from .emulator_driver import EmulatorDriver
        return EmulatorDriver
    if name == "MetalDriver":
        from .metal_driver import MetalDriver
        return MetalDriver
    if name == "CudaValidationDriver":
        from .cuda_driver import CudaValidationDriver
        return CudaValidationDriver
    if name in ("activate", "register_backend"):
        from . import activation
        return getattr(activation, name)
    if name == "TmetalDriver":
        from .driver import TmetalDriver
        return TmetalDriver
    if name in ("MetalBackend", "MetalOptions"):
        from . import compiler
        return getattr(compiler, name)
    if name in ("core", "capabilities"):
        from . import _native
        return getattr(_native, name)
    raise AttributeError(f"module 'triton_metal' has no attribute {name!r}")
