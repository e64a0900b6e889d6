#!/usr/bin/env python3
"""GPU benchmarks of tmetal's CUDA target on an NVIDIA GPU (docs/performance.md).

  gpu_bench.py layouts  one row-reduction kernel (bench_kernels.row_sum_kernel) under
                        every MemoryLayout policy, against torch.sum
  gpu_bench.py graph    whole-tensor tt.sum / tt.max / tt.argmax through the reduction
                        planner's stage kernels, against torch.sum / amax / argmax
  gpu_bench.py suite    the kernel suite (tests/kernels) and larger configurations of
                        its kernels: tmetal's CUDA target against Triton's own backend
  gpu_bench.py flush    what the L2 flush before each timed run costs it: torch.sum
                        and copies of 128 MB to 1 GB after each kind of flush
  gpu_bench.py all      the three, sized to fit about 8 minutes on an H100, then
                        summary.md (bench/summarize.py)

Code generation goes through the `tmetal` CLI (--tmetal; `tmetal bench ...` passes
its own path): TTIR -> `tmetal compile --target cuda` -> CUDA C++, loaded with
cupy.RawModule (NVRTC) and launched on torch tensors' device pointers, on torch's
current stream (by cupy; in suite, by default, by the launcher Triton generates for
its own kernels, so that the two sides differ in their kernels alone). Times are
medians of single runs, each after an L2 flush: by
default (--l2-flush clean; graph and layouts) the flush writes one 256 MB buffer and
then reads another, so that the L2 holds clean lines only and the timed kernel does
not pay for writing the flush's dirty lines back; --l2-flush dirty is
triton.testing.do_bench as it is (writes only; the default of suite, whose harness is
Triton's own). After either flush the GPU idles 100 us before the start event, so that
the host's launch cost is never timed. Every case is checked for correctness. One failing case is recorded and the
run goes on; a broken CUDA context ends the process with status 3, and `all`
resumes the benchmark in a fresh process (--resume) after marking that case.

Results: OUT/<benchmark>.json (device, date, tmetal commit, versions, copy
bandwidth, one row per case) and OUT/<benchmark>.png. --dry-run generates the
TTIR and the CUDA sources (and with --nvcc-check compiles them to PTX) without a
GPU, torch or cupy.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
for _p in (BENCH_DIR, REPO_ROOT / "scripts", REPO_ROOT / "tests" / "kernels"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

SCHEMA_VERSION = 1
LAYOUTS = ("DEFAULT", "ROW_MAJOR", "COLUMN_MAJOR", "TILED", "COALESCED")
DEFAULT_SIZES = "128x1024,256x1024,512x1024,1024x1024,8192x8192,16384x4096"
DEFAULT_GRAPH_SHAPES = "128x1024,1024x1024,4096x4096,8192x8192,16384x16384,32x4194304,4194304x32,512x512x512"
DEFAULT_OPS = "tt.sum,tt.max,tt.argmax"
QUICK_SIZES = "128x1024,1024x1024"
QUICK_GRAPH_SHAPES = "128x1024,1024x1024,64x64x64"
# Exit status of a benchmark process whose CUDA context broke (an illegal
# address, a launch failure): `all` starts it again with --resume.
EXIT_CONTEXT_LOST = 3
# Shares of `all`'s time budget; time one benchmark leaves unused goes to the next.
BUDGET_SHARES = (("layouts", 0.17), ("graph", 0.43), ("suite", 0.40))

# Element types: Triton's names (suite manifests), the IR's (kernel metadata),
# torch's and NumPy's.
TRITON_TO_IR = {"fp32": "f32", "fp16": "f16", "bf16": "bf16", "fp64": "f64", "i1": "i1", "i8": "i8", "u8": "i8",
                "i16": "i16", "u16": "i16", "i32": "i32", "u32": "i32", "i64": "i64", "u64": "i64"}
IR_TO_TORCH = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i1": "bool", "i8": "int8",
               "i16": "int16", "i32": "int32", "i64": "int64"}
IR_TO_NUMPY = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "f16": np.float16,
               "f32": np.float32, "f64": np.float64}
DTYPE_TO_IR = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "int32": "i32"}
# Unsigned NumPy arrays travel as signed torch tensors of the same size
# (torch's unsigned types have few kernels); Triton gets a view with the real type.
SIGNED_VIEW = {np.dtype(np.uint16): np.int16, np.dtype(np.uint32): np.int32, np.dtype(np.uint64): np.int64}
TRITON_VIEW = {"bf16": "bfloat16", "u16": "uint16", "u32": "uint32", "u64": "uint64"}


def log(message: str) -> None:
    print(message, flush=True)


class BenchError(Exception):
    """A case failed in a way worth one line (compile error, bad metadata)."""


class ContextLost(Exception):
    """The CUDA context is unusable; the process must end. `blame_tmetal`:
    a tmetal kernel of the case did it (not Triton's, not torch's)."""

    def __init__(self, message: str, blame_tmetal: bool = True):
        super().__init__(message)
        self.blame_tmetal = blame_tmetal


def short_error(e: BaseException, limit: int = 600) -> str:
    text = f"{type(e).__name__}: {e}" if not isinstance(e, BenchError) else str(e)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " ..."


# ---------------------------------------------------------------------------
# Argument parsing helpers
# ---------------------------------------------------------------------------


def parse_shape(text: str) -> tuple[int, ...]:
    """"8192x8192" -> (8192, 8192)."""
    try:
        dims = tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad shape '{text}' (write e.g. 1024x1024)") from None
    if not dims or any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError(f"bad shape '{text}': dimensions must be positive")
    return dims


def parse_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def parse_shapes(text: str) -> list[tuple[int, ...]]:
    return [parse_shape(t) for t in parse_list(text)]


def parse_layouts(text: str) -> list[str]:
    layouts = [t.upper() for t in parse_list(text)]
    for layout in layouts:
        if layout not in LAYOUTS:
            raise argparse.ArgumentTypeError(f"unknown layout '{layout}' (known: {', '.join(LAYOUTS)})")
    return layouts


def parse_dtypes(text: str) -> list[str]:
    dtypes = parse_list(text)
    for d in dtypes:
        if d not in DTYPE_TO_IR:
            raise argparse.ArgumentTypeError(f"unknown dtype '{d}' (known: {', '.join(DTYPE_TO_IR)})")
    return dtypes


def shape_text(shape) -> str:
    return "x".join(str(d) for d in shape)


def graph_cases(shapes, ops) -> list[tuple[str, tuple, tuple]]:
    """(op, shape, axes) for each op and shape: 2-D shapes reduce rows (axis 1)
    and columns (axis 0); 3-D shapes the last, the middle and (not argmax,
    which takes one axis) the outer two axes; 1-D shapes their only axis."""
    cases = []
    for shape in shapes:
        if len(shape) == 1:
            axes_list = [(0, )]
        elif len(shape) == 2:
            axes_list = [(1, ), (0, )]
        else:
            axes_list = [(len(shape) - 1, ), (len(shape) - 2, ), (0, len(shape) - 1)]
        for op in ops:
            for axes in axes_list:
                if op in ("tt.argmax", "tt.argmin") and len(axes) > 1:
                    continue
                cases.append((op, tuple(shape), axes))
    return cases


def operation_spec(op: str, shape, axes, dtype: str) -> str:
    """The `--operation` shorthand: tt.sum:[8192,8192]:1:float32."""
    axes_text = str(axes[0]) if len(axes) == 1 else "[" + ",".join(str(a) for a in axes) + "]"
    return f"{op}:[{','.join(str(d) for d in shape)}]:{axes_text}:{dtype}"


# ---------------------------------------------------------------------------
# Environment: device, date, commit, versions
# ---------------------------------------------------------------------------


def tmetal_commit(out_dir: Path) -> str:
    for f in (REPO_ROOT / "bench" / "results" / ".commit", out_dir / ".commit"):
        try:
            text = f.read_text().strip()
            if text:
                return text
        except OSError:
            pass
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True,
                             timeout=10)
        if rev.returncode == 0:
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                                   capture_output=True, text=True, timeout=10)
            return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown"


def environment(args, gpu) -> dict:
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": tmetal_commit(Path(args.out)),
        "host": platform.node(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "tmetal": str(Path(args.tmetal).resolve()),
        "tmetal_version": TmetalCli.version_of(args.tmetal),
        "hardware_profile": args.hardware or "",
    }
    try:
        import triton
        env["triton"] = triton.__version__
    except Exception as e:  # noqa: BLE001
        env["triton"] = f"unavailable ({short_error(e, 100)})"
    if gpu is not None:
        env.update(gpu.describe())
    else:
        env["device"] = "none (dry run)"
    return env


# ---------------------------------------------------------------------------
# The tmetal CLI
# ---------------------------------------------------------------------------


class Compiled:
    def __init__(self, source: str, metadata: dict, path: Path):
        self.source = source
        self.metadata = metadata
        self.path = path  # the .cu file

    @property
    def threads(self) -> int:
        return int(self.metadata["threads_per_threadgroup"])


class TmetalCli:
    """`tmetal compile --target cuda` and `tmetal bench stages`, with their
    outputs kept in a work folder (a compile is reused within a run)."""

    def __init__(self, path: str, work: Path, hardware: str):
        self.path = str(Path(path).resolve())
        self.work = work
        self.hardware = hardware
        if not (os.path.isfile(self.path) and os.access(self.path, os.X_OK)):
            raise SystemExit(f"error: tmetal binary '{self.path}' not found or not executable (build it with "
                             f"`cmake --build build`, or pass --tmetal PATH)")
        st = os.stat(self.path)
        self._binary_key = f"{self.path}:{st.st_size}:{st.st_mtime_ns}"
        (work / "ttir").mkdir(parents=True, exist_ok=True)
        (work / "cuda").mkdir(parents=True, exist_ok=True)
        self._cache: dict[str, Compiled] = {}

    @staticmethod
    def version_of(path) -> str:
        try:
            r = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=30)
            return r.stdout.strip() or r.stderr.strip()
        except (OSError, subprocess.SubprocessError) as e:
            return f"unknown ({short_error(e, 100)})"

    def _run(self, argv: list[str], what: str, timeout: int = 300) -> subprocess.CompletedProcess:
        try:
            r = subprocess.run([self.path] + argv, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise BenchError(f"{what}: tmetal took more than {timeout} s") from None
        if r.returncode != 0:
            message = (r.stderr.strip() or r.stdout.strip() or f"exit status {r.returncode}").splitlines()
            raise BenchError(f"{what} failed: " + " | ".join(message[-6:]))
        return r

    def write_ttir(self, name: str, text: str) -> Path:
        path = self.work / "ttir" / f"{name}.ttir"
        path.write_text(text)
        return path

    def compile(self, ttir_path: Path, layout: str = "COALESCED", num_warps: int = 4,
                min_threadgroups_per_core: int | None = None) -> Compiled:
        text = Path(ttir_path).read_text()
        key = hashlib.sha256("\0".join([self._binary_key, text, layout, str(num_warps), self.hardware,
                                        str(min_threadgroups_per_core)]).encode())
        key = key.hexdigest()[:20]
        if key in self._cache:
            return self._cache[key]
        stem = f"{Path(ttir_path).stem}.{layout.lower()}.w{num_warps}"
        if min_threadgroups_per_core is not None:
            stem += f".m{min_threadgroups_per_core}"
        cu = self.work / "cuda" / f"{stem}.cu"
        meta = self.work / "cuda" / f"{stem}.json"
        argv = ["compile", str(ttir_path), "--target", "cuda", "--layout", layout.lower(), "--num-warps",
                str(num_warps), "-o", str(cu), "--metadata", str(meta)]
        if self.hardware:
            argv += ["--hardware", self.hardware]
        if min_threadgroups_per_core is not None:  # 0 too: no minimum, not tmetal's choice
            argv += ["--min-threadgroups-per-core", str(min_threadgroups_per_core)]
        self._run(argv, f"tmetal compile --layout {layout.lower()} --num-warps {num_warps}")
        compiled = Compiled(cu.read_text(), json.loads(meta.read_text()), cu)
        if compiled.metadata.get("target") != "cuda":
            raise BenchError(f"tmetal compile wrote metadata for target '{compiled.metadata.get('target')}', not cuda")
        self._cache[key] = compiled
        return compiled

    def stages(self, specs: list[str], out_dir: Path) -> dict:
        """Runs `tmetal bench stages`: {spec: op description} (tools/cmd_bench.cpp)."""
        out_dir.mkdir(parents=True, exist_ok=True)
        argv = ["bench", "stages", "--out", str(out_dir)]
        for spec in specs:
            argv += ["--operation", spec]
        if self.hardware:
            argv += ["--hardware", self.hardware]
        self._run(argv, "tmetal bench stages")
        doc = json.loads((out_dir / "stages.json").read_text())
        return {op["operation"]: op for op in doc["ops"]}


def nvcc_check(compiled: Compiled) -> None:
    """Compiles the CUDA source to PTX with nvcc (dry runs: a syntax and type check)."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    ptx = compiled.path.with_suffix(".ptx")
    try:
        r = subprocess.run([nvcc, "-ptx", "-arch=sm_90", "-std=c++17", str(compiled.path), "-o", str(ptx)],
                           capture_output=True, text=True, timeout=300)
    except OSError as e:
        raise BenchError(f"nvcc not found: {e}") from None
    if r.returncode != 0:
        raise BenchError("nvcc -ptx failed: " + " | ".join(r.stderr.strip().splitlines()[-6:]))


