"""The kernel suite: Triton kernels with NumPy inputs and NumPy references.

Every execution path of tmetal (reference interpreter, emulator, CUDA, Metal)
is checked against the same `Case` objects registered here. A topic module
(`elementwise.py`, `reductions.py`, ...) defines `@triton.jit` kernels and
calls `register(Case(...))` for each configuration it wants tested.

Conventions that every consumer relies on:
- `make_args(rng)` returns every non-constexpr kernel argument, in the order of
  the kernel's Python signature: NumPy arrays for pointer arguments, Python
  `int`/`float` for scalars. Output arrays are included with their initial
  contents (the kernel may leave parts of them untouched).
- `reference(args)` returns, for each name in `outputs`, the full expected
  contents of that array after the kernel ran on `args`.
- bfloat16 arrays are NumPy `uint16` arrays holding the bf16 bit patterns; the
  names of such arguments are listed in `Case.bf16_args` so that tools know
  the pointer's element type is bf16 and not u16.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
from typing import Any, Callable

import numpy as np

# Topic modules that register cases; `all_cases()` imports them in this order.
TOPIC_MODULES = (
    "elementwise",
    "reductions",
    "scans",
    "norms",
    "linalg",
    "control",
)

# (rtol, atol) per element type. Integers and booleans always compare exactly.
# f32 allows for a different summation order or a libm that differs in the last
# ulp or two; f16 and bf16 allow about one rounding step of their mantissas
# (11 and 8 bits).
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "fp32": (1e-5, 1e-6),
    "fp16": (1e-3, 1e-3),
    "bf16": (1e-2, 1e-2),
}


# ---------------------------------------------------------------------------
# bfloat16 as uint16 bit patterns
# ---------------------------------------------------------------------------


def f32_to_bf16_bits(values) -> np.ndarray:
    """Round float32 values to bfloat16 (round to nearest, ties to even) and
    return the bit patterns as uint16. NaNs stay (quiet) NaNs."""
    f32 = np.ascontiguousarray(values, dtype=np.float32)
    bits = f32.view(np.uint32).astype(np.uint64)
    # Adding 0x7FFF plus the lowest kept bit rounds to nearest-even once the
    # low 16 bits are dropped.
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    out = rounded.astype(np.uint16)
    nan = np.isnan(f32)
    out[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)
    return out.reshape(f32.shape)


def bf16_bits_to_f32(bits) -> np.ndarray:
    """Widen bfloat16 bit patterns (uint16) to float32 exactly."""
    u16 = np.ascontiguousarray(bits, dtype=np.uint16)
    return (u16.astype(np.uint32) << 16).view(np.float32).reshape(u16.shape)


# ---------------------------------------------------------------------------
# The Case record
# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter of a kernel, as the suite sees it."""

    name: str
    kind: str  # "pointer", "scalar" or "constexpr"
    dtype: str  # Triton type name: "fp32", "bf16", "i32", ...; "" for constexpr
    is_output: bool


