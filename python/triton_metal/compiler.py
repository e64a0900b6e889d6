"""The Triton compiler backend of tmetal: TTIR -> Metal Shading Language.

Triton finds this module through the `triton.backends` entry point `metal`
(pyproject.toml) and uses its one concrete `BaseBackend` subclass,
`MetalBackend`, for targets `GPUTarget("metal", arch, 32)`.

Targets. `arch` names the hardware profile the kernels are planned for (a
tmetal hardware profile id such as "m3-max" or "apple-generic"). Kernels that
the CPU emulator runs use `arch = "emulator:<profile id>"`: their binary is
the MSL source itself, while kernels for Metal end in a .metallib when Apple's
`xcrun metal` is installed. Kernels of the CUDA validation mode
(CudaValidationDriver, cuda_driver.py) use `arch = "cuda:<profile id>"`: the
same TTIR passes, layouts and lowering, but the final stage emits tmetal's
CUDA dialect (CUDA C++, run on NVIDIA GPUs to validate and measure the Metal
pipeline; not a product target).

Stages:
  ttir      Triton's own TTIR passes (inlining, block/tensor-descriptor
            pointers rewritten to plain pointer tensors, combine,
            canonicalize, CSE, loop-invariant code motion, loop unrolling)
  msl       tmetal's C++ compiler (triton_metal._core.compile_ttir) on the
            module's text, locations included, so that errors name the
            user's Python line
  metallib  `xcrun metal` + `xcrun metallib` (Metal targets on machines that
            have them; unverified here: no machine of this project has them)
  cuda      instead of msl for "cuda:" targets: the same compile_ttir call with
            target="cuda"; the binary is the CUDA source, which the driver
            compiles with NVRTC

Options (`kernel[grid](..., num_warps=8, layout="TILED")`, `triton.Config`):
see `MetalOptions`.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Dict, Optional, Tuple

from triton.backends.compiler import BaseBackend, GPUTarget, Language

from . import errors
from ._native import core, core_fingerprint
from .ttir_locations import TtirLocations

BACKEND_NAME = "metal"
EMULATOR_ARCH_PREFIX = "emulator:"
CUDA_ARCH_PREFIX = "cuda:"
SIMD_WIDTH = 32
# Apple GPUs: at most 1024 threads per threadgroup (Metal feature-set tables).
MAX_THREADS_PER_THREADGROUP = 1024
LAYOUT_POLICIES = ("DEFAULT", "ROW_MAJOR", "COLUMN_MAJOR", "TILED", "COALESCED")
_LAYOUT_BY_VALUE = {"0": "DEFAULT", "1": "ROW_MAJOR", "2": "COLUMN_MAJOR", "4": "TILED", "8": "COALESCED"}

# Environment variables that set option defaults (they are part of the
# options, hence of Triton's cache key).
ENV_LAYOUT = "TRITON_METAL_LAYOUT"
ENV_FAST_MATH = "TRITON_METAL_FAST_MATH"
ENV_METALLIB = "TRITON_METAL_METALLIB"


def make_target(profile_id: str, emulator: bool, cuda: bool = False) -> GPUTarget:
    """The Triton target for kernels planned for `profile_id`, run on the
    emulator, on Metal, or (cuda=True) as CUDA in the validation mode."""
    if emulator and cuda:
        raise ValueError("a target runs on the emulator or through CUDA, not both")
    prefix = EMULATOR_ARCH_PREFIX if emulator else CUDA_ARCH_PREFIX if cuda else ""
    return GPUTarget(BACKEND_NAME, prefix + profile_id, SIMD_WIDTH)


def parse_arch(arch: str) -> Tuple[str, bool]:
    """(hardware profile id, runs on the emulator) of a target's arch."""
    arch = str(arch)
    if arch.startswith(EMULATOR_ARCH_PREFIX):
        return arch[len(EMULATOR_ARCH_PREFIX):], True
    if arch.startswith(CUDA_ARCH_PREFIX):
        return arch[len(CUDA_ARCH_PREFIX):], False
    return arch, False


