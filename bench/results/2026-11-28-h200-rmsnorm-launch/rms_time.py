"""RMSNorm 32768x1024 f16: Triton's kernel and tmetal's CUDA variants (cubins built by nvcc here),
timed alternately with triton.testing.do_bench; or, with --ncu, each launched twice for ncu."""
import sys, subprocess, os
import numpy as np, torch, triton, cupy
sys.path.insert(0, os.path.join(os.environ["TMETAL_ROOT"], "tests/kernels"))
import norms
here = os.path.dirname(os.path.abspath(__file__))
m, c = 32768, 1024
torch.manual_seed(0)
x = torch.randn(m, c, device="cuda", dtype=torch.float16)
w = (torch.rand(c, device="cuda") + 0.5).to(torch.float16)
ref = (x.double() * torch.rsqrt((x.double() ** 2).mean(1, keepdim=True) + 1e-6) * w.double()).half()
variants = sys.argv[2:] if len(sys.argv) > 2 else ["base", "xwarp", "store"]
funcs = {}
for v in variants:
    cub = f"/tmp/{v}.cubin"
    source = f"{here}/tmetal_rmsnorm.cu"
    if v != "base":  # the variant: tmetal's source with {v}.patch applied, written to /tmp
        source = f"/tmp/tmetal_rmsnorm_{v}.cu"
        subprocess.run(["patch", "-o", source, f"{here}/tmetal_rmsnorm.cu", f"{here}/{v}.patch"], check=True)
    subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", "-Xptxas", "-O3", "-o", cub, source], check=True)
    funcs[v] = cupy.RawModule(path=cub).get_function("rmsnorm_kernel")
outs = {}
def run_tmetal(v, out):
    funcs[v]((m // 4,), (128,), (cupy.asarray(x), cupy.asarray(w), cupy.asarray(out), np.int32(m), np.int32(c), np.float32(1e-6)))
def run_triton(out):
    norms.rmsnorm_kernel[(m // 4,)](x, w, out, m, c, 1e-6, BLOCK_M=4, BLOCK_N=1024, num_warps=4)
sides = {"triton": run_triton, **{v: (lambda out, v=v: run_tmetal(v, out)) for v in variants}}
for name, fn in sides.items():
    out = torch.zeros_like(x); fn(out); torch.cuda.synchronize()
    err = (out.float() - ref.float()).abs().max().item()
    print(f"{name}: max abs error {err:.3g}")
    outs[name] = out
if sys.argv[1] == "--ncu":
    for _ in range(2):
        for name, fn in sides.items():
            fn(outs[name])
    torch.cuda.synchronize()
    sys.exit(0)
times = {k: [] for k in sides}
for r in range(int(sys.argv[1])):
    for name, fn in sides.items():
        times[name].append(triton.testing.do_bench(lambda: fn(outs[name]), warmup=10, rep=50) * 1000)
for name, t in times.items():
    print(f"{name}: median {np.median(t):.2f} us  rounds {[round(a, 2) for a in t]}")
