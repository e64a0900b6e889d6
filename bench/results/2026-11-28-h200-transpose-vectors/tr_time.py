"""Transpose 8192x8192 f32 in 128x128 tiles, 4 warps: Triton's kernel and tmetal's CUDA variants
(variants.py; cubins built by nvcc here, ptxas -v printed), timed alternately with do_bench; --ncu: two launches each."""
import sys, subprocess, os
import numpy as np, torch, triton, cupy
sys.path.insert(0, os.path.join(os.environ["TMETAL_ROOT"], "tests/kernels"))
import linalg
here = os.path.dirname(os.path.abspath(__file__))
m = n = 8192
torch.manual_seed(0)
x = torch.randn(m, n, device="cuda", dtype=torch.float32)
ref = x.t().contiguous()
variants = sys.argv[2:]
subprocess.run([sys.executable, f"{here}/variants.py", f"{here}/tmetal_transpose_7e98288.cu", "/tmp", *variants], check=True)
funcs = {}
for v in variants:
    cub = f"/tmp/{v}.cubin"
    r = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", "-Xptxas", "-O3,-v", "-o", cub, f"/tmp/{v}.cu"],
                       capture_output=True, text=True)
    print(v, "ptxas:", " | ".join(l.strip() for l in r.stderr.splitlines() if "registers" in l or "spill" in l))
    if r.returncode: print(r.stderr[-2000:]); sys.exit(1)
    f = cupy.RawModule(path=cub).get_function("transpose_kernel")
    if "onepiece" in v:
        f.max_dynamic_shared_size_bytes = 65536
    funcs[v] = f
def run_tmetal(v, out):
    funcs[v]((m // 128, n // 128), (128,), (cupy.asarray(x), cupy.asarray(out), np.int32(m), np.int32(n)),
             shared_mem=65536 if "onepiece" in v else 0)
def run_triton(out):
    return linalg.transpose_kernel[(m // 128, n // 128)](x, out, m, n, BLOCK_M=128, BLOCK_N=128, num_warps=4)
k = run_triton(torch.empty_like(ref))
print(f"triton: registers {k.n_regs}, spills {k.n_spills}, shared {k.metadata.shared} bytes")
sides = {"triton": run_triton, **{v: (lambda out, v=v: run_tmetal(v, out)) for v in variants}}
outs = {}
for name, fn in sides.items():
    out = torch.zeros_like(ref); fn(out); torch.cuda.synchronize()
    print(f"{name}: exact {bool(torch.equal(out, ref))}")
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
    print(f"{name}: median {np.median(t):.1f} us  rounds {[round(a, 1) for a in t]}")
