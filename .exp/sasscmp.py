"""SASS of one suite case: Triton's own (sm_90) and tmetal's CUDA (nvcc -cubin sm_90).
usage: sasscmp.py CASE [--ptx]  -> writes /tmp/sass/CASE.{triton,tmetal}.sass"""
import os, subprocess, sys
from pathlib import Path
sys.path.insert(0, "/work/main/scripts")
import gen_ttir as g
from triton.compiler.compiler import ASTSource, make_backend
import triton

name = sys.argv[1]
out = Path("/tmp/sass"); out.mkdir(exist_ok=True)
if name.startswith("big_"):
    sys.path.insert(0, "/work/main/bench")
    import bench_kernels
    case = next(c for c in bench_kernels.larger_cases() if c.name == name).ttir_case()
    ttir_text = g.compile_to_ttir(case)[0]
    ttir_path = out / f"{name}.ttir"; ttir_path.write_text(ttir_text)
else:
    case = g.suite.get_case(name)
    ttir_path = f"/work/main/tests/ttir/{name}.ttir"
backend = make_backend(g.TARGET)
args = case.args()
options, signature, constexprs, attrs = g.specialize(case, backend, args)
src = ASTSource(case.kernel, signature, constexprs, attrs)
k = triton.compile(src, target=g.TARGET, options=options.__dict__ if hasattr(options, "__dict__") else options)
cubin = out / f"{name}.triton.cubin"; cubin.write_bytes(k.asm["cubin"])
(out / f"{name}.triton.ptx").write_text(k.asm["ptx"])
cuobj = str(Path(triton.__file__).parent / "backends/nvidia/bin/cuobjdump")
def sass(path):
    return subprocess.run([cuobj, "-sass", str(path)], capture_output=True, text=True, check=True).stdout
(out / f"{name}.triton.sass").write_text(sass(cubin))
cu = out / f"{name}.cu"
subprocess.run(["/work/main/build/bin/tmetal", "compile", str(ttir_path), "--target", "cuda",
                "--num-warps", str(case.num_warps), "-o", str(cu)], check=True)
flags = ["-arch=sm_90", "-std=c++17", "-I/usr/local/cuda/include", "-Xptxas", "-O3"]
subprocess.run(["/usr/local/cuda/bin/nvcc", "-cubin", *flags, "-o", str(out / f"{name}.tmetal.cubin"), str(cu)], check=True)
subprocess.run(["/usr/local/cuda/bin/nvcc", "-ptx", *flags, "-o", str(out / f"{name}.tmetal.ptx"), str(cu)], check=True)
(out / f"{name}.tmetal.sass").write_text(sass(out / f"{name}.tmetal.cubin"))
for side in ("triton", "tmetal"):
    lines = [l for l in (out / f"{name}.{side}.sass").read_text().splitlines() if "/*0" in l and ";" in l]
    print(side, len(lines), "instructions")
