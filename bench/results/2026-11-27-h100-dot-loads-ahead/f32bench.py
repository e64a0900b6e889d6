"""Experiment only: gpu_bench suite with an extra float32 2048^3 matmul config (FMA path)."""
import sys
from pathlib import Path
import numpy as np
root = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(root / "bench"), str(root / "tests" / "kernels")]
import bench_kernels, gpu_bench, linalg
from bench_kernels import BenchConfig, Arr
from triton import cdiv
orig = bench_kernels.larger_cases
def larger_cases():
    cs = orig()
    s = 2048
    cs.append(BenchConfig(
        name="big_matmul_f32_2048", kernel=linalg.matmul_kernel,
        args={"a_ptr": Arr((s, s), "float32"), "b_ptr": Arr((s, s), "float32"), "c_ptr": Arr((s, s), "float32", "zeros"),
              "M": s, "N": s, "K": s, "stride_am": s, "stride_ak": 1, "stride_bk": s, "stride_bn": 1,
              "stride_cm": s, "stride_cn": 1}, grid=(cdiv(s, 64), cdiv(s, 64)),
        constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, outputs=("c_ptr", ),
        reference=lambda a: {"c_ptr": (a["a_ptr"].astype(np.float64) @ a["b_ptr"].astype(np.float64)).astype(np.float32)},
        tolerances={"fp32": (1e-2, 1e-2)}))
    return cs
bench_kernels.larger_cases = larger_cases
sys.exit(gpu_bench.main())
