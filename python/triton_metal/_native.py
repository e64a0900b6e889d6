"""Access to the C++ core, `triton_metal._core`, with an error that says how
to get it when it is missing (a source checkout that was not built yet)."""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from .errors import UnavailableError


@functools.lru_cache(maxsize=None)
def core():
    """The `triton_metal._core` extension module."""
    try:
        from . import _core
    except ImportError as e:
        raise UnavailableError(
            "triton_metal._core (tmetal's C++ core) is not built: run scripts/setup.sh in the tmetal checkout "
            "(it builds the binding into python/triton_metal/), or `pip install .` from the repository root. "
            f"Import error: {e}") from e
    return _core


def capabilities() -> dict:
    """Which pipeline stages the core was built with; all False without a core."""
    try:
        return dict(core().capabilities())
    except UnavailableError:
        return {"frontend": False, "codegen": False, "emulator": False, "hardware": False, "cuda": False}


@functools.lru_cache(maxsize=None)
def core_fingerprint() -> str:
    """A hash of the built core. Part of the backend's hash, so that Triton's
    kernel cache never serves MSL that an older build of tmetal produced."""
    module = core()
    digest = hashlib.sha256(module.__version__.encode())
    path = Path(module.__file__)
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:24]