# ---------------------------------------------------------------------------
# The GPU: torch for memory and timing, cupy for tmetal's kernels
# ---------------------------------------------------------------------------


def cuda_include_dirs() -> list[str]:
    """The folder holding cuda_fp16.h and cuda_bf16.h, for an NVRTC without
    builtin copies (13.0 has none), as a one-element list (empty: none found):
    TMETAL_CUDA_INCLUDE, $CUDA_HOME or $CUDA_PATH, the toolkit of nvcc,
    /usr/local/cuda, the nvidia wheels of this Python, Triton's bundled copy."""
    dirs = []
    if os.environ.get("TMETAL_CUDA_INCLUDE"):
        dirs.append(os.environ["TMETAL_CUDA_INCLUDE"])
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            dirs.append(os.path.join(os.environ[var], "include"))
    nvcc = shutil.which("nvcc")
    if nvcc:
        dirs.append(str(Path(nvcc).resolve().parent.parent / "include"))
    dirs.append("/usr/local/cuda/include")
    try:
        import site
        for root in site.getsitepackages():
            dirs += sorted(str(p.parent) for p in Path(root).glob("nvidia/*/include/cuda_fp16.h"))
    except Exception:  # noqa: BLE001
        pass
    try:
        import triton
        dirs.append(str(Path(triton.__file__).parent / "backends" / "nvidia" / "include"))
    except Exception:  # noqa: BLE001
        pass
    for d in dirs:
        if os.path.isfile(os.path.join(d, "cuda_fp16.h")) and os.path.isfile(os.path.join(d, "cuda_bf16.h")):
            return [d]
    return []


