"""Triton's libdevice (``triton.language.extra.libdevice``) for tmetal.

Kernels call ``libdevice.j0(x)`` and the like; Triton resolves that module
through the backend's ``get_module_map()``. tmetal answers with this module:
each function emits ``tt.extern_elementwise`` with the symbol of CUDA's
libdevice (``__nv_j0f``), so TTIR written by Triton's NVIDIA frontend and
TTIR written for Metal are the same, and tmetal's code generators implement
those symbols (tmetal/ir/libdevice.def, docs/codegen.md "libdevice"). The
table of functions and types comes from the C++ core, so this module and the
code generators cannot disagree.

Only float32 and integer variants exist: Apple GPUs have no float64. A
function of Triton's libdevice that tmetal does not implement (the float64
conversions, rcp64h, ...) raises an error at the kernel line that calls it.
"""
from __future__ import annotations

from triton.language import core
from triton.language.extra import libdevice as _triton_libdevice

from ._native import core as core_module


def _function(name: str, overloads: list) -> object:
    table = {tuple(core.dtype(t) for t in args): (symbol, core.dtype(result)) for symbol, result, args in overloads}
    accepted = ", ".join("(" + ", ".join(str(t) for t in types) + ")" for types in table)

    @core.extern
    def function(*args, _semantic=None):
        types = tuple(_semantic.to_tensor(a).dtype for a in args)
        if types not in table:
            raise TypeError(f"libdevice.{name}: tmetal has no variant for arguments {tuple(str(t) for t in types)} "
                            f"(it has {accepted}; float64 does not exist on Apple GPUs)")
        return core.extern_elementwise("", "", list(args), table, is_pure=True, _semantic=_semantic)

    function.__name__ = name
    function.__qualname__ = name
    return function


def _missing(name: str, reason: str) -> object:

    @core.extern
    def function(*args, _semantic=None):
        raise NotImplementedError(f"libdevice.{name} is not implemented by tmetal ({reason})")

    function.__name__ = name
    function.__qualname__ = name
    return function


def _build() -> dict:
    overloads: dict = {}
    pending: set = set()
    for name, symbol, result, args, implemented in core_module().libdevice_functions():
        if implemented:
            overloads.setdefault(name, []).append((symbol, result, args))
        else:
            pending.add(name)
    functions = {name: _function(name, entries) for name, entries in overloads.items()}
    for name in pending - functions.keys():
        functions[name] = _missing(name, "not yet: its Metal helper is still to be written")
    for name in dir(_triton_libdevice):
        if not name.startswith("_") and callable(getattr(_triton_libdevice, name)) and name not in functions:
            functions[name] = _missing(name, "it has libdevice's float32 and integer functions; Apple GPUs have no "
                                       "float64")
    return functions


globals().update(_build())
