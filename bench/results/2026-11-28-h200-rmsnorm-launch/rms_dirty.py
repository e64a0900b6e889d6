"""RMSNorm 32768x1024 f16, Triton's kernel and tmetal's (tmetal_rmsnorm.cu, nvcc): each launch after a 256 MB memset
(do_bench's flush, the L2 left dirty), for `ncu --cache-control none --replay-mode application`."""
import sys, subprocess, os
import numpy as np, torch, cupy
sys.path.insert(0, os.path.join(os.environ["TMETAL_ROOT"], "tests/kernels"))
import norms
here = os.path.dirname(os.path.abspath(__file__))
m, c = 32768, 1024
torch.manual_seed(0)
x = torch.randn(m, c, device="cuda", dtype=torch.float16)
w = (torch.rand(c, device="cuda") + 0.5).to(torch.float16)
subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", "-Xptxas", "-O3", "-o", "/tmp/base.cubin",
                f"{here}/tmetal_rmsnorm.cu"], check=True)
f = cupy.RawModule(path="/tmp/base.cubin").get_function("rmsnorm_kernel")
flush = torch.empty(64 * 2**20, dtype=torch.int32, device="cuda")
out_t, out_m = torch.zeros_like(x), torch.zeros_like(x)
def tmetal():
    f((m // 4,), (128,), (x.data_ptr(), w.data_ptr(), out_m.data_ptr(), np.int32(m), np.int32(c), np.float32(1e-6)))
def triton_side():
    norms.rmsnorm_kernel[(m // 4,)](x, w, out_t, m, c, 1e-6, BLOCK_M=4, BLOCK_N=1024, num_warps=4)
for fn in (triton_side, tmetal, triton_side, tmetal):
    flush.zero_()
    torch.cuda.synchronize()
    fn()
    torch.cuda.synchronize()
print("max diff", (out_t.float() - out_m.float()).abs().max().item())
