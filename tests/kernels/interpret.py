"""Runs kernel-suite cases on Triton's own CPU interpreter (TRITON_INTERPRET=1).

Triton 3.6's interpreter moves tensor arguments to the host with PyTorch's
storage API (`untyped_storage()`, `new_empty`, `set_`, `copy_`) and then reads
and writes memory through `data_ptr()`. PyTorch is not a dependency of this
project (PyPI's Linux wheel brings gigabytes of CUDA libraries), so
`HostArray` gives a NumPy array exactly that much of the tensor interface:
the "host copy" is the array itself, so the interpreter works on the
caller's NumPy memory directly.

`TRITON_INTERPRET` must be set before any kernel module is imported (the
`@triton.jit` decorator reads it), so this module is run as its own process:

    TRITON_INTERPRET=1 python tests/kernels/interpret.py OUT_DIR [CASE ...]

For each case it writes OUT_DIR/<case>.npz with the output arrays, or
OUT_DIR/<case>.error with the exception text.
"""
from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

import numpy as np


class _HostStorage:

    def __init__(self, array: np.ndarray):
        self.array = array

    def data_ptr(self) -> int:
        return self.array.ctypes.data

    def cpu(self):
        return self

    def copy_(self, other):
        if other.array is not self.array:
            np.copyto(self.array, other.array)


class HostArray:
    """A NumPy array seen by Triton's interpreter as a tensor of `dtype`
    (a NumPy dtype, or `triton.language.bfloat16` for uint16-stored bf16)."""

    def __init__(self, array: np.ndarray, dtype=None):
        assert array.flags.c_contiguous
        self.array = array
        self.dtype = array.dtype if dtype is None else dtype

    def data_ptr(self) -> int:
        return self.array.ctypes.data

    def untyped_storage(self):
        return _HostStorage(self.array)

    def storage_offset(self) -> int:
        return 0

    def size(self):
        return self.array.shape

    def stride(self):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def new_empty(self, *_, **__):
        return HostArray(self.array, self.dtype)

    def set_(self, storage, offset, size, stride):
        assert offset == 0
        self.array = storage.array
        return self


def _patch_interpreter_for_numpy_2_4():
    """Triton 3.6's interpreter converts a scalar tensor to a Python int (as
    in `range(0, n_cols, BLOCK)`) with `int(array)` on a 1-element 1-D array,
    which NumPy 2.4 turned into an error. Its patch scope then gets our own
    `__index__`, which takes the single element explicitly; the scope's
    restore undoes both in reverse order."""
    from triton.runtime import interpreter

    original = interpreter._patch_lang_tensor
    if getattr(original, "_tmetal_patched", False):
        return

    def patch_lang_tensor(tensor, scope):
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(np.asarray(self.handle.data).reshape(-1)[0]))

    patch_lang_tensor._tmetal_patched = True
    interpreter._patch_lang_tensor = patch_lang_tensor


def run_case(case) -> dict:
    """Runs `case` on the interpreter; returns {output name: array}."""
    import triton.language as tl

    _patch_interpreter_for_numpy_2_4()
    args = case.args()
    call_args = []
    for name, value in args.items():
        if isinstance(value, np.ndarray):
            dtype = tl.bfloat16 if name in case.bf16_args else None
            call_args.append(HostArray(value, dtype))
        else:
            call_args.append(value)
    case.kernel[case.grid](*call_args, **case.constexprs, num_warps=case.num_warps)
    return {name: args[name] for name in case.outputs}


def main(argv: list[str]) -> int:
    if os.environ.get("TRITON_INTERPRET") != "1":
        print("interpret.py: set TRITON_INTERPRET=1", file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import suite

    out_dir = Path(argv[0])
    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = set(argv[1:])
    for case in suite.all_cases():
        if wanted and case.name not in wanted:
            continue
        try:
            outputs = run_case(case)
            np.savez(out_dir / f"{case.name}.npz", **outputs)
        except Exception:
            (out_dir / f"{case.name}.error").write_text(traceback.format_exc())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
