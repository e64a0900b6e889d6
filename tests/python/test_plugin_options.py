"""The backend's options: defaults, environment defaults, validation, hashing,
and what goes into Triton's cache keys."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest
import triton
from triton.runtime.errors import OutOfResources

import triton_metal
from triton_metal import CompileError, OutOfResourcesError, compiler
from triton_metal.compiler import MetalBackend, MetalOptions, canonical_layout, make_target, parse_arch

JIT_DEFAULT_KWARGS = {"debug": False, "instrumentation_mode": ""}  # what Triton's JIT always passes


@pytest.fixture
def backend():
    return MetalBackend(make_target("apple-generic", emulator=True))


def test_defaults(backend, monkeypatch):
    monkeypatch.delenv(compiler.ENV_LAYOUT, raising=False)
    monkeypatch.delenv(compiler.ENV_FAST_MATH, raising=False)
    options = backend.parse_options(dict(JIT_DEFAULT_KWARGS))
    assert options.num_warps == 4 and options.num_ctas == 1 and options.warp_size == 32
    assert options.layout == "COALESCED" and options.fast_math is False
    assert options.hardware == "apple-generic" and options.arch == "emulator:apple-generic"
    assert options.emulator and options.metallib is False
    assert options.supported_fp8_dtypes == ("fp8e4b15", "fp8e4b8", "fp8e4nv", "fp8e5", "fp8e5b16") and options.default_dot_input_precision == "ieee"


def test_launch_options_are_taken(backend):
    options = backend.parse_options({"num_warps": 8, "num_stages": 2, "layout": "tiled", "fast_math": True,
                                     "hardware": "m2-max", **JIT_DEFAULT_KWARGS})
    assert (options.num_warps, options.num_stages, options.layout, options.fast_math, options.hardware) == \
        (8, 2, "TILED", True, "m2-max")


def test_unknown_keys_are_ignored_and_none_means_default(backend):
    options = backend.parse_options({"num_warps": None, "not_an_option": 3})
    assert options.num_warps == 4


def test_environment_sets_layout_and_fast_math_defaults(backend, monkeypatch):
    monkeypatch.setenv(compiler.ENV_LAYOUT, "row_major")
    monkeypatch.setenv(compiler.ENV_FAST_MATH, "1")
    options = backend.parse_options({})
    assert options.layout == "ROW_MAJOR" and options.fast_math is True
    # An explicit launch option wins over the environment.
    assert backend.parse_options({"layout": "COALESCED"}).layout == "COALESCED"


def test_bad_environment_flag_is_an_error(backend, monkeypatch):
    monkeypatch.setenv(compiler.ENV_FAST_MATH, "maybe")
    with pytest.raises(ValueError, match="TRITON_METAL_FAST_MATH='maybe': use 1 or 0"):
        backend.parse_options({})


@pytest.mark.parametrize("opts, message", [
    ({"num_warps": 3}, "num_warps must be a power of 2"),
    ({"num_warps": 64}, "at most 1024"),
    ({"num_ctas": 2}, "thread-block clusters are a CUDA feature"),
    ({"num_stages": 0}, "num_stages must be >= 1"),
    ({"layout": "diagonal"}, "unknown layout policy 'diagonal'"),
    ({"launch_cooperative_grid": True}, "cooperative"),
    ({"extern_libs": {"libdevice": "/x.bc"}}, "links no device bitcode"),
])
def test_invalid_options_are_compile_errors(backend, opts, message):
    with pytest.raises(CompileError, match=message):
        backend.parse_options(opts)


def test_invalid_options_are_assertion_errors_as_on_nvidia(backend):
    # Triton's own backends assert their options (test_core's
    # test_num_warps_pow2 expects an AssertionError for num_warps=3).
    with pytest.raises(AssertionError, match="must be a power of 2") as info:
        backend.parse_options({"num_warps": 3})
    error = info.value
    assert isinstance(error, triton_metal.InvalidOptionError) and isinstance(error, CompileError)
    assert str(error) == "invalid option for the tmetal backend: num_warps must be a power of 2, got 3"
    # Kept through Triton's deep copy of cached errors and through pickling.
    for again in (copy.deepcopy(error), pickle.loads(pickle.dumps(error))):
        assert type(again) is type(error) and str(again) == str(error)


@triton.jit
def _empty_kernel(dst):
    pass


def test_a_jit_kernel_with_three_warps_fails_as_on_nvidia(codegen_emulator):
    # Triton's test_num_warps_pow2, through tmetal's driver.
    dst = triton_metal.tensor(np.zeros(128, np.float32))
    with pytest.raises(AssertionError, match="invalid option for the tmetal backend: num_warps must be a power of 2"):
        _empty_kernel.warmup(dst=dst, grid=(1, ), num_warps=3)
    for warps in (1, 2, 4):
        _empty_kernel.warmup(dst=dst, grid=(1, ), num_warps=warps)


def test_too_many_warps_are_out_of_resources(backend):
    with pytest.raises(OutOfResourcesError) as info:
        backend.parse_options({"num_warps": 64})
    error = info.value
    assert isinstance(error, OutOfResources)
    assert (error.name, error.required, error.limit) == ("threads", 2048, 1024)
    assert str(error) == ("invalid option for the tmetal backend: num_warps=64 gives 2048 threads per threadgroup; "
                          "Apple GPUs allow at most 1024 (num_warps <= 32) "
                          "(out of resource: threads, Required: 2048, Hardware limit: 1024)")


@pytest.mark.parametrize("spelling, name", [("coalesced", "COALESCED"), ("8", "COALESCED"), (4, "TILED"),
                                            ("DEFAULT", "DEFAULT"), ("column_major", "COLUMN_MAJOR")])
def test_layout_spellings(spelling, name):
    assert canonical_layout(spelling) == name


def test_hash_is_stable_and_covers_every_field(backend):
    base = backend.parse_options({})
    assert base.hash() == backend.parse_options({}).hash()
    changes = {"num_warps": 8, "num_stages": 1, "layout": "TILED", "fast_math": True, "hardware": "m1",
               "enable_fp_fusion": False, "debug": True}
    hashes = {base.hash()}
    for field, value in changes.items():
        changed = dataclasses.replace(base, **{field: value})
        hashes.add(changed.hash())
    assert len(hashes) == len(changes) + 1, "every option must change the hash (Triton's cache key)"


def test_targets_and_arch():
    assert parse_arch("m3-max") == ("m3-max", False)
    assert parse_arch("emulator:m3-max") == ("m3-max", True)
    assert make_target("m1", emulator=False).arch == "m1"


def test_backend_hash_names_the_core_and_target(backend):
    from triton_metal import _native
    h = backend.hash()
    assert h.startswith("tmetal-") and backend.target.arch in h
    assert _native.core_fingerprint() in h
    assert MetalBackend(make_target("m1", emulator=True)).hash() != h


def test_stages(backend):
    stages = {}
    backend.add_stages(stages, backend.parse_options({}))
    assert list(stages) == ["ttir", "msl"]


def test_gluon_is_refused(backend):
    from triton.backends.compiler import Language
    with pytest.raises(CompileError, match="Gluon"):
        backend.add_stages({}, backend.parse_options({}), Language.GLUON)


def test_metal_targets_use_metallib_only_with_apples_compiler(monkeypatch):
    compiler.metal_toolchain.cache_clear()
    monkeypatch.setattr(compiler.shutil, "which", lambda name: None)
    assert MetalBackend(make_target("m3", emulator=False)).binary_ext == "msl"
    compiler.metal_toolchain.cache_clear()


def test_pack_metadata(backend):
    from collections import namedtuple
    Meta = namedtuple("Meta", "num_warps shared")
    assert backend.pack_metadata(Meta(8, 1024)) == (8, 1024)
