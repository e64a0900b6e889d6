"""Which of the arguments Triton hands a launcher become kernel parameters.

Triton calls a launcher with every argument of the Python signature, in
order, constexprs included. The compiled kernel takes only the others, in the
same order, with tuples flattened: exactly the leaves of `src.signature`
whose type is not "constexpr" (Triton also turns an integer argument equal to
1 into a constexpr). The kernel's metadata (kernel_abi.h) lists those
parameters with their dtypes; the plan checks that both agree.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import LaunchError


@dataclass(frozen=True)
class PlannedArgument:
    path: tuple  # index path into the launch arguments (tuples nest)
    triton_type: str  # "*fp32", "i32", "fp32", ...
    name: str  # the kernel parameter's name (from the metadata)
    dtype: str  # the metadata's dtype
    is_pointer: bool


def _leaves(signature_value, path):
    if isinstance(signature_value, tuple):
        for i, inner in enumerate(signature_value):
            yield from _leaves(inner, path + (i, ))
    else:
        yield path, signature_value


class LaunchPlan:

    def __init__(self, signature: dict, abi: dict, kernel_name: str):
        self.kernel_name = kernel_name
        runtime = [(path, ty) for position, value in enumerate(signature.values())
                   for path, ty in _leaves(value, (position, )) if ty != "constexpr"]
        params = abi["params"]
        if len(runtime) != len(params):
            raise LaunchError(f"kernel '{kernel_name}': Triton's signature has {len(runtime)} runtime arguments but "
                              f"the compiled kernel takes {len(params)} parameters", kernel=kernel_name)
        self.arguments = []
        for (path, ty), param in zip(runtime, params):
            is_pointer = str(ty).startswith("*")
            if is_pointer != bool(param["pointer"]):
                raise LaunchError(f"kernel '{kernel_name}': argument {param['name']!r} is {ty} in Triton's "
                                  f"signature but {'a pointer' if param['pointer'] else 'a scalar'} in the compiled "
                                  "kernel", kernel=kernel_name)
            self.arguments.append(PlannedArgument(path, str(ty), param["name"], param["dtype"], is_pointer))

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