def is_cuda_arch(arch: str) -> bool:
    """Whether a target's arch is the CUDA validation mode's ("cuda:<profile>")."""
    return str(arch).startswith(CUDA_ARCH_PREFIX)


def canonical_layout(name) -> str:
    """The MemoryLayout policy name for a user's spelling ("coalesced",
    "TILED", 8, "8"); ValueError for anything else."""
    text = str(name).strip()
    if text.upper() in LAYOUT_POLICIES:
        return text.upper()
    if text in _LAYOUT_BY_VALUE:
        return _LAYOUT_BY_VALUE[text]
    raise ValueError(f"unknown layout policy {name!r}: use one of {', '.join(LAYOUT_POLICIES)}")


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    if value:
        raise ValueError(f"{name}={value!r}: use 1 or 0")
    return default


@functools.lru_cache(maxsize=None)
def metal_toolchain() -> Optional[str]:
    """The path of Apple's `metal` compiler (through xcrun), or None."""
    if shutil.which("xcrun") is None:
        return None
    try:
        found = subprocess.run(["xcrun", "-sdk", "macosx", "-f", "metal"], capture_output=True, text=True,
                               timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found.stdout.strip() if found.returncode == 0 and found.stdout.strip() else None


@dataclasses.dataclass(frozen=True)
class MetalOptions:
    """Compilation options of one kernel launch.

    Fields Triton's JIT and autotuner pass for every backend (num_ctas,
    enable_fp_fusion, debug, ...) are accepted so that unchanged kernels and
    `triton.Config`s work; what they mean on Metal is noted per field.
    """

    num_warps: int = 4  # SIMD groups per threadgroup; threadgroup = num_warps * 32 threads
    num_ctas: int = 1  # CUDA thread-block clusters: must be 1
    num_stages: int = 3  # software pipelining: loops with a tl.dot load num_stages - 1 trips ahead (at most 2)
    warp_size: int = SIMD_WIDTH
    hardware: str = ""  # hardware profile id; "" = the target's
    layout: str = "COALESCED"  # MemoryLayout policy (default: $TRITON_METAL_LAYOUT, else COALESCED)
    fast_math: bool = False  # MSL fast math (default: $TRITON_METAL_FAST_MATH)
    metallib: bool = False  # end in a .metallib (Metal targets, when xcrun metal exists)
    enable_fp_fusion: bool = True  # a*b+c may become fma
    debug: bool = False  # keep tl.device_assert / overflow checks
    sanitize_overflow: bool = True
    launch_cooperative_grid: bool = False  # CUDA cooperative launch: must be False
    ir_override: Optional[str] = None  # a .ttir file replacing the TTIR stage's output
    extern_libs: Optional[tuple] = None  # CUDA/ROCm device libraries: none on Metal
    # Floating-point formats: Apple GPUs have no fp8 arithmetic and no
    # tensor-float-32. 8-bit floats are storage formats here: loaded,
    # stored, converted in software and widened exactly for tl.dot: OCP's
    # e4m3fn and e5m2, AMD's FNUZ variants, and Triton's deprecated
    # fp8e4b15 (converted as Triton's NVIDIA backend does, below).
    # tl.dot accepts the reduced precisions NVIDIA's backend has (tf32 and
    # the split-bf16 emulations of fp32) and computes them in full fp32.
    supported_fp8_dtypes: Tuple[str, ...] = ("fp8e4b15", "fp8e4b8", "fp8e4nv", "fp8e5", "fp8e5b16")
    deprecated_fp8_dot_operand_dtypes: Tuple[str, ...] = ()
    default_dot_input_precision: str = "ieee"
    allowed_dot_input_precisions: Tuple[str, ...] = ("ieee", "tf32", "tf32x3", "bf16x3", "bf16x6")
    max_num_imprecise_acc_default: int = 0
    instrumentation_mode: str = ""
    backend_name: str = BACKEND_NAME
    arch: str = ""

    def __post_init__(self):
        if not isinstance(self.num_warps, int) or self.num_warps <= 0 or self.num_warps & (self.num_warps - 1):
            raise ValueError(f"num_warps must be a power of 2, got {self.num_warps!r}")
        if self.num_warps * SIMD_WIDTH > MAX_THREADS_PER_THREADGROUP:
            # Triton's OutOfResources too: triton.autotune drops such a config.
            raise errors.OutOfResourcesError(
                f"invalid option for the tmetal backend: num_warps={self.num_warps} gives "
                f"{self.num_warps * SIMD_WIDTH} threads per threadgroup; Apple GPUs allow at most "
                f"{MAX_THREADS_PER_THREADGROUP} (num_warps <= {MAX_THREADS_PER_THREADGROUP // SIMD_WIDTH})",
                resource="threads", required=self.num_warps * SIMD_WIDTH, limit=MAX_THREADS_PER_THREADGROUP)
        if self.num_ctas != 1:
            raise ValueError(f"num_ctas={self.num_ctas}: thread-block clusters are a CUDA feature; Metal runs "
                             "num_ctas=1")
        if self.num_stages < 1:
            raise ValueError(f"num_stages must be >= 1, got {self.num_stages}")
        if self.warp_size != SIMD_WIDTH:
            raise ValueError(f"warp_size={self.warp_size}: Apple GPUs have SIMD groups of {SIMD_WIDTH} threads")
        if self.launch_cooperative_grid:
            raise ValueError("launch_cooperative_grid is a CUDA feature that Metal does not have")
        object.__setattr__(self, "layout", canonical_layout(self.layout))
        extern = dict(self.extern_libs or ())
        if extern:
            raise ValueError(f"extern_libs {sorted(extern)}: tmetal links no device bitcode; libdevice is built in "
                             "(triton.language.extra.libdevice)")
        object.__setattr__(self, "extern_libs", tuple(sorted(extern.items())))

    def hash(self) -> str:
        key = "_".join(f"{name}-{value}" for name, value in sorted(dataclasses.asdict(self).items()))
        return hashlib.sha256(key.encode("utf-8")).hexdigest()

    @property
    def emulator(self) -> bool:
        return parse_arch(self.arch)[1]

    @property
    def cuda(self) -> bool:
        """The CUDA validation mode: the final stage emits CUDA, not MSL."""
        return is_cuda_arch(self.arch)


def _min_dot_size(lhs_type, rhs_type):
    # tmetal lowers tt.dot for any shape Triton allows; the code generator
    # reports its own limits with the user's line.
    return (1, 1, 1)


def _convert_fp8e4b15(input, dst_ty, fp_downcast_rounding=None, _semantic=None):
    """Triton's fp8e4b15 (4 exponent bits with float16's bias 15, no
    infinities or NaNs; MLIR has no such type, so TTIR carries it as
    f8E4M3B11FNUZ) is converted by each backend: here with integer ops on the
    bits, as Triton's NVIDIA backend does with inline PTX. Upcasts shift the
    bits into a float16; downcasts round float32 toward zero to float16,
    clamp the magnitude at 1.75 (a NaN too) and round the dropped float16
    bits half up."""
    import triton.language as tl
    s = _semantic
    if input.type.scalar.is_fp8e4b15():
        bits = input.to(tl.uint8, bitcast=True, _semantic=s).to(tl.int32, _semantic=s)
        half = bits.__and__(0x7F, _semantic=s).__lshift__(7, _semantic=s).__or__(
            bits.__and__(0x80, _semantic=s).__lshift__(8, _semantic=s), _semantic=s)
        value = half.to(tl.int16, _semantic=s).to(tl.float16, bitcast=True, _semantic=s)
        return value if dst_ty.scalar.is_fp16() else value.to(dst_ty.scalar, _semantic=s)
    if not input.type.scalar.is_fp16():
        input = input.to(tl.float32, _semantic=s).to(tl.float16, fp_downcast_rounding="rtz", _semantic=s)
    bits = input.to(tl.int16, bitcast=True, _semantic=s).to(tl.int32, _semantic=s).__and__(0xFFFF, _semantic=s)
    magnitude = tl.minimum(bits.__and__(0x7FFF, _semantic=s), 0x3F00, _semantic=s)
    rounded = magnitude.__mul__(2, _semantic=s).__add__(0x80, _semantic=s).__rshift__(8, _semantic=s)
    code = rounded.__or__(bits.__rshift__(8, _semantic=s).__and__(0x80, _semantic=s), _semantic=s)
    return code.to(tl.uint8, _semantic=s).to(tl.float8e4b15, bitcast=True, _semantic=s)


class MetalBackend(BaseBackend):
    """Compiles Triton kernels for Apple GPUs (and for tmetal's CPU emulator)."""

    @staticmethod
    def supports_target(target: GPUTarget):
        return target.backend == BACKEND_NAME

    def __init__(self, target: GPUTarget) -> None:
        super().__init__(target)
        self.profile_id, self.runs_on_emulator = parse_arch(target.arch)
        self.runs_on_cuda = is_cuda_arch(target.arch)
        # The binary Triton hands to the driver: MSL for the emulator (it
        # compiles MSL as C++) and wherever Apple's compiler is missing; CUDA
        # source in the CUDA validation mode (the driver runs NVRTC).
        self.binary_ext = "cuda" if self.runs_on_cuda else "metallib" if self._wants_metallib() else "msl"

    def _wants_metallib(self) -> bool:
        return (not self.runs_on_emulator and not self.runs_on_cuda and _env_flag(ENV_METALLIB, True)
                and metal_toolchain() is not None)

    def get_target_name(self, options) -> str:
        return f"{BACKEND_NAME}:{options.arch}"

    @functools.lru_cache()
    def hash(self) -> str:
        return f"tmetal-{core().__version__}-{core_fingerprint()}-{self.target.arch}"

    def parse_options(self, opts) -> MetalOptions:
        fields = MetalOptions.__dataclass_fields__
        args = {name: opts[name] for name in fields if name in opts and opts[name] is not None}
        args["arch"] = self.target.arch
        args.setdefault("layout", os.environ.get(ENV_LAYOUT, "").strip() or "COALESCED")
        args.setdefault("fast_math", _env_flag(ENV_FAST_MATH, False))
        args.setdefault("hardware", self.profile_id)
        args["metallib"] = self.binary_ext == "metallib"
        if "enable_fp_fusion" not in args:
            from triton import knobs
            args["enable_fp_fusion"] = knobs.language.default_fp_fusion
        try:
            return MetalOptions(**args)
        except ValueError as e:
            raise errors.InvalidOptionError(f"invalid option for the tmetal backend: {e}") from None

    def pack_metadata(self, metadata):
        return (metadata.num_warps, metadata.shared)

    def get_codegen_implementation(self, options):
        return {"min_dot_size": _min_dot_size, "convert_custom_types": _convert_fp8e4b15}

    def get_module_map(self) -> Dict[str, ModuleType]:
        # libdevice calls become CUDA's libdevice symbols, which tmetal
        # implements for Metal (libdevice.py).
        from . import libdevice
        return {"triton.language.extra.libdevice": libdevice}

    def load_dialects(self, context):
        pass  # TTIR only: tmetal adds no MLIR dialects

    def add_stages(self, stages, options, language=Language.TRITON):
        if language != Language.TRITON:
            raise errors.CompileError("Gluon kernels are written for NVIDIA/AMD layouts and cannot be compiled for "
                                      "Metal; use @triton.jit kernels")
        stages["ttir"] = lambda src, metadata: self.make_ttir(src, metadata, options)
        if options.cuda:
            # The validation mode: everything up to here is the Metal pipeline's.
            stages["cuda"] = lambda src, metadata: self.make_cuda(src, metadata, options)
            return
        stages["msl"] = lambda src, metadata: self.make_msl(src, metadata, options)
        if options.metallib:
            stages["metallib"] = lambda src, metadata: self.make_metallib(src, metadata, options)

    @staticmethod
    def make_ttir(mod, metadata, options):
        from triton._C.libtriton import ir, passes

        pm = ir.pass_manager(mod.context)
        pm.enable_debug()
        passes.common.add_inliner(pm)
        # Apple GPUs have no TMA: block pointers and tensor descriptors become
        # tensors of pointers, which the code generator lowers like any load.
        passes.ttir.add_rewrite_tensor_pointer(pm)
        passes.ttir.add_rewrite_tensor_descriptor_to_pointer(pm)
        passes.common.add_canonicalizer(pm)
        passes.ttir.add_combine(pm)
        passes.ttir.add_reorder_broadcast(pm)
        passes.common.add_cse(pm)
        passes.ttir.add_triton_licm(pm)
        passes.common.add_symbol_dce(pm)
        passes.ttir.add_loop_unroll(pm)
        pm.run(mod, "make_ttir")
        return mod

    @staticmethod
    def make_msl(mod, metadata, options):
        return MetalBackend._emit(mod, metadata, options, "metal")

    @staticmethod
    def make_cuda(mod, metadata, options):
        """The CUDA validation mode's final stage: tmetal's CUDA dialect from
        the same TTIR, layouts and lowering as make_msl."""
        return MetalBackend._emit(mod, metadata, options, "cuda")

    @staticmethod
    def _emit(mod, metadata, options, target: str):
        text = str(mod)  # with loc(...) information: errors name the user's lines
        kernel = mod.get_entry_func_name()
        ttir_name = f"{kernel}.ttir"
        extra = {} if target == "metal" else {"target": target}  # a core without target= still emits MSL
        if options.num_stages != MetalOptions.num_stages:  # the core's default too
            extra["num_stages"] = options.num_stages
        try:
            source, abi_json = core().compile_ttir(text, ttir_name, num_warps=options.num_warps,
                                                   layout=options.layout, hardware=options.hardware,
                                                   fast_math=options.fast_math, **extra)
        except errors.TmetalError as error:
            raise errors.with_kernel(locate_in_user_source(error, text, ttir_name), kernel) from None
        except TypeError as error:
            if extra:
                wanted = ", ".join(f"{name}=" for name in extra)
                raise errors.UnavailableError(f"this build of triton_metal._core predates compile_ttir's {wanted} "
                                              f"(the CUDA target, num_stages): rebuild it ({error})") from None
            raise
        abi = json.loads(abi_json)
        metadata["name"] = abi["kernel"]
        metadata["shared"] = int(abi.get("threadgroup_memory_bytes", 0))
        metadata["tmetal_abi"] = abi
        return source

    @staticmethod
    def make_metallib(msl, metadata, options):
        """MSL -> .metallib with Apple's toolchain. Unverified: written to
        `xcrun metal`/`xcrun metallib` as documented; no machine of this
        project runs macOS."""
        with tempfile.TemporaryDirectory(prefix="tmetal-metallib-") as tmp:
            source = Path(tmp) / f"{metadata['name']}.metal"
            air = source.with_suffix(".air")
            library = source.with_suffix(".metallib")
            source.write_text(msl)
            flags = ["-ffast-math"] if options.fast_math else ["-fno-fast-math"]
            for command in (["xcrun", "-sdk", "macosx", "metal", *flags, "-c", str(source), "-o", str(air)],
                            ["xcrun", "-sdk", "macosx", "metallib", str(air), "-o", str(library)]):
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0:
                    raise errors.CompileError(f"{' '.join(command[:4])} failed for kernel '{metadata['name']}':\n"
                                              f"{done.stderr.strip()}", kernel=metadata["name"])
            return library.read_bytes()


def locate_in_user_source(error: errors.TmetalError, ttir_text: str, ttir_name: str) -> errors.TmetalError:
    """When `error` points into the TTIR text rather than at the user's file,
    return it re-pointed at the user's file:line:col found in the TTIR's
    locations (the TTIR line is kept in the message)."""
    if error.file != ttir_name or not error.line:
        return error
    position = TtirLocations(ttir_text).user_position_of_line(error.line)
    if position is None:
        return error
    message = f"{position}: error: {error.reason} (TTIR line {error.line})"
    return error.copy_with(message, file=position.file, line=position.line, col=position.col)