class Gpu:
    NVRTC_OPTIONS = ("--std=c++17", "--ftz=false", "--prec-div=true", "--prec-sqrt=true")

    def __init__(self, warmup_ms: float, rep_ms: float, l2_flush: str):
        import cupy
        import torch
        import triton.testing

        if not torch.cuda.is_available():
            raise SystemExit("error: torch sees no CUDA device (the GPU benchmarks need an NVIDIA GPU)")
        self.torch = torch
        self.cupy = cupy
        self.do_bench = triton.testing.do_bench
        self.warmup_ms = warmup_ms
        self.rep_ms = rep_ms
        self.device = torch.device("cuda", torch.cuda.current_device())
        torch.zeros(1, device=self.device)  # creates the primary context cupy then shares
        torch.cuda.synchronize()
        cupy.cuda.Device(self.device.index).use()
        stream = torch.cuda.current_stream().cuda_stream
        if stream:  # torch's default is the legacy stream (0), cupy's too
            self._stream = cupy.cuda.ExternalStream(stream)
            self._stream.use()
        self.l2_flush = l2_flush
        self._flush_buffers = None
        self._idle_cycles = self._cycles_for_us(self.IDLE_AFTER_FLUSH_US)
        idle = (f"; then the GPU idles {self.IDLE_AFTER_FLUSH_US} us (torch.cuda._sleep) so that the timed launch is "
                f"queued before its start event: the time is the GPU's, not the host's launch cost")
        if l2_flush == "clean":
            self.do_bench = self._events_bench
            self.timing = ("torch CUDA events, median; before each run the L2 is flushed clean: a 256 MB buffer "
                           "written, then another 256 MB buffer read" + idle)
        else:
            self.timing = "triton.testing.do_bench median; L2 flushed before each run (a 256 MB buffer written)" + idle
            try:  # Triton's driver needs libcuda and a C compiler; without them, time with torch's events
                self.do_bench(lambda: torch.zeros(1, device=self.device), warmup=1, rep=1)
                self._idle_after_triton_flush(triton.runtime.driver.active)
            except Exception as e:  # noqa: BLE001
                log(f"note: triton.testing.do_bench is unusable ({short_error(e, 200)}); timing with torch CUDA events")
                self.do_bench = self._events_bench
                self.timing = (f"torch CUDA events, median, L2 flushed before each run by writing a 256 MB buffer "
                               f"(triton.testing.do_bench unusable: {short_error(e, 200)})" + idle)
        self.include_dirs = cuda_include_dirs()
        self.use_include = False
        self.loader = "nvrtc"  # or "cupy.RawModule" when cupy's NVRTC binding is unusable
        self._functions: dict[str, object] = {}
        self._triton_launchers: dict[tuple, object] = {}
        # Kernels (by source hash) that broke the CUDA context in an earlier
        # process: never launched again. And those loaded by the current case.
        self.broken: dict[str, str] = {}
        self.loaded_in_case: list[str] = []

    def describe(self) -> dict:
        torch, cupy = self.torch, self.cupy
        props = torch.cuda.get_device_properties(self.device)
        info = {
            "device": torch.cuda.get_device_name(self.device),
            "compute_capability": f"{props.major}.{props.minor}",
            "sm_count": props.multi_processor_count,
            "device_memory_gib": round(props.total_memory / 2**30, 1),
            "torch": torch.__version__,
            "torch_cuda": torch.version.cuda,
            "cupy": cupy.__version__,
        }
        for key, fn in (("cuda_driver", lambda: cupy.cuda.runtime.driverGetVersion()),
                        ("cuda_runtime", lambda: cupy.cuda.runtime.runtimeGetVersion()),
                        ("nvrtc", lambda: cupy.cuda.nvrtc.getVersion())):
            try:
                v = fn()
                info[key] = f"{v[0]}.{v[1]}" if isinstance(v, tuple) else f"{v // 1000}.{v % 1000 // 10}"
            except Exception as e:  # noqa: BLE001
                info[key] = f"unknown ({short_error(e, 80)})"
        return info

    def load(self, compiled: Compiled):
        """The kernel of `compiled`, compiled by NVRTC with the flags tmetal's
        own CUDA runtime uses (tmetal/runtime/cuda/nvrtc_compiler.cpp) and
        loaded into torch's context through cupy; cached by source."""
        key = hashlib.sha256(compiled.source.encode()).hexdigest()
        if key in self.broken:
            raise BenchError(f"not launched: this kernel ({compiled.metadata['kernel']}) broke the CUDA context in "
                             f"case {self.broken[key]}")
        self.loaded_in_case.append(key)
        if key in self._functions:
            return self._functions[key]
        name = compiled.metadata["kernel"]
        fn = None
        if self.loader == "nvrtc":
            try:
                fn = self._load_nvrtc(compiled, name)
            except BenchError:
                raise
            except Exception as e:  # noqa: BLE001  (cupy's NVRTC binding missing or changed)
                log(f"note: NVRTC through cupy's binding failed ({short_error(e, 200)}); using cupy.RawModule, "
                    f"which adds -ftz=true")
                self.loader = "cupy.RawModule"
        if fn is None:
            fn = self._load_rawmodule(compiled, name)
        self._functions[key] = fn
        return fn

    # The type Triton's launcher passes each kernel argument as, by the NumPy
    # scalar launch_args packs it in: pointers as 64-bit integers, booleans
    # as a byte, float16 and bfloat16 as their bits (same sizes as the
    # kernel's parameters).
    TRITON_LAUNCH_TYPES = {"uint64": "u64", "int64": "i64", "int32": "i32", "uint32": "u32", "int16": "i16",
                           "uint16": "u16", "int8": "i8", "uint8": "u8", "bool": "u8", "float16": "u16",
                           "float32": "fp32"}

    def triton_launch(self, fn, grid: tuple, num_warps: int, kernel_args: tuple):
        """A launch of tmetal's kernel `fn` by the launcher Triton generates
        for its own kernels (C calling cuLaunchKernelEx on torch's current
        stream; triton.backends.nvidia.driver.CudaLauncher), so that the
        suite's two sides differ in their kernels alone. Triton's launcher
        also passes its two scratch pointers, past tmetal's parameters: the
        driver reads only the parameters the kernel declares."""
        from types import SimpleNamespace

        from triton.backends.nvidia.driver import CudaLauncher

        names = [np.asarray(a).dtype.name for a in kernel_args]
        unknown = sorted(set(names) - set(self.TRITON_LAUNCH_TYPES))
        if unknown:
            raise BenchError(f"no Triton launcher type for a kernel argument of type {', '.join(unknown)}")
        types = tuple(self.TRITON_LAUNCH_TYPES[n] for n in names)
        launcher = self._triton_launchers.get(types)
        if launcher is None:
            metadata = SimpleNamespace(num_ctas=1, global_scratch_size=0, global_scratch_align=1,
                                       profile_scratch_size=0, profile_scratch_align=1, launch_cooperative_grid=False,
                                       launch_pdl=False, tensordesc_meta=None)
            launcher = CudaLauncher(SimpleNamespace(constants={}, signature=dict(enumerate(types))), metadata)
            self._triton_launchers[types] = launcher
        values = [int(np.asarray(a).view(np.uint16)) if np.asarray(a).dtype == np.float16 else
                  float(a) if isinstance(a, np.floating) else int(a) for a in kernel_args]
        stream = self.torch.cuda.current_stream().cuda_stream
        packed_metadata = (num_warps, 1, 0)  # warps, CTAs a cluster, dynamic shared memory

        def launch():
            launcher(*grid, stream, fn.ptr, packed_metadata, None, None, None, *values)

        return launch

    def _nvrtc_options(self) -> list[str]:
        major, minor = self.torch.cuda.get_device_capability(self.device)
        options = [f"--gpu-architecture=sm_{major}{minor}", *self.NVRTC_OPTIONS]
        return options + [f"--include-path={d}" for d in self.include_dirs] if self.use_include else options

    def _load_nvrtc(self, compiled: Compiled, name: str):
        try:
            from cupy_backends.cuda.libs import nvrtc
        except ImportError:
            from cupy.cuda import nvrtc
        for attempt in range(2):
            prog = nvrtc.createProgram(compiled.source, f"{name}.cu", (), ())
            try:
                try:
                    nvrtc.compileProgram(prog, self._nvrtc_options())
                except nvrtc.NVRTCError:
                    text = nvrtc.getProgramLog(prog)
                    if (attempt == 0 and not self.use_include and self.include_dirs and
                            ("cuda_fp16" in text or "cuda_bf16" in text)):
                        self.use_include = True  # NVRTC without builtin cuda_fp16.h (13.0): from now on
                        continue
                    raise BenchError(f"NVRTC ({compiled.path.name}): " +
                                     " | ".join(text.strip().splitlines()[:8])) from None
                binary = nvrtc.getCUBIN(prog)
            finally:
                nvrtc.destroyProgram(prog)
            module = self.cupy.cuda.function.Module()
            module.load(binary)
            return module.get_function(name)
        raise BenchError(f"NVRTC ({compiled.path.name}): cuda_fp16.h not found")

    def _load_rawmodule(self, compiled: Compiled, name: str):
        for attempt in range(2):
            options = ("--std=c++17", ) + (tuple("-I" + d for d in self.include_dirs) if self.use_include else ())
            try:
                return self.cupy.RawModule(code=compiled.source, options=options).get_function(name)
            except Exception as e:  # noqa: BLE001
                text = str(e)
                if (attempt == 0 and not self.use_include and self.include_dirs and
                        ("cuda_fp16" in text or "cuda_bf16" in text)):
                    self.use_include = True
                    continue
                raise BenchError(f"NVRTC ({compiled.path.name}): " +
                                 " | ".join(text.strip().splitlines()[:8])) from None
        raise BenchError(f"NVRTC ({compiled.path.name}): cuda_fp16.h not found")

    # Without the wait, a launch that costs the host more than the flush costs
    # the GPU (Triton's launcher and cupy's take tens of microseconds) lands
    # after the start event, and the host's time counts: on an H200 a 1.9 us
    # kernel (Triton's integer_ops of the suite) read 19.5 us in one run and
    # 4.7 us in another.
    IDLE_AFTER_FLUSH_US = 100

    def _cycles_for_us(self, us: float) -> int:
        try:
            khz = self.cupy.cuda.runtime.getDeviceProperties(self.device.index)["clockRate"]
        except Exception:  # noqa: BLE001  (CUDA 13 dropped clockRate: assume 2 GHz, an upper bound for H100/H200)
            khz = 2_000_000
        return int(us * khz / 1000)

    def _idle_after_triton_flush(self, driver) -> None:
        """do_bench flushes with driver.clear_cache; the wait follows it."""
        flush = driver.clear_cache

        def flush_then_idle(cache):
            flush(cache)
            self.torch.cuda._sleep(self._idle_cycles)

        driver.clear_cache = flush_then_idle

    def _flush_l2(self) -> None:
        """Writing a buffer larger than the L2 evicts whatever the timed kernel
        could find there, but leaves up to an L2 of dirty lines whose write-back
        then lands in the timed kernel (8-9 us on an H200, 13% of a 256 MB read:
        docs/performance.md). The clean flush reads a second buffer after the
        write, so that the write-back happens here, outside the timed span."""
        torch = self.torch
        if self._flush_buffers is None:
            written = torch.empty(64 * 2**20, dtype=torch.int32, device=self.device)
            read = torch.ones(64 * 2**20, dtype=torch.int32, device=self.device) if self.l2_flush == "clean" else None
            self._flush_buffers = (written, read, torch.empty((), dtype=torch.int64, device=self.device))
        written, read, total = self._flush_buffers
        written.zero_()
        if read is not None:
            torch.sum(read, dim=0, out=total)
        torch.cuda._sleep(self._idle_cycles)

    def _events_bench(self, fn, warmup=25, rep=100, return_mode="median"):
        """do_bench's method with torch alone: estimate from 5 runs, warm up
        for `warmup` ms, then time runs for `rep` ms, each after an L2 flush
        (_flush_l2) and between its own pair of events."""
        torch = self.torch
        fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            self._flush_l2()
            fn()
        end.record()
        torch.cuda.synchronize()
        estimate = max(start.elapsed_time(end) / 5, 1e-3)
        for _ in range(max(1, int(warmup / estimate))):
            fn()
        n = max(1, int(rep / estimate))
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
        for a, b in events:
            self._flush_l2()
            a.record()
            fn()
            b.record()
        torch.cuda.synchronize()
        times = sorted(a.elapsed_time(b) for a, b in events)
        return times[len(times) // 2]

    def bench_ms(self, fn) -> float:
        return float(self.do_bench(fn, warmup=self.warmup_ms, rep=self.rep_ms, return_mode="median"))

    def synchronize(self) -> None:
        self.torch.cuda.synchronize()

    def context_ok(self) -> bool:
        try:
            self.torch.cuda.synchronize()
            self.torch.zeros(1, device=self.device).add_(1).item()
            return True
        except Exception:  # noqa: BLE001
            return False

    def copy_bandwidth_gbs(self, gib: float = 1.0) -> float:
        """Device-to-device copy of a `gib` GiB tensor, read + write bytes per second."""
        torch = self.torch
        n = int(gib * 2**30)
        src = torch.empty(n, dtype=torch.uint8, device=self.device).fill_(1)
        dst = torch.empty_like(src)
        ms = self.bench_ms(lambda: dst.copy_(src))
        del src, dst
        torch.cuda.empty_cache()
        return 2 * n / ms / 1e6

    def torch_dtype(self, name: str):
        return getattr(self.torch, name)


def scalar_arg(value, ir_dtype: str):
    """A kernel scalar as the NumPy scalar cupy packs with the parameter's size."""
    if ir_dtype == "bf16":
        import suite
        return np.uint16(suite.f32_to_bf16_bits(np.float32(value)).reshape(-1)[0])
    np_type = IR_TO_NUMPY.get(ir_dtype)
    if np_type is None:
        raise BenchError(f"no launch rule for a scalar of type {ir_dtype}")
    if ir_dtype == "i1":
        return np.bool_(bool(value))
    if np.dtype(np_type).kind == "i":
        bits = np.dtype(np_type).itemsize * 8
        v = int(value) & ((1 << bits) - 1)
        return np_type(v - (1 << bits) if v >= 1 << (bits - 1) else v)
    return np_type(value)


def launch_args(metadata: dict, manifest_args: list[dict], values: dict) -> list:
    """Kernel arguments in the order of the metadata's params (TTIR order):
    device pointers as 64-bit integers, scalars as NumPy scalars.
    `manifest_args` maps TTIR positions to names (gen_ttir's manifest)."""
    by_index = {a["ttir_index"]: a for a in manifest_args if a.get("ttir_index") is not None}
    params = metadata["params"]
    if len(params) != len(by_index):
        raise BenchError(f"the kernel takes {len(params)} parameters, the manifest lists {len(by_index)}")
    out = []
    for i, p in enumerate(params):
        a = by_index.get(i)
        if a is None:
            raise BenchError(f"no manifest argument at TTIR position {i}")
        v = values[a["name"]]
        if p["pointer"]:
            if a["kind"] != "pointer":
                raise BenchError(f"parameter {i} ({p['name']}) is a pointer, argument {a['name']} is not")
            out.append(np.uint64(v.data_ptr()))
        else:
            out.append(scalar_arg(v, p["dtype"]))
    return out


# ---------------------------------------------------------------------------
# Results: one JSON per benchmark, written after every case
# ---------------------------------------------------------------------------


class Results:
    def __init__(self, path: Path, benchmark: str, env: dict, settings: dict, resume: bool):
        self.path = path
        self.doc = {"benchmark": benchmark, "schema_version": SCHEMA_VERSION, "environment": env,
                    "settings": settings, "copy_bandwidth_gbs": None, "results": [], "summary": {}}
        if resume and path.is_file():
            try:
                old = json.loads(path.read_text())
                self.doc["results"] = old.get("results", [])
                self.doc["environment"] = old.get("environment", env)
                self.doc["environment"]["resumed"] = self.doc["environment"].get("resumed", 0) + 1
                self.doc["copy_bandwidth_gbs"] = old.get("copy_bandwidth_gbs")
                self.doc["settings"] = old.get("settings", settings)
                if old.get("broken_kernels"):
                    self.doc["broken_kernels"] = old["broken_kernels"]
                for row in self.doc["results"]:
                    if row.get("status") == "running":
                        row["status"] = "error"
                        row["error"] = ("did not finish: the process died or hung in this case (CUDA context "
                                        "lost or time limit); skipped on resume")
                        log(f"  [{row['key']}] marked as failed: the previous process did not finish it")
            except (OSError, ValueError) as e:
                log(f"warning: cannot resume from {path}: {short_error(e)}")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.save()

    def done(self, key: str) -> bool:
        return any(r.get("key") == key for r in self.doc["results"])

    def start(self, key: str, row: dict) -> dict:
        row = {"key": key, "status": "running", **row}
        self.doc["results"].append(row)
        self.save()
        return row

    def finish(self, row: dict, status: str) -> None:
        row["status"] = status
        self.save()

    def save(self) -> None:
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.doc, indent=1, default=_json_default) + "\n")
        os.replace(tmp, self.path)

    @property
    def rows(self) -> list[dict]:
        return self.doc["results"]


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, Path):
        return str(o)
    return str(o)


