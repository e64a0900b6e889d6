"""RMSNorm 32768x1024 f16: does the time follow the kernel or the buffers? Triton's kernel (its own
launcher, and its cubin through CuPy) and tmetal's CUDA (nvcc cubin through CuPy), each timed with
do_bench on every pair of two inputs and two outputs (separately allocated, same values)."""
import sys, subprocess, os, itertools
import numpy as np, torch, triton, cupy
sys.path.insert(0, os.path.join(os.environ["TMETAL_ROOT"], "tests/kernels"))
import norms
here = os.path.dirname(os.path.abspath(__file__))
m, c = 32768, 1024
torch.manual_seed(0)
x0 = torch.randn(m, c, device="cuda", dtype=torch.float16)
pad = torch.empty(3 << 20, device="cuda", dtype=torch.uint8)  # a different placement for the second copy
xs = [x0, x0.clone()]
w = (torch.rand(c, device="cuda") + 0.5).to(torch.float16)
outs = [torch.empty_like(x0) for _ in range(2)]
subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", "-Xptxas", "-O3", "-o", "/tmp/base.cubin", f"{here}/tmetal_rmsnorm.cu"], check=True)
base = cupy.RawModule(path="/tmp/base.cubin").get_function("rmsnorm_kernel")
ck = norms.rmsnorm_kernel[(m // 4,)](x0, w, outs[0], m, c, 1e-6, BLOCK_M=4, BLOCK_N=1024, num_warps=4)
open("/tmp/triton.cubin", "wb").write(ck.asm["cubin"])
tfunc = cupy.RawModule(path="/tmp/triton.cubin").get_function(ck.metadata.name)
cw = cupy.asarray(w)
cx = [cupy.asarray(x) for x in xs]; co = [cupy.asarray(o) for o in outs]
def triton_own(i, j):
    norms.rmsnorm_kernel[(m // 4,)](xs[i], w, outs[j], m, c, 1e-6, BLOCK_M=4, BLOCK_N=1024, num_warps=4)
def triton_cupy(i, j):
    tfunc((m // 4,), (128,), (cx[i], cw, co[j], np.int32(m), np.int32(c), np.float32(1e-6), np.uint64(0), np.uint64(0)),
          shared_mem=ck.metadata.shared)
def tmetal_cupy(i, j):
    base((m // 4,), (128,), (cx[i], cw, co[j], np.int32(m), np.int32(c), np.float32(1e-6)))
sides = {"triton": triton_own, "triton_cupy": triton_cupy, "tmetal_cupy": tmetal_cupy}
ref = (x0.double() * torch.rsqrt((x0.double() ** 2).mean(1, keepdim=True) + 1e-6) * w.double()).half()
for name, fn in sides.items():
    outs[1].zero_(); fn(1, 1); torch.cuda.synchronize()
    print(f"{name}: max abs error {(outs[1].float() - ref.float()).abs().max().item():.3g}")
pairs = list(itertools.product(range(2), range(2)))
t = {(s, p): [] for s in sides for p in pairs}
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
for r in range(rounds):
    for p in pairs:
        order = list(sides) if r % 2 == 0 else list(sides)[::-1]
        for s in order:
            t[(s, p)].append(triton.testing.do_bench(lambda: sides[s](*p), warmup=10, rep=50) * 1000)
print("median us (rounds) per side and (input, output) pair")
for p in pairs:
    print(f"x{p[0]} out{p[1]}: " + "  ".join(f"{s} {np.median(t[(s, p)]):.2f}" for s in sides))
for s in sides:
    allv = sum((t[(s, p)] for p in pairs), [])
    print(f"{s}: median over all {np.median(allv):.2f} us, min {min(allv):.2f}, max {max(allv):.2f}; "
          + "; ".join(f"x{p[0]}o{p[1]} {[round(v, 2) for v in t[(s, p)]]}" for p in pairs))
