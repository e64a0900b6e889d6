"""NumPy arrays as Triton kernel arguments on the emulator.

Triton's JIT accepts tensor arguments that have `data_ptr()` and `dtype`
(it reads both to specialize the kernel); a bare `numpy.ndarray` has neither,
and Triton rejects it before any backend sees it. `HostTensor` wraps an array
without copying it, so the kernel reads and writes the array's own memory:

    x = np.arange(1024, dtype=np.float32)
    out = np.empty_like(x)
    add_kernel[(4,)](triton_metal.tensor(x), triton_metal.tensor(out), 1024, BLOCK=256)
    # out now holds the result

bfloat16 data, which NumPy has no type for, is a uint16 array of bf16 bit
patterns wrapped with `dtype=triton.language.bfloat16`.
"""
from __future__ import annotations

import numpy as np


class HostTensor:
    """A NumPy array seen by Triton as a CPU tensor of `dtype`."""

    def __init__(self, array: np.ndarray, dtype=None):
        if isinstance(array, HostTensor):
            array = array.array
        if not isinstance(array, np.ndarray):
            raise TypeError(f"HostTensor wraps a numpy.ndarray, got {type(array).__name__}")
        if not array.flags.writeable:
            raise ValueError("HostTensor needs a writable array (kernels may write through any pointer argument)")
        self.array = array
        if dtype is None:
            dtype = array.dtype
        elif _is_bfloat16(dtype) and array.dtype != np.uint16:
            raise TypeError(f"bfloat16 data must be stored as uint16 bit patterns, got a {array.dtype} array")
        self.dtype = dtype

    # What Triton's JIT and the emulator launcher use.
    def data_ptr(self) -> int:
        return self.array.ctypes.data

    @property
    def nbytes(self) -> int:
        """Bytes from data_ptr() to the end of the array's allocation: the
        extent a kernel may legally reach (a view can point into the middle
        of a larger array)."""
        root = self.array
        while isinstance(root.base, np.ndarray):
            root = root.base
        if not root.flags.c_contiguous and not root.flags.f_contiguous:
            return self._extent(self.array)
        return root.ctypes.data + root.nbytes - self.data_ptr()

    @staticmethod
    def _extent(array: np.ndarray) -> int:
        high = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s > 0)
        return high + array.itemsize if array.size else 0

    device = "cpu"

    # A little of the tensor interface, for code written against PyTorch.
    @property
    def shape(self):
        return self.array.shape

    def numel(self) -> int:
        return self.array.size

    def element_size(self) -> int:
        return self.array.itemsize

    def stride(self, dim=None):
        strides = tuple(s // self.array.itemsize for s in self.array.strides)
        return strides if dim is None else strides[dim]

    def dim(self) -> int:
        return self.array.ndim

    def numpy(self) -> np.ndarray:
        return self.array

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)

    def __len__(self):
        return len(self.array)

    def __repr__(self):
        return f"HostTensor({self.array!r}, dtype={self.dtype})"


def tensor(array, dtype=None) -> HostTensor:
    """Wraps a NumPy array (no copy) as a kernel argument; see HostTensor."""
    return HostTensor(array, dtype)


def _is_bfloat16(dtype) -> bool:
    return str(dtype).split(".")[-1] in ("bfloat16", "bf16")
