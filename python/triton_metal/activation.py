"""Making tmetal's driver Triton's active driver in code.

Triton finds the `metal` backend through its entry point once the package is
installed (`pip install .`, scripts/setup.sh). A source tree used through
PYTHONPATH alone (as scripts/gpu_check.sh does) has no entry point:
`register_backend()` then adds the backend to Triton's table itself.

`activate()` is for machines where Triton's own NVIDIA driver is active too
(PyTorch with CUDA): with TRITON_METAL_DEVICE=cuda both drivers report
themselves active and Triton refuses to pick its default one ("2 active
drivers"); an explicitly activated driver is used regardless.
"""
from __future__ import annotations

from .compiler import BACKEND_NAME


def register_backend() -> bool:
    """Adds the `metal` backend to Triton's backends when Triton did not
    discover it. Returns whether it had to."""
    from triton.backends import Backend, backends

    if BACKEND_NAME in backends:
        return False
    from .compiler import MetalBackend
    from .driver import TmetalDriver
    backends[BACKEND_NAME] = Backend(compiler=MetalBackend, driver=TmetalDriver)
    return True


def activate(driver=None):
    """Registers the backend if needed and makes `driver` (default: the one
    TRITON_METAL_DEVICE selects, `TmetalDriver()`) Triton's active driver.
    Returns the driver."""
    from triton.runtime import driver as triton_driver

    from .driver import TmetalDriver

    register_backend()
    if driver is None:
        driver = TmetalDriver()
    triton_driver.set_active(driver)
    return driver