class Runner:
    """What every benchmark shares: options, the CLI, the GPU, the results
    file, the deadline, and failure handling."""

    def __init__(self, args, benchmark: str, settings: dict):
        self.args = args
        self.benchmark = benchmark
        self.started = time.monotonic()
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        work = Path(args.work) / benchmark if args.work else Path(tempfile.gettempdir()) / "tmetal-gpu-bench" / benchmark
        self.cli = TmetalCli(args.tmetal, work, args.hardware)
        self.work = work
        try:
            self.gpu = None if args.dry_run else Gpu(args.warmup, args.rep, args.l2_flush)
        except ImportError as e:
            raise SystemExit(f"error: {short_error(e)}: the GPU benchmarks need torch (CUDA), cupy, triton and "
                             f"numpy (--dry-run needs only triton)") from None
        if self.gpu is not None and not args.hardware:
            # Plan and compile for the GPU measured on, when it has a profile.
            name = self.gpu.torch.cuda.get_device_name(self.gpu.device).upper()
            for profile in ("H200", "H100"):
                if profile in name:
                    self.cli.hardware = args.hardware = profile.lower()
                    break
        settings = {**settings, "warmup_ms": args.warmup, "rep_ms": args.rep, "dry_run": bool(args.dry_run),
                    "timing": self.gpu.timing if self.gpu is not None else "none (dry run)",
                    "hardware_profile": self.cli.hardware}
        json_path = Path(args.json) if args.json else self.out / f"{benchmark}.json"
        self.results = Results(json_path, benchmark, environment(args, self.gpu), settings, args.resume)
        log(f"== {benchmark}: {self.results.doc['environment'].get('device')}; results in {json_path}")
        if self.gpu is not None:
            self.gpu.broken = dict(self.results.doc.get("broken_kernels", {}))
        if self.gpu is not None and self.results.doc["copy_bandwidth_gbs"] is None:
            try:
                bw = self.gpu.copy_bandwidth_gbs()
                self.results.doc["copy_bandwidth_gbs"] = round(bw, 1)
                self.results.save()
                log(f"   device-to-device copy of 1 GiB: {bw:.0f} GB/s (read + write)")
            except Exception as e:  # noqa: BLE001
                log(f"   copy bandwidth: FAILED: {short_error(e)}")

    @property
    def copy_gbs(self):
        return self.results.doc["copy_bandwidth_gbs"]

    def out_of_time(self) -> bool:
        return self.args.deadline is not None and time.monotonic() - self.started > self.args.deadline

    def case(self, key: str, row: dict, body) -> None:
        """Runs body(row) for one case unless done before (--resume) or out of
        time; records its status; ends the process when the context is lost."""
        if self.results.done(key):
            return
        if self.out_of_time():
            row = self.results.start(key, row)
            row["error"] = "skipped: time budget spent"
            self.results.finish(row, "skipped")
            log(f"[{key}] skipped (time budget)")
            return
        row = self.results.start(key, row)
        if self.gpu is not None:
            self.gpu.loaded_in_case = []
        t0 = time.monotonic()
        try:
            status = body(row) or "ok"
        except ContextLost as e:
            row["error"] = short_error(e)
            self.results.finish(row, "error")
            self.fatal(key, e.blame_tmetal)
        except Exception as e:  # noqa: BLE001
            row["error"] = short_error(e)
            if self.args.verbose:
                traceback.print_exc()
            status = "error"
            if self.gpu is not None and not self.gpu.context_ok():
                self.results.finish(row, status)
                self.fatal(key, True)
        row["wall_s"] = round(time.monotonic() - t0, 2)
        self.results.finish(row, status)
        log(f"[{key}] {status}: {self.describe(row)}")

    def fatal(self, key: str, blame_tmetal: bool) -> None:
        """Ends the process after a lost context; with `blame_tmetal`, the
        tmetal kernels of the case are not launched again after a resume."""
        if blame_tmetal and self.gpu is not None:
            broken = self.results.doc.setdefault("broken_kernels", {})
            for h in self.gpu.loaded_in_case:
                broken.setdefault(h, key)
        log(f"[{key}] the CUDA context is lost; exiting with status {EXIT_CONTEXT_LOST} "
            f"(`gpu_bench.py all` resumes in a fresh process)")
        self.finish_run()
        sys.exit(EXIT_CONTEXT_LOST)

    def describe(self, row: dict) -> str:
        return row.get("error") or row.get("line", "")

    def sync_or_lost(self) -> None:
        """Synchronizes; a failure here means the kernel broke the context."""
        try:
            self.gpu.synchronize()
        except Exception as e:  # noqa: BLE001
            raise ContextLost(f"kernel failed: {short_error(e)}") from None

    def finish_run(self) -> None:
        if self.gpu is not None:
            self.results.doc["environment"]["kernel_loader"] = (
                f"{self.gpu.loader}: " + (" ".join(self.gpu._nvrtc_options()) if self.gpu.loader == "nvrtc" else
                                          "--std=c++17 -ftz=true (cupy's default)"))
        try:
            self.summarize()
        except Exception as e:  # noqa: BLE001
            log(f"summary: FAILED: {short_error(e)}")
        self.results.save()
        if self.args.dry_run and not any(r.get("status") in ("ok", "mismatch") and
                                         any(k.endswith("_us") for k in r) for r in self.results.rows):
            return
        png = Path(self.args.output) if getattr(self.args, "output", None) else self.out / f"{self.benchmark}.png"
        try:
            self.plot(png)
            if png.exists():
                log(f"plot: {png}")
        except Exception as e:  # noqa: BLE001
            log(f"plot: FAILED: {short_error(e)}")

    def summarize(self) -> None:
        pass

    def plot(self, png: Path) -> None:
        pass


def gbs(nbytes: int, us: float | None):
    return None if not us else round(nbytes / us / 1e3, 1)


def pct(value, copy_gbs):
    return None if value is None or not copy_gbs else round(100.0 * value / copy_gbs, 1)


def ratio(a, b):
    return None if not a or not b else round(a / b, 3)


# ---------------------------------------------------------------------------
# TTIR from Triton (scripts/gen_ttir.py's helpers)
# ---------------------------------------------------------------------------


