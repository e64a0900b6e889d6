"""gpu_bench suite with the CUDA source transformed (experiment only):
VARIANT=vecstage writes the dot's staging of 8 contiguous halves as one 16-byte store."""
import os, re, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import gpu_bench

PAT = re.compile(r"for \(int r = 0; r < (\d+); \+\+r\) (\w+)\[(\d+ \+ )?\((\w+) \+ r % 8 \+ \(r / 8\) \* (\d+)\) \+ \(\4 \+ r % 8 \+ \(r / 8\) \* \5\) / (\d+) \* 8\] = (\w+)\[r\];")

def vec(m):
    n, buf, off, at, gstride, row, src = m.groups()
    off = off or ""
    h = lambda i: f"tmetal_bitcast<int>(tmetal_half2({src}[8 * g + {i}], {src}[8 * g + {i + 1}]))"
    return (f"for (int g = 0; g < {int(n) // 8}; ++g) {{ const int e = {at} + g * {gstride}; "
            f"*reinterpret_cast<int4*>(&{buf}[{off}e + e / {row} * 8]) = int4{{{h(0)}, {h(2)}, {h(4)}, {h(6)}}}; }}")

orig = gpu_bench.TmetalCli.compile
def compile(self, *a, **k):
    c = orig(self, *a, **k)
    v = os.environ.get("VARIANT", "")
    s = c.source
    if "vecstage" in v:
        s, count = PAT.subn(vec, s)
        print(f"[variant] {count} staging loops vectorized", file=sys.stderr)
    if s != c.source:
        p = c.path.with_suffix(f".{v}.cu"); p.write_text(s)
        c = gpu_bench.Compiled(s, c.metadata, p)
    return c
gpu_bench.TmetalCli.compile = compile
sys.exit(gpu_bench.main())
