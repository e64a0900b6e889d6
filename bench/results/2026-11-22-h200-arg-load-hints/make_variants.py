# Makes the variants from v0_emitted.cu (the kernel tmetal emits), run in the variants folder.
import os
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "variants"))
import re
src = open("v0_emitted.cu").read()
load_old = "      int4 vec = *reinterpret_cast<const int4*>(&in_ptr[t15[8 * g]]);\n"
assert load_old in src
def ptxload(qual):
    return f'''      int4 vec;
      asm volatile("ld.global{qual}.v4.b32 {{%0,%1,%2,%3}}, [%4];" : "=r"(vec.x), "=r"(vec.y), "=r"(vec.z), "=r"(vec.w) : "l"(__cvta_generic_to_global(&in_ptr[t15[8 * g]])));
'''
open("v1_ptx.cu","w").write(src.replace(load_old, ptxload("")))
open("v2_l2_256.cu","w").write(src.replace(load_old, ptxload(".L2::256B")))
open("v3_nc_l2_256.cu","w").write(src.replace(load_old, ptxload(".nc.L1::no_allocate.L2::256B")))
open("v4_l2_128.cu","w").write(src.replace(load_old, ptxload(".L2::128B")))
# software pipeline: loads of trip i+1 issued before reducing trip i.
lo = src.index("  for (int i = 0; i < iterations; i += 1) {")
hi = src.index("    // 'tt.reduce' along axis 2", lo)
head = src[lo:hi]
def addr_block(ivar):
    return f'''    {{
      int i_ = {ivar};
      int t12_ = tmetal_min((i_ * splits + t) * sweep_vectors + idx0, row_vectors - 1);
      for (int g = 0; g < 2; ++g) {{
        const __half* p_ = &in_ptr[(t6[g] + t12_) * 8];
        asm volatile("ld.global%QUAL%.v4.b32 {{%0,%1,%2,%3}}, [%4];" : "=r"(nxt[g].x), "=r"(nxt[g].y), "=r"(nxt[g].z), "=r"(nxt[g].w) : "l"(__cvta_generic_to_global(p_)));
      }}
    }}
'''
body_start = '''  int4 nxt[2];
''' + addr_block("0").replace("    {", "  {", 1) + '''  for (int i = 0; i < iterations; i += 1) {
    int4 cur[2] = {nxt[0], nxt[1]};
    if (i + 1 < iterations)
''' + addr_block("i + 1") + '''    int t7 = i * splits;
    int t8 = t7 + t;
    int t9 = t8 * sweep_vectors;
    int t10 = t9 + idx0;
    int t11 = row_vectors - 1;
    int t12 = tmetal_min(t10, t11);
    int idx1[8];
    for (int r = 0; r < 8; ++r) idx1[r] = r;
    __half val[16];
    for (int g = 0; g < 2; ++g) {
      int4 vec = cur[g];
      val[8 * g] = tmetal_bitcast<tmetal_half2>(vec.x).x;
      val[8 * g + 1] = tmetal_bitcast<tmetal_half2>(vec.x).y;
      val[8 * g + 2] = tmetal_bitcast<tmetal_half2>(vec.y).x;
      val[8 * g + 3] = tmetal_bitcast<tmetal_half2>(vec.y).y;
      val[8 * g + 4] = tmetal_bitcast<tmetal_half2>(vec.z).x;
      val[8 * g + 5] = tmetal_bitcast<tmetal_half2>(vec.z).y;
      val[8 * g + 6] = tmetal_bitcast<tmetal_half2>(vec.w).x;
      val[8 * g + 7] = tmetal_bitcast<tmetal_half2>(vec.w).y;
    }
'''
pipe = src[:lo] + body_start + src[hi:]
open("v5_prefetch.cu","w").write(pipe.replace("%QUAL%", ""))
open("v6_prefetch_l2_256.cu","w").write(pipe.replace("%QUAL%", ".L2::256B"))
# 256-thread threadgroups (64 outputs each), with prefetch
def tg256(s):
    s = s.replace("__launch_bounds__(512)", "__launch_bounds__(256)")
    s = s.replace("idx[r] = L0_o0 + r * 64;", "idx[r] = L0_o0 + r * 32;")
    return "// launch 256 64\n" + s
open("v7_prefetch_tg256.cu","w").write(tg256(pipe.replace("%QUAL%", "")))
open("v8_tg256.cu","w").write(tg256(src))
open("v9_prefetch_l2_256_tg256.cu","w").write(tg256(pipe.replace("%QUAL%", ".L2::256B")))
# v5 and v6 held to 32 registers, for 4 threadgroups of 512 threads per core.
for name, base in (("v10_prefetch_lb4.cu", "v5_prefetch.cu"), ("v11_prefetch_l2_256_lb4.cu", "v6_prefetch_l2_256.cu")):
    open(name, "w").write(open(base).read().replace("__launch_bounds__(512)", "__launch_bounds__(512, 4)"))