@dataclasses.dataclass
class Case:
    name: str
    kernel: Any  # a triton JITFunction
    make_args: Callable[[np.random.Generator], dict]
    grid: tuple
    reference: Callable[[dict], dict]
    outputs: tuple
    constexprs: dict = dataclasses.field(default_factory=dict)
    num_warps: int = 4
    bf16_args: tuple = ()
    # Overrides of DEFAULT_TOLERANCES for this case, e.g. {"fp32": (1e-4, 1e-5)}.
    tolerances: dict = dataclasses.field(default_factory=dict)
    # Seed for the input generator, so that inputs are the same on every run.
    seed: int = 0
    # Tolerances used only when checking against Triton's CPU interpreter,
    # where that interpreter is known to differ from compiled Triton (each use
    # says why). Falls back to `tolerances`, then to DEFAULT_TOLERANCES.
    interpreter_tolerances: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        self.grid = tuple(int(g) for g in self.grid)
        self.outputs = tuple(self.outputs)
        self.bf16_args = tuple(self.bf16_args)
        names = self.param_names()
        for name in list(self.outputs) + list(self.bf16_args) + list(self.constexprs):
            if name not in names:
                raise ValueError(f"case {self.name}: {name!r} is not a parameter of {self.kernel.__name__}")
        if not 1 <= len(self.grid) <= 3:
            raise ValueError(f"case {self.name}: grid must have 1 to 3 dimensions")

    def param_names(self) -> list[str]:
        return list(inspect.signature(self.kernel.fn).parameters)

    def runtime_param_names(self) -> list[str]:
        """Names of the non-constexpr parameters, in signature order."""
        return [n for n in self.param_names() if n not in self.constexprs]

    def args(self) -> dict:
        """Fresh inputs (the same every call), checked against the signature."""
        args = self.make_args(np.random.default_rng(self.seed))
        expected = self.runtime_param_names()
        if list(args) != expected:
            raise ValueError(f"case {self.name}: make_args gave {list(args)}, the signature needs {expected}")
        for name in self.bf16_args:
            if args[name].dtype != np.uint16:
                raise ValueError(f"case {self.name}: bf16 argument {name} must be stored as uint16 bits")
        return args

    def expected(self, args: dict) -> dict:
        """The reference outputs for `args` (computed on copies of the inputs)."""
        copies = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
        ref = self.reference(copies)
        if set(ref) != set(self.outputs):
            raise ValueError(f"case {self.name}: reference gave {sorted(ref)}, outputs are {sorted(self.outputs)}")
        return ref

    def dtype_of(self, name: str, value) -> str:
        """Triton element type name of a runtime argument value."""
        if isinstance(value, np.ndarray):
            if name in self.bf16_args:
                return "bf16"
            return NUMPY_TO_TRITON[value.dtype]
        if isinstance(value, bool):
            return "i1"
        if isinstance(value, int):
            # As Triton's JIT does: i32 when it fits, else i64 (or u64).
            return "i32" if -2**31 <= value < 2**31 else ("i64" if -2**63 <= value < 2**63 else "u64")
        if isinstance(value, float):
            return "fp32"
        raise TypeError(f"case {self.name}: unsupported argument {name}={value!r}")

    def params(self, args: dict) -> list[Param]:
        out = []
        for name in self.param_names():
            if name in self.constexprs:
                out.append(Param(name, "constexpr", "", False))
                continue
            value = args[name]
            kind = "pointer" if isinstance(value, np.ndarray) else "scalar"
            out.append(Param(name, kind, self.dtype_of(name, value), name in self.outputs))
        return out

    def tolerance(self, dtype: str, interpreter: bool = False) -> tuple[float, float]:
        """(rtol, atol) for an element type; (0, 0) means exact."""
        if interpreter and dtype in self.interpreter_tolerances:
            return self.interpreter_tolerances[dtype]
        if dtype in self.tolerances:
            return self.tolerances[dtype]
        return DEFAULT_TOLERANCES.get(dtype, (0.0, 0.0))


NUMPY_TO_TRITON = {
    np.dtype(np.float32): "fp32",
    np.dtype(np.float16): "fp16",
    np.dtype(np.float64): "fp64",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
}


def compare(case: Case, name: str, actual: np.ndarray, expected: np.ndarray,
            interpreter: bool = False) -> str | None:
    """None when `actual` matches `expected` within the case's tolerance for
    the argument's element type; otherwise a description of the first
    mismatch. `interpreter` selects the tolerances for Triton's interpreter."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if actual.shape != expected.shape:
        actual = actual.reshape(-1)
        expected = expected.reshape(-1)
        if actual.shape != expected.shape:
            return f"{name}: {actual.size} elements, expected {expected.size}"
    dtype = "bf16" if name in case.bf16_args else NUMPY_TO_TRITON.get(expected.dtype, "")
    if dtype == "bf16":
        actual, expected = bf16_bits_to_f32(actual), bf16_bits_to_f32(expected)
    rtol, atol = case.tolerance(dtype, interpreter)
    if actual.dtype.kind in "fc" or expected.dtype.kind in "fc":
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        ok = actual == expected
    if ok.all():
        return None
    bad = np.flatnonzero(~ok.reshape(-1))
    i = bad[0]
    return (f"{name} ({dtype}, rtol={rtol}, atol={atol}): {bad.size} of {ok.size} elements differ; "
            f"first at flat index {i}: got {actual.reshape(-1)[i]!r}, expected {expected.reshape(-1)[i]!r}")


# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------

_CASES: dict[str, Case] = {}


def register(case: Case) -> Case:
    if case.name in _CASES:
        raise ValueError(f"duplicate case name {case.name!r}")
    _CASES[case.name] = case
    return case


def all_cases() -> list[Case]:
    """Every registered case, sorted by name (stable across runs)."""
    for module in TOPIC_MODULES:
        importlib.import_module(module)
    return [_CASES[name] for name in sorted(_CASES)]


def case_names() -> list[str]:
    return [c.name for c in all_cases()]


def get_case(name: str) -> Case:
    all_cases()
    return _CASES[name]


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b