def generate_ttir(case) -> tuple[str, dict]:
    """(TTIR text, manifest entry) of a suite-style Case, as scripts/gen_ttir.py
    makes the corpus: Triton 3.6's own frontend and TTIR passes, no GPU."""
    import gen_ttir

    debug_text, _nodebug, entry = gen_ttir.compile_to_ttir(case)
    return debug_text, entry


# ---------------------------------------------------------------------------
# layouts
# ---------------------------------------------------------------------------


class LayoutsBench(Runner):

    def run(self) -> None:
        import bench_kernels

        a = self.args
        ttir_cache: dict[tuple, tuple] = {}
        for dtype in a.dtype:
            for shape in a.sizes:
                if len(shape) != 2:
                    log(f"skipping size {shape_text(shape)}: the layout benchmark takes MxN")
                    continue
                m, n = shape
                mb = m * n * np.dtype(dtype).itemsize / 1e6

                def ttir(m=m, n=n, dtype=dtype):
                    key = (dtype, m, n)
                    if key not in ttir_cache:
                        case = bench_kernels.row_sum_case(m, n, dtype, a.block_m, a.block_n, a.num_warps)
                        text, entry = generate_ttir(case)
                        ttir_cache[key] = (self.cli.write_ttir(f"row_sum_{dtype}_{m}x{n}", text), entry)
                    return ttir_cache[key]

                state = {}
                for layout in a.layouts:
                    row = {"dtype": dtype, "size": shape_text(shape), "rows": m, "cols": n, "layout": layout,
                           "mbytes": round(mb, 1)}
                    self.case(f"{dtype}/{shape_text(shape)}/{layout}", row,
                              lambda row, layout=layout: self.one_layout(row, ttir, state, m, n, dtype, layout))
                if not a.dry_run and not a.no_torch:
                    row = {"dtype": dtype, "size": shape_text(shape), "rows": m, "cols": n, "layout": "torch.sum",
                           "mbytes": round(mb, 1)}
                    self.case(f"{dtype}/{shape_text(shape)}/torch.sum", row,
                              lambda row: self.one_torch(row, state, m, n, dtype))
                state.clear()
                if self.gpu is not None:
                    self.gpu.torch.cuda.empty_cache()
        self.finish_run()

    def tensors(self, state, m, n, dtype):
        """The input, the output and the reference of one size, shared by its layouts."""
        if "x" not in state:
            if m * n >= 2**31:
                raise BenchError("the benchmark kernel uses int32 offsets: M*N must stay below 2**31")
            torch = self.gpu.torch
            gen = torch.Generator(device=self.gpu.device).manual_seed(0)
            x = torch.randn((m, n), generator=gen, device=self.gpu.device, dtype=self.gpu.torch_dtype(dtype))
            state["x"] = x
            state["out"] = torch.empty(m, device=self.gpu.device, dtype=torch.float32)
            state["ref"] = torch.sum(x, dim=1, dtype=torch.float32)
            state["tol"] = 1e-5 * torch.sum(x.abs(), dim=1, dtype=torch.float32) + 1e-5
        return state["x"], state["out"], state["ref"], state["tol"]

    def nbytes(self, m, n, dtype):
        return m * n * np.dtype(dtype).itemsize + m * 4

    def one_layout(self, row, ttir, state, m, n, dtype, layout):
        ttir_path, entry = ttir()
        compiled = self.cli.compile(ttir_path, layout, self.args.num_warps)
        row["threads"] = compiled.threads
        row["threadgroup_memory_bytes"] = compiled.metadata.get("threadgroup_memory_bytes")
        row["policy"] = compiled.metadata.get("layouts", {}).get("policy")
        grid = (-(-m // self.args.block_m), 1, 1)
        if self.args.dry_run:
            if self.args.nvcc_check:
                nvcc_check(compiled)
            row["line"] = f"{compiled.path.name}: {len(compiled.source)} bytes, {compiled.threads} threads"
            return "ok"
        x, out, ref, tol = self.tensors(state, m, n, dtype)
        fn = self.gpu.load(compiled)
        args = tuple(launch_args(compiled.metadata, entry["args"],
                                 {"x_ptr": x, "out_ptr": out, "n_rows": m, "n_cols": n, "stride_row": n}))
        block = (compiled.threads, 1, 1)

        def launch():
            fn(grid, block, args)

        out.fill_(float("nan"))
        launch()
        self.sync_or_lost()
        err = (out - ref).abs()
        bad = int((~(err <= tol)).sum().item())
        row["correct"] = bad == 0
        row["check"] = "ok" if bad == 0 else f"{bad} of {m} row sums differ; max error {err.max().item():.3g}"
        us = self.gpu.bench_ms(launch) * 1e3
        self.record(row, us, m, n, dtype)
        return "ok" if bad == 0 else "mismatch"

    def one_torch(self, row, state, m, n, dtype):
        x, _out, _ref, _tol = self.tensors(state, m, n, dtype)
        torch = self.gpu.torch
        us = self.gpu.bench_ms(lambda: torch.sum(x, dim=1, dtype=torch.float32)) * 1e3
        row["correct"] = True
        row["check"] = "reference"
        self.record(row, us, m, n, dtype)
        return "ok"

    def record(self, row, us, m, n, dtype):
        row["bytes"] = self.nbytes(m, n, dtype)
        row["time_us"] = round(us, 2)
        row["gbs"] = gbs(row["bytes"], us)
        row["pct_copy"] = pct(row["gbs"], self.copy_gbs)
        row["line"] = f"{us:9.1f} us {row['gbs']:8.1f} GB/s" + (
            f" ({row['pct_copy']:.0f}% of copy)" if row["pct_copy"] is not None else "") + (
            "" if row.get("correct", True) else f"  MISMATCH: {row['check']}")

    def summarize(self) -> None:
        """Per dtype and size: COALESCED against the best of the other
        policies (DEFAULT resolves to COALESCED, so it is not an 'other')."""
        summary = []
        by_group: dict[tuple, dict] = {}
        for r in self.results.rows:
            if r.get("time_us") and r.get("correct", True):
                by_group.setdefault((r["dtype"], r["size"]), {})[r["layout"]] = r["time_us"]
        for (dtype, size), times in by_group.items():
            others = {k: v for k, v in times.items() if k not in ("COALESCED", "DEFAULT", "torch.sum")}
            entry = {"dtype": dtype, "size": size, "coalesced_us": times.get("COALESCED"),
                     "torch_us": times.get("torch.sum")}
            if others:
                best = min(others, key=others.get)
                entry.update(best_other_layout=best, best_other_us=others[best])
                entry["speedup_vs_best_other"] = ratio(others[best], times.get("COALESCED"))
            entry["speedup_vs_torch"] = ratio(times.get("torch.sum"), times.get("COALESCED"))
            summary.append(entry)
        self.results.doc["summary"] = {"coalesced_vs_others": summary}

    def plot(self, png: Path) -> None:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = [r for r in self.results.rows if r.get("gbs")]
        dtypes = list(dict.fromkeys(r["dtype"] for r in rows))
        if not dtypes:
            raise BenchError("nothing measured")
        fig, axes = plt.subplots(len(dtypes), 1, figsize=(12, 4.5 * len(dtypes)), squeeze=False)
        series = list(self.args.layouts) + ["torch.sum"]
        for ax, dtype in zip(axes[:, 0], dtypes):
            sizes = [s for s in dict.fromkeys(r["size"] for r in rows if r["dtype"] == dtype)]
            width = 0.8 / len(series)
            for k, layout in enumerate(series):
                values = []
                for s in sizes:
                    match = [r["gbs"] for r in rows if r["dtype"] == dtype and r["size"] == s and r["layout"] == layout]
                    values.append(match[0] if match else 0)
                ax.bar([i + k * width for i in range(len(sizes))], values, width, label=layout)
            if self.copy_gbs:
                ax.axhline(self.copy_gbs, color="gray", linestyle="--", label="device copy")
            ax.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(sizes))])
            ax.set_xticklabels(sizes)
            ax.set_ylabel("GB/s")
            ax.set_title(f"row sum, {dtype}: GB/s per layout policy (higher is better)")
            ax.legend(fontsize=8, ncol=3)
        env = self.results.doc["environment"]
        fig.suptitle(f"tmetal layouts on {env.get('device')} ({env.get('date', '')[:10]}, {env.get('commit')})")
        fig.tight_layout()
        fig.savefig(png, dpi=120)
        plt.close(fig)


# ---------------------------------------------------------------------------
# graph
# ---------------------------------------------------------------------------


