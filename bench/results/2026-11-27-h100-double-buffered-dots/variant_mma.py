"""gpu_bench suite with the big f16 matmul's CUDA transformed (experiment only).
VARIANT: comma list of
  dbuf  - two A/B staging buffers (C's staging shares their memory), one barrier a trip
  k16   - ldmatrix .x4 (four 8x8 tiles a load) and mma m16n8k16 (two K tiles a multiply)"""
import os, re, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import gpu_bench

HELPERS = r'''
__device__ __forceinline__ void x4_load(uint (&r)[4], const __half* p, bool transpose) {
  const uint a = uint(__cvta_generic_to_shared(p));
  if (transpose)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a) : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a) : "memory");
}
__device__ __forceinline__ void mac_k16(tmetal_float8x8& d0, tmetal_float8x8& d1, uint a0k0, uint a1k0, uint a0k1, uint a1k1, uint bk0, uint bk1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d0.x0), "+f"(d0.x1), "+f"(d1.x0), "+f"(d1.x1)
      : "r"(a0k0), "r"(a1k0), "r"(a0k1), "r"(a1k1), "r"(bk0), "r"(bk1));
}
'''

K16_LOOP = r'''    for (int kk0 = 0; kk0 < 32; kk0 += 16) {
      const int lane = threadIdx.x % 32u;
      uint a[2][4], b[2][4];
      #pragma unroll
      for (int h = 0; h < 2; ++h) {
        x4_load(a[h], tg_dot_ab + (dot_m0 + lane) * 40 + kk0 + h * 8, false);
        x4_load(b[h], (tg_dot_ab + 2560) + (kk0 + h * 8 + lane % 8) * 72 + dot_n0 + lane / 8 * 8, true);
      }
      #pragma unroll 8
      for (int t2 = 0; t2 < 8; ++t2) {
        const int mi = t2 / 4, j = t2 % 4;
        mac_k16(dot_c_tiles[mi * 8 + j], dot_c_tiles[mi * 8 + j + 4], a[0][mi * 2], a[0][mi * 2 + 1], a[1][mi * 2], a[1][mi * 2 + 1], b[0][j], b[1][j]);
      }
    }
'''

def transform(s, variant):
    n = 0
    for v in variant.split(","):
        if v.startswith("lb"):
            s, c = re.subn(r"__launch_bounds__\(128\)", f"__launch_bounds__(128, {v[2:]})", s)
            n += c
    if "k16" in variant:
        s = s.replace('\n\nextern "C" __global__', HELPERS + '\n\nextern "C" __global__', 1)
        s, c = re.subn(r"    for \(int kk0 = 0; kk0 < 32; kk0 \+= 8\) \{\n.*?\n    \}\n(?=    for \(int r = 0; r < 16; \+\+r\) a_ptrs_30)", lambda m: K16_LOOP, s, flags=re.S)
        n += c
    if "dbuf" in variant:
        old = "  __shared__ __align__(16) float tg_dot_c[4096];\n  __shared__ __align__(16) __half tg_dot_ab[4864];\n"
        assert old in s
        s = s.replace(old, "  __shared__ __align__(16) float tg_dot_c[4864];\n  __half* const tg_dot_ab_both = reinterpret_cast<__half*>(tg_dot_c);\n")
        s, c = re.subn(r"(// 'tt.dot' 64x64x32 [^\n]*\n)    __syncthreads\(\);\n", r"\1    __half* const tg_dot_ab = tg_dot_ab_both + (k0 & 1) * 4864;\n", s)
        n += c
    return s, n

orig = gpu_bench.TmetalCli.compile
def compile(self, *a, **k):
    c = orig(self, *a, **k)
    v = os.environ.get("VARIANT", "")
    if not ("tg_dot_ab[4864]" in c.source or "float tg_dot[4864]" in c.source) or not v:
        return c
    s, n = transform(c.source, v)
    print(f"[variant] {v}: {n} rewrites", file=sys.stderr)
    p = c.path.with_suffix(f".{v.replace(',', '-')}.cu"); p.write_text(s)
    return gpu_bench.Compiled(s, c.metadata, p)
gpu_bench.TmetalCli.compile = compile
if __name__ == "__main__":
    sys.exit(gpu_bench.main())
