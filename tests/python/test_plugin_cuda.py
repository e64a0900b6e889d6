"""Every kernel of the kernel suite (tests/kernels), launched unchanged with
`kernel[grid](...)` on PyTorch CUDA tensors through the plugin's CUDA
validation mode (CudaValidationDriver: the Metal pipeline with a CUDA final
stage), against the suite's NumPy references. Needs an NVIDIA GPU and PyTorch
with CUDA; scripts/gpu_check.sh runs it with TRITON_METAL_DEVICE=cuda.
Elsewhere the whole file is skipped at collection time (the GPU-less checks
of the same mode are in test_plugin_cuda_validation.py)."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the CUDA validation mode runs kernels on PyTorch CUDA tensors; "
                                            "PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip(f"the CUDA validation mode needs an NVIDIA GPU: PyTorch {torch.__version__} reports that CUDA is not "
                "available", allow_module_level=True)

import suite  # noqa: E402
import triton  # noqa: E402
import triton_metal  # noqa: E402
from triton_metal import errors  # noqa: E402

import test_random_reductions as random_reductions  # noqa: E402
import test_random_scans as random_scans  # noqa: E402
import test_random_dots as random_dots  # noqa: E402
import test_random_shapes as random_shapes  # noqa: E402
import test_plugin_language as language  # noqa: E402
import test_plugin_float8 as float8  # noqa: E402
import test_plugin_libdevice as libdevice  # noqa: E402
from test_plugin_launch import two_dots_kernel  # noqa: E402

if not triton_metal.capabilities().get("cuda"):
    pytest.skip("triton_metal._core was built without the CUDA runtime", allow_module_level=True)

CASES = suite.all_cases()
# As test_plugin_suite.py: num_warps changes every layout decision; the
# layout policies must all compute the same results.
CONFIGS = {
    "default": {},
    "warps1": {"num_warps": 1},
    "warps8": {"num_warps": 8},
    "row_major": {"layout": "ROW_MAJOR"},
}


@pytest.fixture(scope="module")
def cuda_driver():
    """The CUDA validation driver as Triton's active driver. With
    TRITON_METAL_DEVICE=cuda (as gpu_check.sh runs it) the driver is the one
    the environment selects; Triton's own NVIDIA driver is active on this
    machine too, so it is set explicitly (triton_metal.activate)."""
    import os

    from triton.runtime import driver
    previous = driver._active
    for case in CASES:  # Triton's JIT caches compiled kernels per device index, not per target
        case.kernel.device_caches.clear()
    if os.environ.get("TRITON_METAL_DEVICE", "").strip().lower() == "cuda":
        active = triton_metal.activate()
    else:
        active = triton_metal.activate(triton_metal.CudaValidationDriver())
    assert isinstance(active, triton_metal.CudaValidationDriver)
    yield active
    driver._active = previous


def to_device(case, name, value):
    if not isinstance(value, np.ndarray):
        return value
    if name in case.bf16_args:  # uint16 bit patterns -> bfloat16 with the same bits
        return torch.from_numpy(value.view(np.int16).copy()).cuda().view(torch.bfloat16)
    return torch.from_numpy(value.copy()).cuda()


def to_host(case, name, tensor) -> np.ndarray:
    if name in case.bf16_args:
        return tensor.view(torch.int16).cpu().numpy().view(np.uint16)
    return tensor.cpu().numpy()


def run_case(case: suite.Case, launch_options: dict):
    args = case.args()
    expected = case.expected(args)
    device_args = {name: to_device(case, name, value) for name, value in args.items()}
    options = {"num_warps": case.num_warps, **launch_options}
    compiled = case.kernel[case.grid](*device_args.values(), **case.constexprs, **options)
    torch.cuda.synchronize()
    problems = [problem for name in case.outputs
                if (problem := suite.compare(case, name, to_host(case, name, device_args[name]), expected[name]))]
    assert not problems, f"{case.name} with {options}:\n" + "\n".join(problems)
    return compiled


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_suite_case_through_the_plugin_on_cuda(cuda_driver, case, config):
    compiled = run_case(case, CONFIGS[config])
    assert compiled.metadata.target.arch.startswith("cuda:")
    assert b"__global__" in compiled.asm["cuda"]


def test_a_launch_on_a_side_stream_is_ordered_with_it(cuda_driver):
    case = suite.get_case("vector_add_f32")
    args = case.args()
    x, y, out = (torch.from_numpy(args[k].copy()).cuda() for k in ("x_ptr", "y_ptr", "out_ptr"))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        y.mul_(2)  # enqueued on the side stream before the kernel
        case.kernel[case.grid](x, y, out, args["n_elements"], **case.constexprs)
        out.add_(1)
    torch.cuda.synchronize()
    n = args["n_elements"]
    np.testing.assert_allclose(out.cpu().numpy()[:n], args["x_ptr"][:n] + 2 * args["y_ptr"][:n] + 1, rtol=1e-6)


def test_host_tensors_are_refused(cuda_driver):
    case = suite.get_case("vector_add_f32")
    args = case.args()
    cpu = [torch.from_numpy(v) if isinstance(v, np.ndarray) else v for v in args.values()]
    with pytest.raises(errors.LaunchError, match="must be a tensor on a CUDA device"):
        case.kernel[case.grid](*cpu, **case.constexprs)


def vector_add(n: int):
    """The suite's float32 vector add on n random elements: a launch
    add(x, y, out) and its three tensors."""
    case = suite.get_case("vector_add_f32")
    x, y, out = torch.rand(n, device="cuda"), torch.rand(n, device="cuda"), torch.zeros(n, device="cuda")
    block = case.constexprs["BLOCK_SIZE"]

    def add(a, b, c):
        case.kernel[(triton.cdiv(n, block), )](a, b, c, n, BLOCK_SIZE=block)

    return add, x, y, out


def test_do_bench_times_a_kernel(cuda_driver):
    n = 1 << 22
    add, x, y, out = vector_add(n)
    ms = triton.testing.do_bench(lambda: add(x, y, out), warmup=5, rep=20)
    assert ms > 0
    torch.testing.assert_close(out, x + y)
    print(f"vector_add_f32 ({n} elements) through the CUDA validation mode: {ms:.4f} ms")


def test_launches_are_captured_into_cuda_graphs(cuda_driver):
    # torch.cuda.graph records the launches (the launcher does not wait for a
    # capturing stream); each replay runs them again.
    add, x, y, out = vector_add(1 << 20)
    add(x, y, out)  # compiled before the capture, as do_bench_cudagraph does
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        add(x, out, out)  # out += x
    out.zero_()
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, 3 * x)
    ms = triton.testing.do_bench_cudagraph(lambda: add(x, y, out), rep=20)
    assert ms > 0
    torch.testing.assert_close(out, x + y)


def test_printing_kernels_are_not_captured(cuda_driver):
    values = torch.arange(128, dtype=torch.int32, device="cuda")
    language.print_kernel[(1, )](values, BLOCK=128, HEX=False)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(errors.TmetalError, match="prints or asserts, .* cannot be captured into a CUDA graph"):
        with torch.cuda.graph(graph):
            language.print_kernel[(1, )](values, BLOCK=128, HEX=False)


# The randomized reductions, scans, dots and shape operations (the same
# fixed cases as on the emulator), on the GPU: 32 lanes in lock step, real
# barriers and shuffles.
ON_CUDA = dict(to_device=lambda a: torch.from_numpy(a.copy()).cuda(), to_host=lambda t: t.cpu().numpy(),
               synchronize=torch.cuda.synchronize)


# Language features of Triton's own tests (test_plugin_language.py): bool
# tensors, pointer casts, 16-bit atomics sharing words, a spin lock, ...
ON_CUDA_LANGUAGE = language.Device(
    put=lambda a: torch.from_numpy(a.copy()).cuda(),
    put_bf16=lambda bits: torch.from_numpy(bits.astype(np.int16)).view(torch.bfloat16).cuda(),
    get=lambda t: t.cpu().numpy(), get_bf16=lambda t: t.cpu().view(torch.int16).numpy().astype(np.uint16),
    put_bits=lambda bits, dtype: triton.reinterpret(torch.from_numpy(bits.copy()).cuda(), dtype),
    get_bits=lambda t: t.base.cpu().numpy(),
    synchronize=torch.cuda.synchronize)


@pytest.mark.parametrize("name", list(language.CHECKS) + [f"float8:{n}" for n in float8.CHECKS])
def test_language_feature_on_cuda(cuda_driver, name):
    check = float8.CHECKS[name.split(":")[1]] if name.startswith("float8:") else language.CHECKS[name]
    check(ON_CUDA_LANGUAGE)


@pytest.mark.parametrize("name", list(libdevice.CHECKS))
def test_libdevice_on_cuda(cuda_driver, name):
    libdevice.CHECKS[name](ON_CUDA_LANGUAGE)


@pytest.mark.parametrize("case", random_reductions.CASES, ids=random_reductions._case_id)
def test_random_reduction_on_cuda(cuda_driver, case):
    random_reductions.run_case(case, **ON_CUDA)


@pytest.mark.parametrize("case", random_scans.CASES, ids=random_scans._case_id)
def test_random_scan_on_cuda(cuda_driver, case):
    random_scans.run_case(case, **ON_CUDA)


@pytest.mark.parametrize("case", random_dots.CASES, ids=random_dots._case_id)
def test_random_dot_on_cuda(cuda_driver, case):
    random_dots.run_case(case, **ON_CUDA,
                         bfloat16_to_device=lambda bits: torch.from_numpy(bits.view(np.int16).copy()).cuda().view(
                             torch.bfloat16))


@pytest.mark.parametrize("case", random_shapes.CASES + random_shapes.LARGE_CASES, ids=random_shapes._case_id)
def test_random_shape_operation_on_cuda(cuda_driver, case):
    random_shapes.run_case(case, **ON_CUDA)


@pytest.mark.parametrize("case", random_shapes.UNFLATTEN_CASES, ids=random_shapes._unflatten_id)
def test_random_unflatten_on_cuda(cuda_driver, case):
    random_shapes.run_unflatten(case, **ON_CUDA)


@pytest.mark.parametrize("case", random_shapes.TRANSPOSE_CASES, ids=random_shapes._transpose_id)
def test_random_transpose_on_cuda(cuda_driver, case):
    random_shapes.run_transpose(case, **ON_CUDA)


# Tiles past the threadgroup memory stored transposed or permuted: the
# streamed stores (lower_streamed_store.cpp), alone and in a loop.
@pytest.mark.parametrize("case", random_shapes.LARGE_TRANSPOSE_CASES, ids=random_shapes._transpose_id)
def test_a_transpose_past_the_threadgroup_memory_on_cuda(cuda_driver, case):
    random_shapes.run_transpose(case, **ON_CUDA)


@pytest.mark.parametrize("case", random_shapes.PERMUTE_3D_CASES, ids=random_shapes._permute_3d_id)
def test_a_permuted_3d_store_on_cuda(cuda_driver, case):
    random_shapes.run_permute_3d(case, **ON_CUDA)


@pytest.mark.parametrize("case", random_shapes.STREAMED_LOOP_CASES, ids=random_shapes._streamed_loop_id)
def test_streamed_stores_in_a_loop_on_cuda(cuda_driver, case):
    random_shapes.run_streamed_loop(case, **ON_CUDA)


def test_ops_past_the_threadgroup_memory_limit_reuse_buffers_on_cuda(cuda_driver):
    # Two 64x64 float32 dots: the second one's operands are pointers into the
    # first one's shared memory, written after a barrier (docs/codegen.md,
    # "Threadgroup memory").
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-4, 5, (64, 64)).astype(np.float32) for _ in range(2))
    out = torch.zeros((64, 64), device="cuda")
    compiled = two_dots_kernel[(1, )](torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), out, N=64)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), (a @ b) @ b)
    assert compiled.metadata.tmetal_abi["threadgroup_memory_bytes"] == 32768
    assert b"float* tg_dot_a0 = reinterpret_cast<float*>(tg_dot_a);" in compiled.asm["cuda"]