class GraphBench(Runner):
    BUFFERS = ("input", "partial_values", "partial_indices", "output")

    def run(self) -> None:
        a = self.args
        cases = graph_cases(a.shapes, a.ops)
        for dtype in a.dtypes:
            specs = [operation_spec(op, shape, axes, dtype) for op, shape, axes in cases]
            try:
                ops = self.cli.stages(specs, self.work / "stages" / dtype)
                stage_error = None
            except BenchError as e:
                ops, stage_error = {}, str(e)
            for (op, shape, axes), spec in zip(cases, specs):
                row = {"op": op, "dtype": dtype, "shape": list(shape), "axes": list(axes), "operation": spec}
                key = f"{dtype}/{op}/{shape_text(shape)}/axes{','.join(map(str, axes))}"
                self.case(key, row, lambda row, spec=spec, dtype=dtype: self.one(
                    row, ops.get(spec) or {"error": stage_error or "missing from stages.json"}, dtype))
                if self.gpu is not None:
                    self.gpu.torch.cuda.empty_cache()
        self.finish_run()

    def one(self, row, desc, dtype):
        if desc.get("error"):
            raise BenchError(desc["error"])
        plan = desc.get("plan", {})
        row["plan_kind"] = plan.get("kind")
        stage_dir = self.work / "stages" / dtype
        compiled = []
        for s in desc["stages"]:
            c = self.cli.compile(stage_dir / s["ttir"], "COALESCED", int(s["num_warps"]),
                                 int(s.get("min_threadgroups_per_core", 0)))
            compiled.append((s, c))
        row["stages"] = [{"name": s["name"], "threadgroups": s["threadgroups"], "threads": c.threads}
                         for s, c in compiled]
        stages_text = " + ".join(f"{s['threadgroups']}x{c.threads}" for s, c in compiled)
        if self.args.dry_run:
            if self.args.nvcc_check:
                for _s, c in compiled:
                    nvcc_check(c)
            row["line"] = f"{len(compiled)} stage(s): {stages_text} threads"
            return "ok"
        torch = self.gpu.torch
        dev = self.gpu.device
        shape, axes, op = tuple(row["shape"]), tuple(row["axes"]), row["op"]
        gen = torch.Generator(device=dev).manual_seed(0)
        x = torch.randn(shape, generator=gen, device=dev, dtype=self.gpu.torch_dtype(dtype))
        out_n = int(desc["output"]["elements"])
        part_n = max(1, int(desc["partials"]["elements"]))
        buffers = {
            "input": x,
            "partial_values": torch.empty(part_n, device=dev,
                                          dtype=self.gpu.torch_dtype(IR_TO_TORCH[desc["partials"]["dtype"]])),
            "partial_indices": torch.empty(part_n, device=dev, dtype=torch.int32),
            "output": torch.empty(max(1, out_n), device=dev,
                                  dtype=self.gpu.torch_dtype(IR_TO_TORCH[desc["output"]["dtype"]])),
        }
        launches = []
        for s, c in compiled:
            params = c.metadata["params"]
            if len(params) != len(s["buffers"]) + len(s["scalars"]):
                raise BenchError(f"stage {s['name']}: the kernel takes {len(params)} parameters, stages.json lists "
                                 f"{len(s['buffers'])} buffers and {len(s['scalars'])} scalars")
            args = []
            for i, b in enumerate(s["buffers"]):
                if b not in buffers or not params[i]["pointer"]:
                    raise BenchError(f"stage {s['name']}: cannot bind buffer '{b}' to parameter {i}")
                args.append(np.uint64(buffers[b].data_ptr()))
            for j, sc in enumerate(s["scalars"]):
                args.append(scalar_arg(sc["value"], params[len(s["buffers"]) + j]["dtype"]))
            launches.append((self.gpu.load(c), (int(s["threadgroups"]), 1, 1), (c.threads, 1, 1), tuple(args)))

        def run_tmetal():
            for fn, grid, block, args in launches:
                fn(grid, block, args)

        ref_fn = {"tt.sum": lambda: torch.sum(x, dim=axes), "tt.max": lambda: torch.amax(x, dim=axes),
                  "tt.argmax": lambda: torch.argmax(x, dim=axes[0])}.get(op)
        if ref_fn is None:
            raise BenchError(f"no torch baseline for {op}")
        buffers["output"].zero_()
        run_tmetal()
        self.sync_or_lost()
        ref = ref_fn()
        got = buffers["output"][:out_n].view(ref.shape) if ref.numel() == out_n else None
        if got is None:
            raise BenchError(f"tmetal wrote {out_n} outputs, torch {ref.numel()}")
        ok, check = self.check(op, x, axes, got, ref)
        row["correct"] = ok
        row["check"] = check
        t_us = self.gpu.bench_ms(run_tmetal) * 1e3
        r_us = self.gpu.bench_ms(ref_fn) * 1e3
        nbytes = x.numel() * x.element_size() + out_n * buffers["output"].element_size()
        row.update(bytes=nbytes, tmetal_us=round(t_us, 2), torch_us=round(r_us, 2), tmetal_gbs=gbs(nbytes, t_us),
                   torch_gbs=gbs(nbytes, r_us))
        row["tmetal_pct_copy"] = pct(row["tmetal_gbs"], self.copy_gbs)
        row["torch_pct_copy"] = pct(row["torch_gbs"], self.copy_gbs)
        row["speedup_vs_torch"] = ratio(r_us, t_us)
        row["line"] = (f"{stages_text} threads: tmetal {t_us:.1f} us {row['tmetal_gbs']:.0f} GB/s, torch {r_us:.1f} us "
                       f"{row['torch_gbs']:.0f} GB/s, x{row['speedup_vs_torch']:.2f}; {check}")
        return "ok" if ok else "mismatch"

    def check(self, op, x, axes, got, ref):
        torch = self.gpu.torch
        if op == "tt.max":
            same = torch.equal(got, ref)
            return same, "ok" if same else f"{int((got != ref).sum())} of {ref.numel()} maxima differ"
        if op == "tt.argmax":
            axis = axes[0]
            idx = got.long()
            in_range = bool(((idx >= 0) & (idx < x.shape[axis])).all())
            if not in_range:
                return False, "indices out of range"
            picked = torch.gather(x, axis, idx.unsqueeze(axis)).squeeze(axis)
            best = torch.amax(x, dim=axis)
            bad = int((picked != best).sum())
            same_index = float((idx == ref).float().mean())
            return bad == 0, ("ok" if bad == 0 else f"{bad} of {ref.numel()} indices do not point at a maximum") + (
                "" if same_index == 1.0 else f" (same index as torch for {100 * same_index:.1f}%: ties)")
        # sums: accumulation order differs; allow 1e-5 of the absolute sum plus the output's rounding
        abs_sum = torch.sum(x.abs(), dim=axes, dtype=torch.float32)
        rounding = 2e-3 if x.dtype in (torch.float16, torch.bfloat16) else 1e-6
        if x.dtype == torch.bfloat16:
            rounding = 1.6e-2
        err = (got.float() - ref.float()).abs()
        tol = 1e-5 * abs_sum + rounding * ref.float().abs() + 1e-6
        bad = int((~(err <= tol)).sum())
        return bad == 0, "ok" if bad == 0 else f"{bad} of {ref.numel()} sums differ; max error {err.max().item():.3g}"

    def summarize(self) -> None:
        rows = [r for r in self.results.rows if r.get("speedup_vs_torch") and r.get("correct")]
        if not rows:
            return
        speedups = [r["speedup_vs_torch"] for r in rows]
        self.results.doc["summary"] = {
            "cases": len(self.results.rows),
            "measured": len(rows),
            "correct": sum(1 for r in self.results.rows if r.get("correct")),
            "geomean_speedup_vs_torch": round(math.exp(sum(math.log(s) for s in speedups) / len(speedups)), 3),
            "slower_than_torch": sum(1 for s in speedups if s < 1.0),
        }

    def plot(self, png: Path) -> None:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = [r for r in self.results.rows if r.get("tmetal_gbs")]
        dtypes = list(dict.fromkeys(r["dtype"] for r in rows))
        if not dtypes:
            raise BenchError("nothing measured")
        per = max(len([r for r in rows if r["dtype"] == d]) for d in dtypes)
        fig, axes = plt.subplots(1, len(dtypes), figsize=(9 * len(dtypes), 1.5 + 0.28 * per), squeeze=False)
        for ax, dtype in zip(axes[0], dtypes):
            rs = [r for r in rows if r["dtype"] == dtype]
            labels = [f"{r['op'][3:]} {shape_text(r['shape'])} ax{','.join(map(str, r['axes']))}" +
                      ("" if r.get("correct") else " (WRONG)") for r in rs]
            ys = np.arange(len(rs))
            ax.barh(ys - 0.2, [r["tmetal_gbs"] for r in rs], 0.4, label="tmetal (CUDA target)")
            ax.barh(ys + 0.2, [r.get("torch_gbs") or 0 for r in rs], 0.4, label="torch")
            if self.copy_gbs:
                ax.axvline(self.copy_gbs, color="gray", linestyle="--", label="device copy")
            ax.set_yticks(ys)
            ax.set_yticklabels(labels, fontsize=7)
            ax.invert_yaxis()
            ax.set_xlabel("GB/s (input + output bytes)")
            ax.set_title(f"graph reductions, {dtype}")
            ax.legend(fontsize=8, loc="lower right")
        env = self.results.doc["environment"]
        fig.suptitle(f"tmetal planner stage kernels vs torch on {env.get('device')} "
                     f"({env.get('date', '')[:10]}, {env.get('commit')})")
        fig.tight_layout()
        fig.savefig(png, dpi=110)
        plt.close(fig)


# ---------------------------------------------------------------------------
# suite
# ---------------------------------------------------------------------------


