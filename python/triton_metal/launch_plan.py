"""Which of the arguments Triton hands a launcher become kernel parameters.

Triton calls a launcher with every argument of the Python signature, in
order, constexprs included. The compiled kernel takes only the others, in the
same order, with tuples flattened: exactly the leaves of `src.signature`
whose type is not "constexpr" (Triton also turns an integer argument equal to
1 into a constexpr). The kernel's metadata (kernel_abi.h) lists those
parameters with their dtypes; the plan checks that both agree.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional

from .errors import LaunchError


@dataclass(frozen=True)
class PlannedArgument:
    path: tuple  # index path into the launch arguments (tuples nest)
    triton_type: str  # "*fp32", "i32", "fp32", ...
    name: str  # the kernel parameter's name (from the metadata)
    dtype: str  # the metadata's dtype
    is_pointer: bool
    part: Optional[Callable] = None  # what of a host tensor descriptor it is


def _tensordesc_parts(ty: str) -> list:
    """The kernel parameters a host TensorDescriptor argument becomes when its
    loads and stores are rewritten to pointers (no TMA, as on Apple GPUs), in
    the order Triton's frontend gives them: the base pointer, the shape and
    strides (i64), whether padding is NaN, then the shape (i32) and strides
    (i64) again (the rewrite's own copy)."""
    match = re.match(r"tensordesc<([^\[>]*)\[([^\]]*)\]", ty)
    if not match:
        raise LaunchError(f"cannot read the tensor descriptor type {ty!r}")
    rank = match.group(2).count(",") + 1
    parts = [("*" + match.group(1), lambda d: d.base)]
    parts += [("i64", lambda d, i=i: int(d.shape[i])) for i in range(rank)]
    parts += [("i64", lambda d, i=i: int(d.strides[i])) for i in range(rank)]
    parts.append(("i1", lambda d: d.padding == "nan"))
    parts += [("i32", lambda d, i=i: int(d.shape[i])) for i in range(rank)]
    parts += [("i64", lambda d, i=i: int(d.strides[i])) for i in range(rank)]
    return parts


def _leaves(signature_value, path):
    if isinstance(signature_value, tuple):
        for i, inner in enumerate(signature_value):
            yield from _leaves(inner, path + (i, ))
    else:
        yield path, signature_value


class LaunchPlan:

    def __init__(self, signature: dict, abi: dict, kernel_name: str):
        self.kernel_name = kernel_name
        runtime = []
        for position, value in enumerate(signature.values()):
            for path, ty in _leaves(value, (position, )):
                if ty == "constexpr":
                    continue
                if str(ty).startswith("tensordesc"):
                    runtime += [(path, part_ty, part) for part_ty, part in _tensordesc_parts(str(ty))]
                else:
                    runtime.append((path, ty, None))
        params = abi["params"]
        if len(runtime) != len(params):
            raise LaunchError(f"kernel '{kernel_name}': Triton's signature has {len(runtime)} runtime arguments but "
                              f"the compiled kernel takes {len(params)} parameters", kernel=kernel_name)
        self.arguments = []
        for (path, ty, part), param in zip(runtime, params):
            is_pointer = str(ty).startswith("*")
            if is_pointer != bool(param["pointer"]):
                raise LaunchError(f"kernel '{kernel_name}': argument {param['name']!r} is {ty} in Triton's "
                                  f"signature but {'a pointer' if param['pointer'] else 'a scalar'} in the compiled "
                                  "kernel", kernel=kernel_name)
            self.arguments.append(PlannedArgument(path, str(ty), param["name"], param["dtype"], is_pointer, part))

    @classmethod
    def from_source(cls, src, abi: dict, kernel_name: str) -> "LaunchPlan":
        return cls(dict(src.signature), abi, kernel_name)

    def select(self, args: tuple) -> list:
        """The kernel's arguments out of all launch arguments."""
        selected = []
        for planned in self.arguments:
            value = args
            for i in planned.path:
                value = value[i]
            if planned.part is not None:
                value = planned.part(value)
            selected.append(_as_parameter(planned, value))
        return selected


def _as_parameter(planned: PlannedArgument, value):
    """TTIR has no unsigned integers: an unsigned argument (Triton types an
    integer in [2**63, 2**64) as u64) is passed as the signed parameter with
    the same bits."""
    ty = planned.triton_type
    if (not planned.is_pointer and ty[:1] == "u" and ty[1:].isdigit() and isinstance(value, int)
            and not isinstance(value, bool)):
        bits = int(ty[1:])
        if 2**(bits - 1) <= value < 2**bits:
            return value - 2**bits
    return value
