"""Exceptions raised by triton_metal.

Every failure of the plugin is a `TmetalError`: the C++ core's diagnostics
(raised by `triton_metal._core`) arrive as these classes with the user's
source position as attributes, and the plugin adds the kernel's name. Nothing
in the plugin is allowed to crash the interpreter instead.
"""
from __future__ import annotations

from triton.runtime.errors import OutOfResources


class TmetalError(RuntimeError):
    """Base class of every error triton_metal raises.

    Attributes:
      file, line, col: the user's source position ("" / 0 when unknown);
      reason: the message without the position prefix;
      kernel: the name of the Triton kernel concerned ("" when unknown).
    """

    def __init__(self, message: str, *, file: str = "", line: int = 0, col: int = 0, reason: str = "",
                 kernel: str = ""):
        super().__init__(message)
        self.file = file
        self.line = line
        self.col = col
        self.reason = reason or message
        self.kernel = kernel

    @property
    def location(self) -> str:
        """'file:line:col' (or shorter), '' when unknown."""
        if not self.file and not self.line:
            return ""
        text = self.file or "<unknown>"
        if self.line:
            text += f":{self.line}"
            if self.col:
                text += f":{self.col}"
        return text

    def _fields(self) -> dict:
        """The keyword attributes a copy keeps (subclasses add theirs)."""
        return {"file": self.file, "line": self.line, "col": self.col, "reason": self.reason, "kernel": self.kernel}

    def copy_with(self, message: str, **changes) -> "TmetalError":
        """The same error with another message (and any attributes changed)."""
        return type(self)(message, **{**self._fields(), **changes})

    def __str__(self) -> str:
        return self.args[0] if self.args else ""

    def __reduce__(self):
        # Triton deep-copies exceptions it caches (CompiledKernel._init_handles),
        # and multiprocessing pickles them: keep the keyword attributes.
        return (_rebuild, (type(self), str(self), self._fields()))


def _rebuild(cls, message, fields):
    return cls(message, **fields)


class CompileError(TmetalError):
    """The kernel cannot be compiled: unsupported or malformed TTIR, a code
    generation limit, or the emulator's C++ compiler rejecting the MSL. The
    message starts with the user's `file:line:col` when the TTIR had it."""


class OutOfResourcesError(CompileError, OutOfResources):
    """The kernel needs more of a threadgroup's resources than the GPU has:
    threadgroup memory (Triton's "shared memory") or threads (num_warps).
    Also Triton's OutOfResources, so that triton.autotune drops such a config
    and times the others, as it does on NVIDIA. The message ends with
    Triton's own wording ("out of resource: shared memory, Required: ...").

    Attributes (besides CompileError's): name, Triton's name of the resource
    ("shared memory" or "threads"); required and limit, in bytes or threads."""

    _TRITON_NAMES = {"threadgroup memory": "shared memory", "threads": "threads"}

    def __init__(self, message: str, *, resource: str, required: int, limit: int, **fields):
        self.name = self._TRITON_NAMES.get(resource, resource)
        self.required = required
        self.limit = limit
        triton_words = f"out of resource: {self.name}, Required: {required}, Hardware limit: {limit}"
        if triton_words not in message:
            message = f"{message} ({triton_words})"
        super().__init__(message, **fields)

    def _fields(self) -> dict:
        resource = next((r for r, name in self._TRITON_NAMES.items() if name == self.name), self.name)
        return {**super()._fields(), "resource": resource, "required": self.required, "limit": self.limit}


class InvalidOptionError(CompileError, AssertionError):
    """A compile option the backend does not take (num_warps not a power of
    2, num_ctas above 1, a CUDA-only feature, an unknown layout policy). Also
    an AssertionError, which Triton's own backends raise for such options
    (their options assert in __post_init__), so that code written for them
    catches it."""


class LaunchError(TmetalError, ValueError):
    """The arguments of a launch do not fit the compiled kernel (wrong count,
    a tensor on the wrong device, a scalar out of range, ...). Also a
    ValueError, which is what Triton's own launchers raise for such arguments."""


class EmulatorError(TmetalError):
    """The kernel misbehaved while the emulator ran it: divergent barrier or
    SIMD-group function, out-of-bounds access (sanitize mode), a crash or a
    timeout (sanitize mode)."""


class DeviceAssertionError(TmetalError):
    """A `tl.device_assert` (or a `debug=True` overflow check) failed while
    the kernel ran. Metal cannot stop a kernel, so the launch finished and
    the outputs are unspecified; the message names the user's line, the
    assertion's message and the first failing program, thread and element.
    A RuntimeError, as Triton's NVIDIA backend raises for a device-side assert.
    `reason` is the assertion's own message."""


class UnavailableError(TmetalError):
    """A part of tmetal that this installation does not have: a pipeline stage
    not built into triton_metal._core, Metal on a machine without it, ..."""


def with_kernel(error: TmetalError, kernel: str) -> TmetalError:
    """A copy of `error` whose message names `kernel` (once)."""
    if not kernel or error.kernel:
        return error
    message = str(error)
    if f"'{kernel}'" not in message:
        where = f" at {error.location}" if error.location and error.location not in message else ""
        message = f"{message}\n  in Triton kernel '{kernel}'{where}"
    return error.copy_with(message, kernel=kernel)