class FlushBench(Runner):
    """What the L2 flush before each timed run costs the run: torch.sum and a
    device-to-device copy of several sizes, timed after each kind of flush."""

    def run(self) -> None:
        torch = self.gpu.torch if self.gpu is not None else None
        for mb in self.args.megabytes:
            for what in ("torch.sum", "copy"):
                for method in ("dirty", "clean"):
                    key = f"{mb}MB/{what}/{method}"
                    row = {"megabytes": mb, "what": what, "l2_flush": method}
                    self.case(key, row, lambda row, mb=mb, what=what, method=method:
                              self.one(row, torch, mb, what, method))
        self.finish_run()

    def one(self, row, torch, mb, what, method):
        if self.gpu is None:
            return "skipped"
        x = torch.ones(mb * 2**20 // 4, dtype=torch.float32, device=self.gpu.device)
        fn = (lambda: torch.sum(x)) if what == "torch.sum" else (lambda y=torch.empty_like(x): y.copy_(x))
        self.gpu.l2_flush, self.gpu._flush_buffers = method, None
        us = 1e3 * self.gpu._events_bench(fn, warmup=self.args.warmup, rep=self.args.rep)
        moved = x.numel() * 4 * (2 if what == "copy" else 1)
        row.update(time_us=round(us, 2), gbs=gbs(moved, us), pct_copy=pct(gbs(moved, us), self.copy_gbs))
        row["line"] = f"{what} of {mb} MB after a {method} flush: {us:.1f} us, {row['gbs']:.0f} GB/s"
        del x
        torch.cuda.empty_cache()


class SuiteBench(Runner):

    def run(self) -> None:
        import bench_kernels

        a = self.args
        manifest = json.loads((REPO_ROOT / "tests" / "ttir" / "MANIFEST.json").read_text())
        items = []  # the larger configurations first: their timings are the ones that mean something
        if not a.no_large:
            for config in bench_kernels.larger_cases():
                items.append(("large", None, config))
        if not a.no_small:
            for case in bench_kernels.suite_cases():
                items.append(("suite", case, None))
        if a.cases:
            wanted = set(a.cases)
            items = [i for i in items if (i[1].name if i[1] else i[2].name) in wanted]
        if a.quick:
            items = [i for i in items if i[0] == "suite"][:6]
        for source, case, config in items:
            name = case.name if case else config.name
            row = {"case": name, "source": source}
            self.case(name, row, lambda row, case=case, config=config: self.one(row, case, config, manifest))
            if self.gpu is not None:
                self.gpu.torch.cuda.empty_cache()
        self.finish_run()

    def one(self, row, case, config, manifest):
        # TTIR: the committed corpus for suite cases, generated here for the larger ones.
        if case is not None:
            path = REPO_ROOT / "tests" / "ttir" / f"{case.name}.ttir"
            if case.name not in manifest or not path.is_file():
                raise BenchError(f"{case.name} is not in tests/ttir (run scripts/gen_ttir.py)")
            ttir_path, entry = path, manifest[case.name]
        else:
            text, entry = generate_ttir(config.ttir_case())
            ttir_path = self.cli.write_ttir(config.name, text)
            case = config.case()
        row.update(grid=list(case.grid), num_warps=case.num_warps)
        tmetal_error = None
        compiled = None
        try:
            compiled = self.cli.compile(ttir_path, "COALESCED", case.num_warps)
            row["threads"] = compiled.threads
        except BenchError as e:
            tmetal_error = str(e)
        if self.args.dry_run:
            if tmetal_error:
                raise BenchError(tmetal_error)
            if self.args.nvcc_check:
                nvcc_check(compiled)
            row["line"] = f"{compiled.path.name}: {len(compiled.source)} bytes"
            return "ok"

        args = case.args()
        expected = case.expected(args)
        nbytes = sum(v.nbytes for v in args.values() if isinstance(v, np.ndarray))
        row["bytes"] = int(nbytes)
        dtypes = {a["name"]: a["dtype"] for a in entry["args"]}
        status = "ok"

        launches = {}
        if compiled is not None:
            try:
                t = self.side_tmetal(case, compiled, entry, args, expected, dtypes)
                launches["tmetal"] = t[0]
                row.update(tmetal_correct=t[1], tmetal_check=t[2])
            except ContextLost:
                raise
            except Exception as e:  # noqa: BLE001
                tmetal_error = short_error(e)
                if not self.gpu.context_ok():
                    raise ContextLost(tmetal_error) from None
        if tmetal_error:
            row["tmetal_error"] = tmetal_error
        try:
            t = self.side_triton(case, args, expected, dtypes)
            launches["triton"] = t[0]
            row.update(triton_correct=t[1], triton_check=t[2])
        except ContextLost:
            raise
        except Exception as e:  # noqa: BLE001
            row["triton_error"] = short_error(e)
            if not self.gpu.context_ok():
                raise ContextLost(row["triton_error"], blame_tmetal=False) from None
        self.time_sides(row, launches)
        row["tmetal_gbs"] = gbs(nbytes, row.get("tmetal_us"))
        row["triton_gbs"] = gbs(nbytes, row.get("triton_us"))
        row["tmetal_pct_copy"] = pct(row["tmetal_gbs"], self.copy_gbs)
        row["triton_pct_copy"] = pct(row["triton_gbs"], self.copy_gbs)
        row["speedup_vs_triton"] = ratio(row.get("triton_us"), row.get("tmetal_us"))
        parts = []
        for side in ("tmetal", "triton"):
            if row.get(f"{side}_error"):
                parts.append(f"{side} FAILED: {row[side + '_error']}")
            elif row.get(f"{side}_us") is not None:
                parts.append(f"{side} {row[side + '_us']:.1f} us" +
                             ("" if row.get(f"{side}_correct") else f" MISMATCH ({row[side + '_check']})"))
        if row["speedup_vs_triton"]:
            parts.append(f"x{row['speedup_vs_triton']:.2f}")
        row["line"] = ", ".join(parts)
        if row.get("tmetal_error"):
            status = "error"
        elif not row.get("tmetal_correct"):
            status = "mismatch"
        return status

    def device_arrays(self, case, args, dtypes):
        """{name: (storage tensor, tensor as Triton should see it)} for the array arguments."""
        torch = self.gpu.torch
        out = {}
        for name, v in args.items():
            if not isinstance(v, np.ndarray):
                continue
            a = np.ascontiguousarray(v)
            if a.dtype in SIGNED_VIEW:
                a = a.view(SIGNED_VIEW[a.dtype])
            t = torch.from_numpy(a.copy()).to(self.gpu.device)
            shown = t
            view = TRITON_VIEW.get(dtypes.get(name, ""))
            if view and hasattr(torch, view):
                try:
                    shown = t.view(getattr(torch, view))
                except Exception:  # noqa: BLE001
                    shown = t
            out[name] = (t, shown)
        return out

    def check_outputs(self, case, args, device, expected):
        import suite

        problems = []
        for name in case.outputs:
            host = device[name][0].cpu().numpy().view(args[name].dtype).reshape(args[name].shape)
            problem = suite.compare(case, name, host, expected[name])
            if problem:
                problems.append(problem)
        return not problems, "ok" if not problems else "; ".join(problems)[:600]

    def side_tmetal(self, case, compiled, entry, args, expected, dtypes):
        fn = self.gpu.load(compiled)
        device = self.device_arrays(case, args, dtypes)
        values = {k: (device[k][0] if k in device else v) for k, v in args.items()}
        kernel_args = tuple(launch_args(compiled.metadata, entry["args"], values))
        grid = tuple(list(case.grid) + [1] * (3 - len(case.grid)))
        block = (compiled.threads, 1, 1)
        if self.args.launcher == "triton":
            launch = self.gpu.triton_launch(fn, grid, compiled.threads // 32, kernel_args)
        else:
            def launch():
                fn(grid, block, kernel_args)

        launch()
        self.sync_or_lost()
        ok, check = self.check_outputs(case, args, device, expected)
        return launch, ok, check

    def side_triton(self, case, args, expected, dtypes):
        device = self.device_arrays(case, args, dtypes)
        kwargs = {k: (device[k][1] if k in device else v) for k, v in args.items()}
        kernel = case.kernel[case.grid]

        def launch():
            kernel(**kwargs, **case.constexprs, num_warps=case.num_warps)

        launch()
        self.gpu.synchronize()
        ok, check = self.check_outputs(case, args, device, expected)
        return launch, ok, check

    def time_sides(self, row, launches) -> None:
        """Times each side's launch --rounds times, the sides taking turns to go
        first (so that neither always runs on a GPU the other has just warmed
        or throttled); the recorded time is each side's median over rounds."""
        times = {side: [] for side in launches}
        for r in range(self.args.rounds):
            order = [side for side in times if f"{side}_error" not in row]
            for side in (order if r % 2 == 0 else order[::-1]):
                try:
                    times[side].append(self.gpu.bench_ms(launches[side]) * 1e3)
                except ContextLost:
                    raise
                except Exception as e:  # noqa: BLE001
                    row[f"{side}_error"] = short_error(e)
                    if not self.gpu.context_ok():
                        raise ContextLost(row[f"{side}_error"], blame_tmetal=side == "tmetal") from None
        for side, ts in times.items():
            if not ts or f"{side}_error" in row:
                continue
            row[f"{side}_us"] = round(float(np.median(ts)), 2)
            if len(ts) > 1:
                row[f"{side}_us_rounds"] = [round(t, 2) for t in ts]

    def summarize(self) -> None:
        rows = [r for r in self.results.rows if r.get("speedup_vs_triton") and r.get("tmetal_correct")]
        if not rows:
            return
        summary = {"cases": len(self.results.rows),
                   "tmetal_correct": sum(1 for r in self.results.rows if r.get("tmetal_correct"))}
        for source in ("suite", "large"):
            s = [r["speedup_vs_triton"] for r in rows if r["source"] == source]
            if s:
                summary[f"geomean_speedup_vs_triton_{source}"] = round(math.exp(sum(map(math.log, s)) / len(s)), 3)
        self.results.doc["summary"] = summary

    def plot(self, png: Path) -> None:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = [r for r in self.results.rows if r.get("speedup_vs_triton")]
        if not rows:
            raise BenchError("nothing measured")
        rows.sort(key=lambda r: (r["source"] != "large", r["case"]))
        fig, ax = plt.subplots(figsize=(10, 1.5 + 0.26 * len(rows)))
        ys = np.arange(len(rows))
        colors = ["tab:blue" if r["source"] == "large" else "tab:gray" for r in rows]
        ax.barh(ys, [r["speedup_vs_triton"] for r in rows], color=colors)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yticks(ys)
        ax.set_yticklabels([r["case"] + ("" if r.get("tmetal_correct") else " (WRONG)") for r in rows], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("Triton time / tmetal time (> 1: tmetal's CUDA target is faster); blue: larger configs")
        env = self.results.doc["environment"]
        ax.set_title(f"kernel suite: tmetal CUDA target vs Triton on {env.get('device')} "
                     f"({env.get('date', '')[:10]}, {env.get('commit')})", fontsize=9)
        fig.tight_layout()
        fig.savefig(png, dpi=110)
        plt.close(fig)


# ---------------------------------------------------------------------------
# all
# ---------------------------------------------------------------------------


def run_all(args) -> int:
    """The three benchmarks, each in its own process with its share of
    --budget (what one leaves unused goes to the next). A process that lost
    its CUDA context (exit status 3) is started again with --resume; one that
    runs past its time is killed, and a GPU-less --resume run records its
    unfinished case as failed and the rest as skipped. The whole stays within
    --budget plus about a minute and a half."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    script = str(Path(__file__).resolve())
    common = ["--tmetal", str(args.tmetal), "--out", str(out), "--warmup", str(args.warmup), "--rep", str(args.rep)]
    for flag, value in (("--hardware", args.hardware), ("--work", args.work), ("--l2-flush", args.l2_flush)):
        if value:
            common += [flag, str(value)]
    for flag, on in (("--dry-run", args.dry_run), ("--nvcc-check", args.nvcc_check), ("--quick", args.quick),
                     ("--verbose", args.verbose)):
        if on:
            common.append(flag)
    extra = {"layouts": ["--dtype", "float32,float16"], "graph": [], "suite": []}
    begin = time.monotonic()
    hard_end = begin + args.budget + 60
    carry = 0.0
    codes = {}
    for name, share in BUDGET_SHARES:
        end = time.monotonic() + args.budget * share + carry
        restarts = 0
        resume = False
        while True:
            remaining = end - time.monotonic()
            cmd = [sys.executable, script, name] + common + extra[name] + (["--resume"] if resume else [])
            # Leave time for the plot; past the deadline a process only records and plots.
            cmd += ["--deadline", f"{max(0.0, remaining - min(15.0, 0.25 * remaining)):.0f}"]
            log(f"== all: {name} ({remaining:.0f} s left of its budget){' resuming' if resume else ''}")
            try:
                rc = subprocess.run(cmd, timeout=max(20.0, min(remaining + 45, hard_end - time.monotonic()))).returncode
            except subprocess.TimeoutExpired:
                log(f"== all: {name} ran past its time and was stopped; recording what it finished")
                try:
                    subprocess.run(cmd + ["--resume", "--deadline", "0", "--dry-run"], timeout=60)
                except subprocess.SubprocessError:
                    pass
                rc = "timeout"
            if rc == EXIT_CONTEXT_LOST and restarts < 6:
                restarts += 1
                resume = True
                continue
            break
        codes[name] = rc
        carry = max(0.0, end - time.monotonic())
    log(f"== all: finished in {time.monotonic() - begin:.0f} s; exit statuses {codes}")
    try:
        import summarize
        (out / "summary.md").write_text(summarize.render_paths([out]))
        log(f"== tables in {out / 'summary.md'}; in short:\n{summarize.headline_paths([out])}")
    except Exception as e:  # noqa: BLE001
        log(f"summary: FAILED: {short_error(e)}")
    return 0 if all(c == 0 for c in codes.values()) else 1


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--tmetal", default=str(REPO_ROOT / "build" / "bin" / "tmetal"),
                        help="the tmetal binary (default: build/bin/tmetal)")
    common.add_argument("--out", default=str(BENCH_DIR / "results"), help="output folder (default: bench/results)")
    common.add_argument("--json", help="results file (default: OUT/<benchmark>.json)")
    common.add_argument("--work", help="folder for the TTIR and CUDA sources, one subfolder per benchmark "
                        "(default: $TMPDIR/tmetal-gpu-bench)")
    common.add_argument("--hardware", default="",
                        help="tmetal hardware profile to plan and compile for (default: h100/h200 from the device "
                        "name, else tmetal's default)")
    common.add_argument("--warmup", type=float, default=10.0, help="do_bench warm-up, ms (default 10)")
    common.add_argument("--rep", type=float, default=50.0, help="do_bench measuring time, ms (default 50)")
    common.add_argument("--l2-flush", choices=("clean", "dirty"), default=None,
                        help="clean: before each timed run write one 256 MB buffer, then read another, so the L2 "
                        "holds no dirty lines (default of layouts and graph); dirty: triton.testing.do_bench's flush, "
                        "a write only, whose write-back the timed kernel pays (default of suite)")
    common.add_argument("--deadline", type=float, default=None,
                        help="seconds after which no new case starts (the rest are recorded as skipped)")
    common.add_argument("--resume", action="store_true", help="keep the cases already in the results file")
    common.add_argument("--dry-run", action="store_true",
                        help="no GPU: generate TTIR and CUDA sources only (needs triton, not torch or cupy)")
    common.add_argument("--nvcc-check", action="store_true", help="with --dry-run: compile each source to PTX")
    common.add_argument("--quick", action="store_true", help="a few small cases, to check the set-up")
    common.add_argument("--verbose", action="store_true", help="print tracebacks of failing cases")

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("layouts", parents=[common], help="one row-sum kernel under each layout policy")
    p.add_argument("--sizes", type=parse_shapes, default=None, help=f"MxN list (default {DEFAULT_SIZES})")
    p.add_argument("--layouts", type=parse_layouts, default=list(LAYOUTS), help="policies (default: all five)")
    p.add_argument("--dtype", type=parse_dtypes, default=["float32"], help="float32, float16 or both, comma separated")
    p.add_argument("--output", help="the plot (default: OUT/layouts.png)")
    p.add_argument("--block-m", type=int, default=4, help="rows per program (default 4)")
    p.add_argument("--block-n", type=int, default=256, help="columns per loop trip (default 256)")
    p.add_argument("--num-warps", type=int, default=4, help="warps per program (default 4)")
    p.add_argument("--no-torch", action="store_true", help="do not time torch.sum")

    p = sub.add_parser("graph", parents=[common], help="planner reductions against torch")
    p.add_argument("--dtypes", type=parse_dtypes, default=["float32", "float16"], help="default float32,float16")
    p.add_argument("--ops", type=parse_list, default=parse_list(DEFAULT_OPS), help=f"default {DEFAULT_OPS}")
    p.add_argument("--shapes", type=parse_shapes, default=None,
                   help=f"2-D shapes reduce rows and columns, 3-D ones three axis sets (default {DEFAULT_GRAPH_SHAPES})")
    p.add_argument("--output", help="the plot (default: OUT/graph.png)")
    p.add_argument("--tuning", default=None,
                   help="the planner's work per thread, as TMETAL_PLAN_TUNING takes it (e.g. loads=4,vectors=16,"
                   "threads=1024; default: the environment's, else the planner's defaults)")

    p = sub.add_parser("suite", parents=[common], help="the kernel suite against Triton's NVIDIA backend")
    p.add_argument("--cases", type=parse_list, default=None, help="only these cases (suite or larger configs)")
    p.add_argument("--no-large", action="store_true", help="only the suite's own (small) cases")
    p.add_argument("--no-small", action="store_true", help="only the larger configurations")
    p.add_argument("--output", help="the plot (default: OUT/suite.png)")
    p.add_argument("--rounds", type=int, default=1,
                   help="time each case this many times a side, the sides taking turns, and record the medians "
                   "(and every round's time; default 1)")
    p.add_argument("--launcher", choices=("triton", "cupy"), default="triton",
                   help="how tmetal's kernels are launched: triton, by the C launcher Triton generates for its own "
                   "kernels (default: the sides then differ in their kernels alone); cupy, by cupy's launch")

    p = sub.add_parser("flush", parents=[common], help="what each L2 flush costs the timed run (torch.sum, copy)")
    p.add_argument("--megabytes", type=lambda t: [int(v) for v in t.split(",")], default=[128, 256, 512, 1024],
                   help="input sizes in MB (default 128,256,512,1024)")

    p = sub.add_parser("all", parents=[common], help="layouts, graph and suite in turn, then summary.md")
    p.add_argument("--budget", type=float, default=420.0,
                   help="seconds for the three together (default 420; a benchmark that overruns is stopped, so "
                   "the whole ends within about --budget + 90 s)")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "all":
        return run_all(args)
    if args.command == "layouts" and args.sizes is None:
        args.sizes = parse_shapes(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    if args.command == "graph" and args.shapes is None:
        args.shapes = parse_shapes(QUICK_GRAPH_SHAPES if args.quick else DEFAULT_GRAPH_SHAPES)
    if args.l2_flush is None:
        args.l2_flush = "dirty" if args.command == "suite" else "clean"
    if getattr(args, "tuning", None) is not None:
        os.environ["TMETAL_PLAN_TUNING"] = args.tuning  # read by `tmetal bench stages`
    bench_class = {"layouts": LayoutsBench, "graph": GraphBench, "suite": SuiteBench, "flush": FlushBench}[args.command]
    settings = {k: v for k, v in vars(args).items()
                if k in ("sizes", "layouts", "dtype", "dtypes", "ops", "shapes", "block_m", "block_n", "num_warps",
                         "cases", "no_large", "no_small", "quick", "l2_flush", "megabytes", "rounds", "launcher")}
    if args.command == "graph":
        settings["plan_tuning"] = os.environ.get("TMETAL_PLAN_TUNING") or "planner defaults"
    settings = {k: ([shape_text(s) if isinstance(s, tuple) else s for s in v] if isinstance(v, list) else v)
                for k, v in settings.items()}
    bench = bench_class(args, args.command, settings)
    bench.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
