"""The CUDA validation mode (CudaValidationDriver, TRITON_METAL_DEVICE=cuda)
without a GPU: device selection, the `cuda` final stage of the plugin's
compiler for every suite kernel (a fake driver target), and the launcher's
argument packing with a fake CUDA runtime. tests/python/test_plugin_cuda.py
runs the same kernels on a real GPU (scripts/gpu_check.sh)."""
from __future__ import annotations

import json
import types

import numpy as np
import pytest

import suite
import triton_metal
from conftest import require_stage
from triton_metal import cuda_driver, device_selection, errors


class FakeCudaTensor(triton_metal.HostTensor):
    """Host memory that says it lives on cuda:0: what the launcher packs."""

    device = types.SimpleNamespace(type="cuda", index=0)


class FakeRuntime:
    """Records what the launcher asks of tmetal's CUDA runtime."""

    def __init__(self):
        self.calls = []

    def compile(self, source, abi_json, device):
        self.calls.append(("compile", source, json.loads(abi_json), device))
        return f"compiled-{len(self.calls)}"

    def launch(self, compiled, args, grid, stream):
        self.calls.append(("launch", compiled, list(args), list(grid), stream))


class FakeStreamDriver(cuda_driver.CudaValidationDriver):

    def get_current_stream(self, device=None):
        return 0x1234


@pytest.fixture
def fake_cuda(monkeypatch):
    """A CudaValidationDriver active without PyTorch or a GPU: the launcher
    calls a FakeRuntime instead of the GPU."""
    require_stage("codegen")
    from triton.runtime import driver
    monkeypatch.setattr(device_selection, "cuda_status", lambda: (True, "fake CUDA for the test"))
    runtime = FakeRuntime()
    monkeypatch.setattr(cuda_driver.CudaValidationLauncher, "runtime", runtime)
    previous = driver._active
    forget_compiled_kernels()
    triton_metal.activate(FakeStreamDriver())
    yield runtime
    driver._active = previous
    forget_compiled_kernels()


def forget_compiled_kernels():
    """Triton's JIT keeps a kernel's compiled versions per device index, not
    per target (a kernel keeps the target of its first launch in a process):
    the suite's kernels must not keep their `cuda:` versions for the emulator
    tests that run after these in the same process, nor the reverse."""
    for case in suite.all_cases():
        case.kernel.device_caches.clear()


def cuda_args(case, args: dict) -> list:
    import triton.language as tl
    return [FakeCudaTensor(v, tl.bfloat16 if name in case.bf16_args else None) if isinstance(v, np.ndarray) else v
            for name, v in args.items()]


# ---- selection -------------------------------------------------------------------


def test_cuda_is_a_device_choice(monkeypatch):
    monkeypatch.setenv("TRITON_METAL_DEVICE", "cuda")
    assert device_selection.requested_device() == "cuda"
    assert device_selection.selected_device() == "cuda"
    assert triton_metal.CudaValidationDriver.is_active()
    assert not triton_metal.EmulatorDriver.is_active()
    assert triton_metal.TmetalDriver.is_active()
    from triton_metal.driver import _driver_class
    assert _driver_class("cuda") is triton_metal.CudaValidationDriver


def test_tmetal_driver_constructs_the_cuda_driver_when_selected(monkeypatch):
    monkeypatch.setenv("TRITON_METAL_DEVICE", "cuda")
    monkeypatch.setattr(device_selection, "cuda_status", lambda: (True, "fake"))
    driver = triton_metal.TmetalDriver()
    assert type(driver) is triton_metal.CudaValidationDriver
    target = driver.get_current_target()
    assert target.backend == "metal" and target.arch == "cuda:" + driver.profile_id


def test_without_cuda_the_driver_says_why(monkeypatch):
    monkeypatch.setattr(device_selection, "cuda_status", lambda: (False, "PyTorch is not installed"))
    with pytest.raises(errors.UnavailableError, match="CUDA validation mode cannot run here: PyTorch is not installed"):
        triton_metal.CudaValidationDriver()


def test_cuda_status_names_what_is_missing():
    available, why = device_selection.cuda_status()
    try:
        import torch
        has_cuda = torch.cuda.is_available()
    except ImportError:
        has_cuda = False
    assert available == (has_cuda and triton_metal.capabilities().get("cuda", False))
    assert why


def test_register_backend_is_idempotent():
    from triton.backends import backends
    triton_metal.register_backend()
    assert backends["metal"].compiler is triton_metal.MetalBackend
    assert triton_metal.register_backend() is False


# ---- the binding ----------------------------------------------------------------------


def test_compile_ttir_emits_cuda_with_target_cuda():
    require_stage("codegen")
    from triton_metal import core
    ttir = (suite_root() / "tests" / "ttir" / "vector_add_f32.ttir")
    if not ttir.exists():
        pytest.skip(f"{ttir} is not in this checkout")
    text = ttir.read_text()
    cuda_source, cuda_abi = core().compile_ttir(text, ttir.name, target="cuda")
    msl, msl_abi = core().compile_ttir(text, ttir.name)
    assert 'extern "C" __global__' in cuda_source
    assert "kernel void" in msl
    cuda_abi, msl_abi = json.loads(cuda_abi), json.loads(msl_abi)
    assert cuda_abi["target"] == "cuda" and msl_abi["target"] == "metal"
    assert cuda_abi["params"] == msl_abi["params"]
    with pytest.raises(errors.CompileError, match="unknown target 'ptx'"):
        core().compile_ttir(text, ttir.name, target="ptx")


def suite_root():
    from conftest import REPO_ROOT
    return REPO_ROOT


