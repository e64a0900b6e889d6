"""Which device tmetal's Triton driver runs kernels on.

  TRITON_METAL_DEVICE=metal     Metal (PyTorch MPS tensors); an error at first
                                use when Metal is not available here
  TRITON_METAL_DEVICE=emulator  the CPU emulator (NumPy arrays through
                                triton_metal.tensor, PyTorch CPU tensors)
  TRITON_METAL_DEVICE=cuda      the CUDA validation mode (CudaValidationDriver):
                                the Metal pipeline with a CUDA final stage, on
                                PyTorch CUDA tensors of an NVIDIA GPU. For
                                validating and measuring tmetal's layouts and
                                lowering, not a product target
  unset / auto                  Metal when available, otherwise tmetal's driver
                                is not active: Triton then uses another
                                backend's driver, or none. The emulator can
                                also be chosen in code:
                                triton.runtime.driver.set_active(triton_metal.EmulatorDriver())
"""
from __future__ import annotations

import functools
import os
import sys
from typing import Optional, Tuple

from .errors import UnavailableError

ENV_DEVICE = "TRITON_METAL_DEVICE"
METAL = "metal"
EMULATOR = "emulator"
CUDA = "cuda"
_CHOICES = ("auto", METAL, EMULATOR, CUDA)


def requested_device() -> str:
    """The device named by TRITON_METAL_DEVICE: "auto", "metal", "emulator" or "cuda"."""
    value = os.environ.get(ENV_DEVICE, "").strip().lower() or "auto"
    if value not in _CHOICES:
        raise UnavailableError(f"{ENV_DEVICE}={os.environ[ENV_DEVICE]!r} is not one of {', '.join(_CHOICES)}")
    return value


@functools.lru_cache(maxsize=None)
def metal_status() -> Tuple[bool, str]:
    """(whether kernels can run on Metal here, why not / what was found).
    Metal runs through PyTorch's MPS backend (torch.mps.compile_shader)."""
    if sys.platform != "darwin":
        return False, f"Metal needs macOS on Apple silicon; this is {sys.platform}"
    try:
        import torch
    except ImportError:
        return False, "PyTorch is not installed (the Metal driver runs kernels on MPS tensors through it)"
    if not torch.backends.mps.is_available():
        return False, f"PyTorch {torch.__version__} reports that MPS is not available"
    if not hasattr(torch.mps, "compile_shader"):
        return False, f"PyTorch {torch.__version__} has no torch.mps.compile_shader (public from PyTorch 2.7 on)"
    return True, f"PyTorch {torch.__version__} with MPS and torch.mps.compile_shader"


def cuda_status() -> Tuple[bool, str]:
    """(whether the CUDA validation mode can run kernels here, why not / what
    was found): PyTorch with CUDA, and a core built with the CUDA runtime.
    NVRTC and the driver are loaded when the first kernel is compiled."""
    try:
        import torch
    except ImportError:
        return False, "PyTorch is not installed (the CUDA validation mode runs kernels on torch CUDA tensors)"
    if getattr(torch.version, "hip", None):
        return False, f"PyTorch {torch.__version__} is a ROCm build; the CUDA validation mode needs NVIDIA CUDA"
    if not torch.cuda.is_available():
        return False, f"PyTorch {torch.__version__} reports that CUDA is not available"
    from ._native import capabilities
    if not capabilities().get("cuda"):
        return False, "this build of triton_metal._core has no CUDA runtime (tmetal/runtime/cuda)"
    return True, f"PyTorch {torch.__version__} with CUDA ({torch.cuda.get_device_name(0)})"


def selected_device() -> Optional[str]:
    """The device tmetal's driver runs on when Triton creates it, or None
    when tmetal's driver should not be active."""
    requested = requested_device()
    if requested != "auto":
        return requested
    available, _ = metal_status()
    return METAL if available else None
