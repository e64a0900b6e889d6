"""Which device tmetal's Triton driver runs kernels on.

  TRITON_METAL_DEVICE=metal     Metal (PyTorch MPS tensors); an error at first
                                use when Metal is not available here
  TRITON_METAL_DEVICE=emulator  the CPU emulator (NumPy arrays through
                                triton_metal.tensor, PyTorch CPU tensors)
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
_CHOICES = ("auto", METAL, EMULATOR)


def requested_device() -> str:
    """The device named by TRITON_METAL_DEVICE: "auto", "metal" or "emulator"."""
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


def selected_device() -> Optional[str]:
    """The device tmetal's driver runs on when Triton creates it, or None
    when tmetal's driver should not be active."""
    requested = requested_device()
    if requested != "auto":
        return requested
    available, _ = metal_status()
    return METAL if available else None
