"""Experiment: per suite case, time tmetal's kernel (cupy launch), Triton's kernel through
Triton's launcher, and Triton's cubin through the same cupy launch as tmetal's. Rounds alternate."""
import json, sys
sys.path[:0] = ["bench", "tests/kernels", "scripts"]
import numpy as np
import gpu_bench

ROUNDS = 5


class Cmp(gpu_bench.SuiteBench):
    def one(self, row, case, config, manifest):
        path = gpu_bench.REPO_ROOT / "tests" / "ttir" / f"{case.name}.ttir"
        entry = manifest[case.name]
        compiled = self.cli.compile(path, "COALESCED", case.num_warps)
        args = case.args()
        expected = case.expected(args)
        dtypes = {a["name"]: a["dtype"] for a in entry["args"]}
        launches = {}
        launches["tmetal"] = self.side_tmetal(case, compiled, entry, args, expected, dtypes)[0]
        launches["triton"] = self.side_triton(case, args, expected, dtypes)[0]
        # Triton's cubin, launched like tmetal's
        device = self.device_arrays(case, args, dtypes)
        kwargs = {k: (device[k][1] if k in device else v) for k, v in args.items()}
        ck = case.kernel[case.grid](**kwargs, **case.constexprs, num_warps=case.num_warps)
        self.gpu.synchronize()
        mod = self.gpu.cupy.cuda.function.Module()
        mod.load(ck.asm["cubin"])
        fn = mod.get_function(ck.metadata.name)
        values = {k: (device[k][0] if k in device else v) for k, v in args.items()}
        kargs = tuple(gpu_bench.launch_args(compiled.metadata, entry["args"], values)) + (np.uint64(0), np.uint64(0))
        grid = tuple(list(case.grid) + [1] * (3 - len(case.grid)))
        block = (32 * case.num_warps, 1, 1)
        shared = int(ck.metadata.shared)

        def tc():
            fn(grid, block, kargs, shared_mem=shared)

        tc()
        self.gpu.synchronize()
        ok, check = self.check_outputs(case, args, device, expected)
        row["triton_cupy_correct"] = ok
        times = {k: [] for k in ("tmetal", "triton", "triton_cupy")}
        launches["triton_cupy"] = tc
        order = list(times)
        for r in range(ROUNDS):
            for side in (order if r % 2 == 0 else order[::-1]):
                times[side].append(self.gpu.bench_ms(launches[side]) * 1e3)
        for side, ts in times.items():
            row[f"{side}_us"] = round(float(np.median(ts)), 3)
        row["regs"] = {"triton": ck.n_regs if hasattr(ck, "n_regs") else None, "shared": shared,
                       "tmetal_threads": compiled.threads}
        row["line"] = " ".join(f"{k} {row[k + '_us']:.3f}" for k in times) + f" ok={ok}"
        return "ok"


args = gpu_bench.build_parser().parse_args(["suite", "--no-large"] + sys.argv[1:])
args.l2_flush = "dirty"
bench = Cmp(args, "suite", {})
bench.run()
