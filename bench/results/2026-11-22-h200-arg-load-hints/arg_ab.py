"""Times hand-edited variants of the f16 argmax 512^3 axis-2 row kernel (variants/*.cu, or the folder given) with the graph bench's clean-L2 timing."""
import sys, os, glob, statistics
sys.path.insert(0, "bench")
import gpu_bench
import torch, cupy
gpu = gpu_bench.Gpu(10, 60, "clean")
print(gpu.describe(), flush=True)
copy = gpu.copy_bandwidth_gbs()
print(f"copy {copy:.0f} GB/s", flush=True)
torch.manual_seed(0)
x = (torch.randint(-2000, 2000, (512, 512, 512), device="cuda", dtype=torch.int16).to(torch.float16))
ref = torch.argmax(x, dim=2).to(torch.int32)
opts = ("--std=c++17", "-I/usr/local/cuda/include", "--ftz=false", "--prec-div=true", "--prec-sqrt=true", "--gpu-architecture=sm_90")
fns = {"torch": lambda: torch.argmax(x, dim=2)}
VARIANTS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "variants")
for path in sorted(glob.glob(os.path.join(VARIANTS, "*.cu"))):
    name = os.path.basename(path)[:-3]
    src = open(path).read()
    block, opb = 512, 128
    if src.startswith("// launch "):
        block, opb = map(int, src.split("\n", 1)[0].split()[2:4])
    grid = 262144 // opb
    mod = cupy.RawModule(code=src, options=opts)
    f = mod.get_function("argmax_f16_rows")
    out = torch.full((512, 512), -1, device="cuda", dtype=torch.int32)
    i32 = cupy.int32
    args = (cupy.uint64(x.data_ptr()), cupy.uint64(out.data_ptr()), i32(262144), i32(opb), i32(8), i32(64), i32(1), i32(8), i32(64), i32(1), i32(1), i32(1))
    def run(f=f, args=args, grid=grid, block=block):
        f((grid, 1, 1), (block, 1, 1), args)
    run(); torch.cuda.synchronize()
    ok = torch.equal(out, ref)
    print(f"{name}: regs {f.num_regs}, grid {grid}x{block}, correct {ok}", flush=True)
    if ok:
        fns[name] = run
res = {k: [] for k in fns}
for rnd in range(int(os.environ.get("ROUNDS", "5"))):
    for k, fn in fns.items():
        res[k].append(gpu.bench_ms(fn) * 1e3)
nbytes = 512**3 * 2
for k, v in res.items():
    m = statistics.median(v)
    print(f"{k:28s} " + " ".join(f"{t:6.2f}" for t in v) + f"  median {m:6.2f} us  {nbytes/m/1e3:7.0f} GB/s  {100*nbytes/m/1e3/copy:5.1f}% of copy", flush=True)
