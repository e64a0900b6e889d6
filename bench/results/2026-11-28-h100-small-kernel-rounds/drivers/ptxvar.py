"""Experiment: tmetal's kernel as NVRTC's cubin, and its NVRTC PTX assembled by Triton's ptxas
(sm_90 / sm_90a, .maxntid or .reqntid), against Triton's cubin; all launched by cupy, rounds alternate."""
import re, subprocess, sys, glob, os
sys.path[:0] = ["bench", "tests/kernels", "scripts"]
import numpy as np
import gpu_bench
import triton

ROUNDS = 5
PTXAS = glob.glob(os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/ptxas"))[0]


class Var(gpu_bench.SuiteBench):
    def one(self, row, case, config, manifest):
        path = gpu_bench.REPO_ROOT / "tests" / "ttir" / f"{case.name}.ttir"
        entry = manifest[case.name]
        compiled = self.cli.compile(path, "COALESCED", case.num_warps)
        args = case.args()
        expected = case.expected(args)
        dtypes = {a["name"]: a["dtype"] for a in entry["args"]}
        from cupy_backends.cuda.libs import nvrtc
        loaded = self.gpu.load(compiled)  # settles the include path
        name = compiled.metadata["kernel"]
        prog = nvrtc.createProgram(compiled.source, f"{name}.cu", (), ())
        nvrtc.compileProgram(prog, self.gpu._nvrtc_options())
        ptx = nvrtc.getPTX(prog)
        ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
        nvrtc.destroyProgram(prog)
        work = f"/tmp/ptxvar/{case.name}"
        os.makedirs(work, exist_ok=True)
        variants = {}
        for label, arch, req in (("ptxas90a", "sm_90a", False), ):
            text = re.sub(r"^\.version \d+\.\d+", ".version 8.7", ptx, flags=re.M)  # Triton's ptxas is 12.8
            if arch == "sm_90a":
                text = re.sub(r"\.target sm_90\b", ".target sm_90a", text)
            if req:
                text = text.replace(".maxntid", ".reqntid")
            open(f"{work}/{label}.ptx", "w").write(text)
            subprocess.run([PTXAS, f"-arch={arch}", "-O3", f"{work}/{label}.ptx", "-o", f"{work}/{label}.cubin"], check=True)
            variants[label] = open(f"{work}/{label}.cubin", "rb").read()
        device = self.device_arrays(case, args, dtypes)
        values = {k: (device[k][0] if k in device else v) for k, v in args.items()}
        kargs = tuple(gpu_bench.launch_args(compiled.metadata, entry["args"], values))
        grid = tuple(list(case.grid) + [1] * (3 - len(case.grid)))
        block = (compiled.threads, 1, 1)
        launches = {"nvrtc": (lambda f=loaded: f(grid, block, kargs))}
        for label, cubin in variants.items():
            mod = self.gpu.cupy.cuda.function.Module()
            mod.load(cubin)
            f = mod.get_function(name)
            launches[label] = (lambda f=f, mod=mod: f(grid, block, kargs))
        # Triton's cubin
        tdev = self.device_arrays(case, args, dtypes)
        kwargs = {k: (tdev[k][1] if k in tdev else v) for k, v in args.items()}
        ck = case.kernel[case.grid](**kwargs, **case.constexprs, num_warps=case.num_warps)
        mod = self.gpu.cupy.cuda.function.Module()
        mod.load(ck.asm["cubin"])
        tf = mod.get_function(ck.metadata.name)
        tvalues = {k: (tdev[k][0] if k in tdev else v) for k, v in args.items()}
        targs = tuple(gpu_bench.launch_args(compiled.metadata, entry["args"], tvalues)) + (np.uint64(0), np.uint64(0))
        shared = int(ck.metadata.shared)
        launches["triton_cupy"] = lambda: tf(grid, (32 * case.num_warps, 1, 1), targs, shared_mem=shared)
        # the same two kernels on each other's buffers
        oargs = tuple(gpu_bench.launch_args(compiled.metadata, entry["args"], values)) + (np.uint64(0), np.uint64(0))
        launches["triton_cupy_on_tmetal_buffers"] = lambda: tf(grid, (32 * case.num_warps, 1, 1), oargs, shared_mem=shared)
        nargs = tuple(gpu_bench.launch_args(compiled.metadata, entry["args"], tvalues))
        launches["nvrtc_on_triton_buffers"] = lambda: loaded(grid, block, nargs)
        oks = []
        for label, fn in launches.items():
            fn()
            self.gpu.synchronize()
            ok, check = self.check_outputs(case, args, tdev if label in ("triton_cupy", "nvrtc_on_triton_buffers") else device, expected)
            oks.append(ok)
        times = {k: [] for k in launches}
        order = list(launches)
        for r in range(ROUNDS):
            for side in (order if r % 2 == 0 else order[::-1]):
                times[side].append(self.gpu.bench_ms(launches[side]) * 1e3)
        for side, ts in times.items():
            row[f"{side}_us"] = round(float(np.median(ts)), 3)
        row["line"] = " ".join(f"{k} {row[k + '_us']:.3f}" for k in times) + f" ok={all(oks)}"
        return "ok"


args = gpu_bench.build_parser().parse_args(["suite", "--no-large"] + sys.argv[1:])
args.l2_flush = "dirty"
Var(args, "suite", {}).run()
