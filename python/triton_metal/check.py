"""`python -m triton_metal.check`: what works on this machine, and how to fix
what does not.

One line per check, `[PASS]`, `[FAIL]` (with a `fix:` line) or `[INFO]`
(not needed here). The exit status is 0 when Triton kernels can run through
tmetal on this machine (on Metal or on the emulator), 1 otherwise.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass

from . import device_selection

PASS, FAIL, INFO = "PASS", "FAIL", "INFO"
TRITON_SERIES = "3.6"

# A kernel written by hand to the emitters' ABI (tmetal/codegen/kernel_abi.h),
# so that the emulator's toolchain is checked independently of the code
# generator: x[i] = a * x[i] + 1 for i < n, 64 threads per threadgroup.
CHECK_KERNEL_MSL = r"""
#include <metal_stdlib>
using namespace metal;

kernel void tmetal_check_axpy(device float* x [[buffer(0)]],
                              constant float& a [[buffer(1)]],
                              constant int& n [[buffer(2)]],
                              uint3 pid [[threadgroup_position_in_grid]],
                              uint tid [[thread_index_in_threadgroup]]) {
  int i = int(pid.x) * 64 + int(tid);
  if (i < n) x[i] = a * x[i] + 1.0f;
}
"""
CHECK_KERNEL_METADATA = {
    "target": "metal",
    "kernel": "tmetal_check_axpy",
    "threads_per_threadgroup": 64,
    "simd_width": 32,
    "threadgroup_memory_bytes": 0,
    "params": [
        {"name": "x", "pointer": True, "dtype": "f32", "binding": 0},
        {"name": "a", "pointer": False, "dtype": "f32", "binding": 1},
        {"name": "n", "pointer": False, "dtype": "i32", "binding": 2},
    ],
    "builtins": [
        {"name": "threadgroup_position_in_grid", "type": "uint3"},
        {"name": "thread_index_in_threadgroup", "type": "uint"},
    ],
}


@dataclass
class CheckResult:
    name: str
    status: str
    detail: str
    fix: str = ""

    def lines(self) -> list[str]:
        out = [f"[{self.status}] {self.name}: {self.detail}"]
        if self.fix and self.status == FAIL:
            out.append(f"       fix: {self.fix}")
        return out


def check_os() -> CheckResult:
    return CheckResult("OS", PASS, f"{platform.system()} {platform.release()} ({platform.machine()}), "
                       f"Python {platform.python_version()}")


def _mac_brand_string() -> str:
    try:
        done = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def check_chip() -> CheckResult:
    if sys.platform != "darwin":
        return CheckResult("chip", INFO, f"{platform.machine()} CPU, not an Apple-silicon Mac: Metal cannot run "
                           "here; the emulator can")
    brand = _mac_brand_string()
    if brand.startswith("Apple"):
        return CheckResult("chip", PASS, brand)
    return CheckResult("chip", FAIL, f"'{brand or 'unknown'}' is not Apple silicon",
                       "Metal kernels need an M-series Mac; use TRITON_METAL_DEVICE=emulator")


def check_metal() -> CheckResult:
    available, why = device_selection.metal_status()
    if available:
        return CheckResult("Metal", PASS, why + " (the Metal driver is unverified: see docs/plugin.md)")
    if sys.platform != "darwin":
        return CheckResult("Metal", INFO, f"not available: {why}")
    return CheckResult("Metal", FAIL, f"not available: {why}",
                       "install PyTorch 2.7 or newer with MPS support (pip install torch)")


def check_metal_compiler() -> CheckResult:
    from .compiler import metal_toolchain
    path = metal_toolchain()
    if path:
        return CheckResult("Metal compiler", PASS, f"xcrun metal at {path}: Metal kernels end in a .metallib")
    if sys.platform != "darwin":
        return CheckResult("Metal compiler", INFO, "no xcrun (not macOS): kernels stay MSL source")
    return CheckResult("Metal compiler", INFO, "no `xcrun metal`: kernels run from MSL source through "
                       "torch.mps.compile_shader (install Xcode to also get a .metallib)")


def check_torch() -> CheckResult:
    try:
        import torch
    except ImportError:
        status = INFO if sys.platform != "darwin" else FAIL
        return CheckResult("PyTorch", status, "not installed: the emulator runs NumPy arrays (triton_metal.tensor); "
                           "Metal needs PyTorch's MPS tensors", "pip install torch")
    mps = torch.backends.mps.is_available()
    return CheckResult("PyTorch", PASS, f"{torch.__version__}, MPS {'available' if mps else 'not available'}, "
                       f"torch.mps.compile_shader {'present' if hasattr(torch.mps, 'compile_shader') else 'missing'}")


def check_triton() -> CheckResult:
    try:
        import triton
    except ImportError as e:
        return CheckResult("Triton", FAIL, f"cannot import triton: {e}", f"pip install 'triton=={TRITON_SERIES}.*'")
    version = triton.__version__
    if not version.startswith(TRITON_SERIES + "."):
        return CheckResult("Triton", FAIL, f"{version}; the plugin is written for Triton {TRITON_SERIES}",
                           f"pip install 'triton=={TRITON_SERIES}.*'")
    return CheckResult("Triton", PASS, version)


def check_plugin_registered() -> CheckResult:
    try:
        from triton.backends import backends
    except Exception as e:  # a broken plugin makes Triton's discovery raise
        return CheckResult("plugin", FAIL, f"Triton's backend discovery failed: {e}",
                           "reinstall triton_metal (pip install . or scripts/setup.sh)")
    entry = backends.get("metal")
    if entry is None:
        return CheckResult("plugin", FAIL, "Triton did not discover the 'metal' backend (no `triton.backends` entry "
                           "point)", "pip install . from the tmetal checkout, or run scripts/setup.sh")
    return CheckResult("plugin", PASS, f"Triton backend 'metal': {entry.compiler.__name__}, {entry.driver.__name__}")


def check_core() -> CheckResult:
    from ._native import core
    try:
        module = core()
    except Exception as e:
        return CheckResult("C++ core", FAIL, str(e), "run scripts/setup.sh (builds python/triton_metal/_core*.so) "
                           "or pip install .")
    capabilities = module.capabilities()
    missing = [stage for stage, present in capabilities.items() if not present]
    detail = f"triton_metal._core {module.__version__}, stages: " + ", ".join(
        f"{stage} {'yes' if present else 'no'}" for stage, present in capabilities.items())
    if missing:
        return CheckResult("C++ core", FAIL, detail, "rebuild the core once every stage has landed "
                           "(ninja -C build _core)")
    return CheckResult("C++ core", PASS, detail)


def check_hardware_profile() -> CheckResult:
    from ._native import core
    try:
        selection = core().select_hardware("")
    except Exception as e:
        return CheckResult("hardware profile", FAIL, str(e), "set TMETAL_HARDWARE to a known profile "
                           "(`tmetal hardware` lists them), or unset it")
    return CheckResult("hardware profile", PASS, f"{selection['id']} ({selection['name']}): {selection['origin']}")


def check_emulator() -> CheckResult:
    from ._native import core
    try:
        import numpy as np
        kernel = core().emulator_compile(CHECK_KERNEL_MSL, json.dumps(CHECK_KERNEL_METADATA))
        x = np.arange(100, dtype=np.float32)
        kernel.launch([x, 2.0, 100], [2])
    except Exception as e:
        return CheckResult("emulator", FAIL, f"could not compile and run a test kernel: {e}",
                           "install clang++ (scripts/setup.sh does), or point TMETAL_EMULATOR_CXX at a C++20 "
                           "compiler")
    expected = 2.0 * np.arange(100, dtype=np.float32) + 1.0
    if not np.array_equal(x, expected):
        return CheckResult("emulator", FAIL, "the test kernel ran but computed wrong values",
                           "report this as a tmetal bug")
    compiler = os.environ.get("TMETAL_EMULATOR_CXX", "clang++")
    return CheckResult("emulator", PASS, f"compiled MSL with {compiler} and ran it on the CPU")


def check_triton_kernel() -> CheckResult:
    """The whole pipeline: a @triton.jit kernel through Triton's frontend,
    tmetal's code generator and the emulator."""
    from ._native import capabilities
    if not all(capabilities().values()):
        return CheckResult("Triton kernel", FAIL, "skipped: the C++ core lacks a pipeline stage (see 'C++ core')",
                           "rebuild the core (ninja -C build _core, or pip install .)")
    import numpy as np
    from triton.runtime import driver

    from ._check_kernel import add_one_kernel
    from .emulator_driver import EmulatorDriver
    from .host_tensor import tensor
    previous = driver._active
    try:
        driver.set_active(EmulatorDriver())
        x = np.arange(1000, dtype=np.float32)
        add_one_kernel[(4, )](tensor(x), 1000, BLOCK=256)
    except Exception as e:
        return CheckResult("Triton kernel", FAIL, f"{type(e).__name__}: {e}", "report this as a tmetal bug")
    finally:
        driver._active = previous
    if not np.array_equal(x, np.arange(1000, dtype=np.float32) + 1):
        return CheckResult("Triton kernel", FAIL, "a @triton.jit kernel ran on the emulator but computed wrong values",
                           "report this as a tmetal bug")
    return CheckResult("Triton kernel", PASS, "a @triton.jit kernel compiled to MSL and ran on the emulator")


