"""gpu_bench suite with the CUDA source transformed (experiment only):
VARIANT=nomain deletes the loops over [0, *_main_end) (they never run when a
loop has fewer than 4 trips), VARIANT=nobounds drops __launch_bounds__'s minimum."""
import os, re, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import gpu_bench

def drop_main_loops(src):
    out, lines, i = [], src.split("\n"), 0
    while i < len(lines):
        l = lines[i]
        if re.match(r"\s*for \(int \w+ = 0; \w+ < \w+_main_end; ", l) and l.rstrip().endswith("{"):
            depth = l.count("{") - l.count("}")
            i += 1
            while depth > 0:
                depth += lines[i].count("{") - lines[i].count("}")
                i += 1
            if out and out[-1].strip().startswith("#pragma"): out.pop()
            continue
        out.append(l); i += 1
    return "\n".join(out)

orig = gpu_bench.TmetalCli.compile
def compile(self, *a, **k):
    c = orig(self, *a, **k)
    v = os.environ.get("VARIANT", "")
    s = c.source
    if "nomain" in v: s = drop_main_loops(s)
    if "nobounds" in v: s = re.sub(r"__launch_bounds__\((\d+), \d+\)", r"__launch_bounds__(\1)", s)
    if s != c.source:
        p = c.path.with_suffix(f".{v}.cu"); p.write_text(s)
        c = gpu_bench.Compiled(s, c.metadata, p)
    return c
gpu_bench.TmetalCli.compile = compile
sys.exit(gpu_bench.main())