def test_cuda_compile_without_a_gpu_is_unavailable():
    require_stage("codegen")
    if not triton_metal.capabilities().get("cuda"):
        pytest.skip("triton_metal._core was built without the CUDA runtime")
    from triton_metal import core
    try:
        core().cuda_device_info()
    except errors.UnavailableError:
        pass
    else:
        pytest.skip("this machine has an NVIDIA GPU")
    source, abi = core().compile_ttir((suite_root() / "tests/ttir/vector_add_f32.ttir").read_text(), "v.ttir",
                                      target="cuda")
    with pytest.raises(errors.UnavailableError):
        core().cuda_compile(source, abi)


# ---- the plugin's compiler and launcher with a fake driver --------------------------


def test_launch_packs_device_pointers_scalars_grid_and_stream(fake_cuda):
    case = suite.get_case("vector_add_f32")
    args = case.args()
    wrapped = cuda_args(case, args)
    compiled = case.kernel[case.grid](*wrapped, **case.constexprs)
    assert [c[0] for c in fake_cuda.calls] == ["compile", "launch"]
    _, source, abi, device = fake_cuda.calls[0]
    assert 'extern "C" __global__' in source and abi["target"] == "cuda" and device == 0
    _, handle, packed, grid, stream = fake_cuda.calls[1]
    assert handle == "compiled-1"
    assert packed == [w.data_ptr() for w in wrapped[:3]] + [args["n_elements"]]
    assert grid == list(case.grid) + [1] * (3 - len(case.grid))
    assert stream == 0x1234
    # The second launch reuses the compiled kernel.
    case.kernel[case.grid](*wrapped, **case.constexprs)
    assert [c[0] for c in fake_cuda.calls] == ["compile", "launch", "launch"]
    assert compiled.metadata.target.arch.startswith("cuda:")
    assert b'extern "C" __global__' in compiled.asm["cuda"]
    assert "msl" not in compiled.asm


def test_compiled_kernels_are_released_at_exit(fake_cuda):
    # Triton's caches keep the programs alive to interpreter shutdown; the
    # exit hook drops their CUDA modules first (else nanobind reports leaks).
    case = suite.get_case("vector_add_f32")
    compiled = case.kernel[case.grid](*cuda_args(case, case.args()), **case.constexprs)
    program = compiled.module
    assert program.compiled == "compiled-1"
    cuda_driver._release_compiled_kernels()
    assert program.compiled is None
    case.kernel[case.grid](*cuda_args(case, case.args()), **case.constexprs)  # compiled again when launched again
    assert [c[0] for c in fake_cuda.calls] == ["compile", "launch", "compile", "launch"]


def test_host_memory_is_refused(fake_cuda):
    case = suite.get_case("vector_add_f32")
    args = case.args()
    wrapped = [triton_metal.tensor(v) if isinstance(v, np.ndarray) else v for v in args.values()]
    with pytest.raises(errors.LaunchError, match="must be a tensor on a CUDA device"):
        case.kernel[case.grid](*wrapped, **case.constexprs)
    assert not fake_cuda.calls


def test_a_tensor_on_another_gpu_is_refused(fake_cuda):
    class OnGpu1(triton_metal.HostTensor):
        device = types.SimpleNamespace(type="cuda", index=1)

    case = suite.get_case("vector_add_f32")
    wrapped = [OnGpu1(v) if isinstance(v, np.ndarray) else v for v in case.args().values()]
    with pytest.raises(errors.LaunchError, match="cuda:1"):
        case.kernel[case.grid](*wrapped, **case.constexprs)


CASES = suite.all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_suite_kernel_compiles_to_cuda_through_the_plugin(fake_cuda, case):
    """The plugin's pipeline with a `cuda:` target ends in CUDA source that is
    exactly compile_ttir(target='cuda') of the same TTIR, with the metadata of
    the MSL the Metal pipeline makes from it."""
    from triton_metal import core
    compiled = case.kernel.warmup(*cuda_args(case, case.args()), **case.constexprs, grid=case.grid,
                                  num_warps=case.num_warps)
    source = compiled.asm["cuda"].decode()
    assert 'extern "C" __global__' in source
    ttir = compiled.asm["ttir"]
    options = dict(num_warps=case.num_warps, layout=compiled.metadata.layout, hardware=compiled.metadata.hardware,
                   fast_math=compiled.metadata.fast_math)
    again, cuda_abi = core().compile_ttir(ttir, "k.ttir", target="cuda", **options)
    assert again == source
    _, msl_abi = core().compile_ttir(ttir, "k.ttir", **options)
    cuda_abi, msl_abi = json.loads(cuda_abi), json.loads(msl_abi)
    for key in ("kernel", "params", "threads_per_threadgroup", "threadgroup_memory_bytes"):
        assert cuda_abi.get(key) == msl_abi.get(key), key
    assert compiled.metadata.tmetal_abi["target"] == "cuda"


def test_buffers_past_the_threadgroup_memory_limit_alias_shared_arrays_in_cuda(fake_cuda):
    """The CUDA dialect spells a reused buffer (docs/codegen.md, "Threadgroup
    memory") as a pointer into the earlier op's __shared__ array, as the MSL
    does with a threadgroup pointer; test_plugin_cuda.py runs it on a GPU."""
    from test_plugin_launch import two_dots_kernel
    a = FakeCudaTensor(np.zeros((64, 64), np.float32))
    try:
        compiled = two_dots_kernel.warmup(a, a, a, N=64, grid=(1, ))
    finally:  # the emulator tests must not get this `cuda:` version (forget_compiled_kernels)
        two_dots_kernel.device_caches.clear()
    source = compiled.asm["cuda"].decode()
    assert "__shared__ __align__(16) float tg_dot_a[4096];" in source
    assert "float* tg_dot_a0 = reinterpret_cast<float*>(tg_dot_a);" in source
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] == 32768