def check_active_driver() -> CheckResult:
    try:
        device = device_selection.selected_device()
    except Exception as e:
        return CheckResult("device", FAIL, str(e), f"set {device_selection.ENV_DEVICE} to metal or emulator")
    if device is None:
        return CheckResult("device", INFO, "no device selected by default here (Metal is not available); set "
                           f"{device_selection.ENV_DEVICE}=emulator, or call triton.runtime.driver.set_active("
                           "triton_metal.EmulatorDriver())")
    return CheckResult("device", PASS, f"kernels run on {device} ({device_selection.ENV_DEVICE}="
                       f"{os.environ.get(device_selection.ENV_DEVICE, '') or 'auto'})")


CHECKS = (check_os, check_chip, check_metal, check_metal_compiler, check_torch, check_triton, check_plugin_registered,
          check_core, check_hardware_profile, check_emulator, check_triton_kernel, check_active_driver)


def run_checks() -> list[CheckResult]:
    results = []
    for check in CHECKS:
        try:
            results.append(check())
        except Exception as e:  # a check must never take the report down
            results.append(CheckResult(check.__name__.removeprefix("check_"), FAIL, f"the check itself failed: {e}",
                                       "report this as a tmetal bug"))
    return results


def kernels_can_run(results: list[CheckResult]) -> bool:
    by_name = {r.name: r.status for r in results}
    basics = all(by_name.get(n) == PASS for n in ("Triton", "plugin", "C++ core"))
    return basics and (by_name.get("Triton kernel") == PASS or by_name.get("Metal") == PASS)


def main(argv=None) -> int:
    results = run_checks()
    for result in results:
        print("\n".join(result.lines()))
    ok = kernels_can_run(results)
    print("\nTriton kernels can run through tmetal here." if ok else
          "\nTriton kernels cannot run through tmetal here yet: see the fixes above.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
