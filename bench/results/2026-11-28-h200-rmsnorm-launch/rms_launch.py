"""RMSNorm 32768x1024 f16: is the do_bench gap the kernel or the launch? Triton's kernel by its own
launcher and by CuPy (its cubin), tmetal's CUDA by CuPy; timed with do_bench (L2 flushed) and as
100 back-to-back launches between two events."""
import sys, subprocess, os, re
import numpy as np, torch, triton, cupy
sys.path.insert(0, os.path.join(os.environ["TMETAL_ROOT"], "tests/kernels"))
import norms
here = os.path.dirname(os.path.abspath(__file__))
m, c = 32768, 1024
torch.manual_seed(0)
x = torch.randn(m, c, device="cuda", dtype=torch.float16)
w = (torch.rand(c, device="cuda") + 0.5).to(torch.float16)
ref = (x.double() * torch.rsqrt((x.double() ** 2).mean(1, keepdim=True) + 1e-6) * w.double()).half()
subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", "-Xptxas", "-O3", "-o", "/tmp/base.cubin", f"{here}/tmetal_rmsnorm.cu"], check=True)
base = cupy.RawModule(path="/tmp/base.cubin").get_function("rmsnorm_kernel")
tmp = torch.empty_like(x)
ck = norms.rmsnorm_kernel[(m // 4,)](x, w, tmp, m, c, 1e-6, BLOCK_M=4, BLOCK_N=1024, num_warps=4)
open("/tmp/triton.cubin", "wb").write(ck.asm["cubin"])
ptx = ck.asm["ptx"]
params = re.findall(r"\.param \.(\w+) ", ptx[ptx.index(".entry"):ptx.index("{", ptx.index(".entry"))])
print("triton params:", params, "shared:", ck.metadata.shared, "name:", ck.metadata.name)
tfunc = cupy.RawModule(path="/tmp/triton.cubin").get_function(ck.metadata.name)
def cp(t): return cupy.asarray(t)
def triton_cupy(out):
    vals = [cp(x), cp(w), cp(out), np.int32(m), np.int32(c), np.float32(1e-6)]
    args = []
    for i, p in enumerate(params):
        if i < len(vals): args.append(vals[i])
        else: args.append(np.uint64(0))
    tfunc((m // 4,), (128,), tuple(args), shared_mem=ck.metadata.shared)
def tmetal_cupy(out):
    base((m // 4,), (128,), (cp(x), cp(w), cp(out), np.int32(m), np.int32(c), np.float32(1e-6)))
def triton_own(out):
    norms.rmsnorm_kernel[(m // 4,)](x, w, out, m, c, 1e-6, BLOCK_M=4, BLOCK_N=1024, num_warps=4)
sides = {"triton": triton_own, "triton_cupy": triton_cupy, "tmetal_cupy": tmetal_cupy}
outs = {}
for name, fn in sides.items():
    out = torch.zeros_like(x); fn(out); torch.cuda.synchronize()
    print(f"{name}: max abs error {(out.float() - ref.float()).abs().max().item():.3g}")
    outs[name] = out
def loop(fn, out, n=100):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(10): fn(out)
    s.record()
    for _ in range(n): fn(out)
    e.record(); torch.cuda.synchronize()
    return s.elapsed_time(e) * 1000 / n
bench = {k: [] for k in sides}; loops = {k: [] for k in sides}
for r in range(int(sys.argv[1]) if len(sys.argv) > 1 else 7):
    for name, fn in sides.items():
        bench[name].append(triton.testing.do_bench(lambda: fn(outs[name]), warmup=10, rep=50) * 1000)
        loops[name].append(loop(fn, outs[name]))
for name in sides:
    print(f"{name}: do_bench median {np.median(bench[name]):.2f} us {[round(a, 2) for a in bench[name]]}; "
          f"back-to-back median {np.median(loops[name]):.2f} us {[round(a, 2) for a in loops[name]]}")
