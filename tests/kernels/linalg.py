"""Matrix kernels: tl.dot matmul (f16 in, f32 accumulate) with pointer
arithmetic and with block pointers, fused attention's forward pass (and its
causal form in two loops), transpose with tl.trans, reshape."""
import numpy as np
import triton
import triton.language as tl

from suite import Case, cdiv, register

# Products of f16 inputs are exact in f32; only the summation order of K
# terms may differ.
DOT_TOLERANCES = {"fp32": (1e-5, 1e-5), "fp16": (1e-3, 1e-3)}

# ---------------------------------------------------------------------------


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A @ B with masks on every edge; 2-D grid of output tiles."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_remaining = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_remaining), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_remaining) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def _matmul_args(rng):
    m, n, k = 50, 40, 70
    return {
        "a_ptr": rng.uniform(-1, 1, (m, k)).astype(np.float16),
        "b_ptr": rng.uniform(-1, 1, (k, n)).astype(np.float16),
        "c_ptr": np.zeros((m, n), np.float32),
        "M": m, "N": n, "K": k,
        # Row-major A and B: their unit strides become constexpr 1.
        "stride_am": k, "stride_ak": 1,
        "stride_bk": n, "stride_bn": 1,
        "stride_cm": n, "stride_cn": 1,
    }


def _matmul_ref(a):
    return {"c_ptr": (a["a_ptr"].astype(np.float64) @ a["b_ptr"].astype(np.float64)).astype(np.float32)}


register(Case(name="matmul_f16_f32acc", kernel=matmul_kernel, make_args=_matmul_args,
              grid=(cdiv(50, 32), cdiv(40, 16)), constexprs={"BLOCK_M": 32, "BLOCK_N": 16, "BLOCK_K": 32},
              reference=_matmul_ref, outputs=("c_ptr", ), tolerances=DOT_TOLERANCES))

# ---------------------------------------------------------------------------


@triton.jit
def matmul_block_ptr_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                            stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A @ B through block pointers: boundary checks and zero padding
    replace masks, tl.advance walks K; f16 result."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_block, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                                order=(1, 0))
    tl.store(c_block, acc.to(tl.float16), boundary_check=(0, 1))


def _matmul_bp_args(rng):
    m, n, k = 40, 72, 48
    # B is stored column-major (its transpose is row-major), so its strides
    # differ from A's.
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    return {
        "a_ptr": rng.uniform(-1, 1, (m, k)).astype(np.float16),
        "b_ptr": np.ascontiguousarray(b.T),
        "c_ptr": np.zeros((m, n), np.float16),
        "M": m, "N": n, "K": k,
        "stride_am": k, "stride_ak": 1,
        "stride_bk": 1, "stride_bn": k,
        "stride_cm": n, "stride_cn": 1,
    }


def _matmul_bp_ref(a):
    b = a["b_ptr"].T.astype(np.float64)
    return {"c_ptr": (a["a_ptr"].astype(np.float64) @ b).astype(np.float16)}


register(Case(name="matmul_block_ptr_f16", kernel=matmul_block_ptr_kernel, make_args=_matmul_bp_args,
              grid=(cdiv(40, 32), cdiv(72, 32)), constexprs={"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16},
              reference=_matmul_bp_ref, outputs=("c_ptr", ), tolerances=DOT_TOLERANCES))


@triton.jit
def attention_forward_kernel(q_ptr, k_ptr, v_ptr, out_ptr, seq_len, scale, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr, HEAD: tl.constexpr):
    """The forward pass of Triton's fused-attention tutorial: program (i, h)
    takes BLOCK_M queries of head h (heads one after another, each seq_len x
    HEAD); two dots a trip (Q K^T, then P V) around an online softmax."""
    head = tl.program_id(1) * seq_len * HEAD
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD)
    q = tl.load(q_ptr + head + rm[:, None] * HEAD + rd[None, :])
    m_i = tl.full((BLOCK_M, ), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M, ), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD), tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        rn = start + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + head + rn[None, :] * HEAD + rd[:, None])  # K^T
        qk = tl.dot(q, k) * scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + head + rn[:, None] * HEAD + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(out_ptr + head + rm[:, None] * HEAD + rd[None, :], acc / l_i[:, None])


def attention_reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float) -> np.ndarray:
    """softmax(Q K^T * scale) V per head (the leading axis), in float64."""
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * scale
    p = np.exp(s - s.max(axis=2, keepdims=True))
    return (p / p.sum(axis=2, keepdims=True)) @ v.astype(np.float64)


def _attention_args(rng):
    heads, seq, head = 2, 128, 32
    q, k, v = (rng.standard_normal((heads, seq, head)).astype(np.float16) for _ in range(3))
    return {"q_ptr": q, "k_ptr": k, "v_ptr": v, "out_ptr": np.zeros((heads, seq, head), np.float32),
            "seq_len": seq, "scale": float(1.0 / np.sqrt(head))}


# P is rounded to float16 before the second dot, as in the tutorial: about
# 1e-4 off the float64 reference.
register(Case(name="attention_fwd_f16", kernel=attention_forward_kernel, make_args=_attention_args, grid=(4, 2),
              constexprs={"BLOCK_M": 32, "BLOCK_N": 32, "HEAD": 32},
              reference=lambda a: {"out_ptr": attention_reference(a["q_ptr"], a["k_ptr"], a["v_ptr"],
                                                                   a["scale"]).astype(np.float32)},
              outputs=("out_ptr", ), tolerances={"fp32": (1e-3, 5e-4)}))

# ---------------------------------------------------------------------------


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """out[N, M] = x[M, N]^T, tile by tile with tl.trans; 2-D grid."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < N))
    flipped = tl.trans(tile)
    tl.store(out_ptr + cols[:, None] * M + rows[None, :], flipped, mask=(cols[:, None] < N) & (rows[None, :] < M))


def _transpose_args(rng):
    m, n = 100, 60
    return {"x_ptr": rng.integers(-1000, 1000, (m, n)).astype(np.int32), "out_ptr": np.zeros((n, m), np.int32),
            "M": m, "N": n}


register(Case(name="transpose_i32", kernel=transpose_kernel, make_args=_transpose_args,
              grid=(cdiv(100, 32), cdiv(60, 16)), constexprs={"BLOCK_M": 32, "BLOCK_N": 16},
              reference=lambda a: {"out_ptr": np.ascontiguousarray(a["x_ptr"].T)}, outputs=("out_ptr", )))

# ---------------------------------------------------------------------------


@triton.jit
def reshape_kernel(x_ptr, group_sum_ptr, permuted_ptr, GROUPS: tl.constexpr, GROUP_SIZE: tl.constexpr):
    """A flat block reshaped to [GROUPS, GROUP_SIZE]: per-group sums, and the
    3-D reshape [2, GROUPS//2, GROUP_SIZE] permuted to [GROUP_SIZE, 2, GROUPS//2]
    and flattened again."""
    pid = tl.program_id(0)
    flat = tl.arange(0, GROUPS * GROUP_SIZE)
    x = tl.load(x_ptr + pid * GROUPS * GROUP_SIZE + flat)
    grouped = tl.reshape(x, (GROUPS, GROUP_SIZE))
    tl.store(group_sum_ptr + pid * GROUPS + tl.arange(0, GROUPS), tl.sum(grouped, axis=1))
    cube = tl.reshape(x, (2, GROUPS // 2, GROUP_SIZE))
    permuted = tl.permute(cube, (2, 0, 1))
    tl.store(permuted_ptr + pid * GROUPS * GROUP_SIZE + flat, tl.reshape(permuted, (GROUPS * GROUP_SIZE, )))


def _reshape_args(rng):
    programs, groups, size = 3, 8, 16
    return {"x_ptr": rng.integers(-50, 50, programs * groups * size).astype(np.float32),
            "group_sum_ptr": np.zeros(programs * groups, np.float32),
            "permuted_ptr": np.zeros(programs * groups * size, np.float32)}


def _reshape_ref(a):
    x = a["x_ptr"].reshape(3, 8, 16)
    permuted = x.reshape(3, 2, 4, 16).transpose(0, 3, 1, 2)
    return {"group_sum_ptr": x.sum(axis=2).reshape(-1), "permuted_ptr": permuted.reshape(-1).copy()}


register(Case(name="reshape_permute", kernel=reshape_kernel, make_args=_reshape_args, grid=(3, ),
              constexprs={"GROUPS": 8, "GROUP_SIZE": 16}, reference=_reshape_ref,
              outputs=("group_sum_ptr", "permuted_ptr"), tolerances={"fp32": (0.0, 0.0)}))


# ---------------------------------------------------------------------------
# Not a suite case: bench/bench_kernels.py and the plugin checks use it.


@triton.jit
def _causal_attention_blocks(acc, l_i, m_i, q, k_ptr, v_ptr, head, rm, rd, lo, hi, qk_scale, BLOCK_N: tl.constexpr,
                             HEAD: tl.constexpr, ON_BAND: tl.constexpr):
    for start in range(lo, hi, BLOCK_N):
        rn = start + tl.arange(0, BLOCK_N)
        qk = tl.dot(q, tl.load(k_ptr + head + rn[None, :] * HEAD + rd[:, None]))  # Q K^T
        if ON_BAND:
            qk = qk * qk_scale + tl.where(rm[:, None] >= rn[None, :], 0, -1.0e6)
            m_new = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_new[:, None]
        else:
            m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_new[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + head + rn[:, None] * HEAD + rd[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def causal_attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, seq_len, scale, BLOCK_M: tl.constexpr,
                            BLOCK_N: tl.constexpr, HEAD: tl.constexpr):
    """The causal forward pass as Triton's fused-attention tutorial writes
    it (BLOCK_M a multiple of BLOCK_N): the key blocks left of the diagonal
    in one loop, the diagonal block, masked, in a second loop after it; two
    dots a trip in each."""
    head = tl.program_id(1) * seq_len * HEAD
    start_m = tl.program_id(0) * BLOCK_M
    rm = start_m + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD)
    q = tl.load(q_ptr + head + rm[:, None] * HEAD + rd[None, :])
    m_i = tl.full((BLOCK_M, ), float("-inf"), tl.float32)
    l_i = tl.full((BLOCK_M, ), 1.0, tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD), tl.float32)
    qk_scale = scale * 1.44269504  # 1/log(2)
    acc, l_i, m_i = _causal_attention_blocks(acc, l_i, m_i, q, k_ptr, v_ptr, head, rm, rd, 0, start_m, qk_scale,
                                             BLOCK_N, HEAD, False)
    acc, l_i, m_i = _causal_attention_blocks(acc, l_i, m_i, q, k_ptr, v_ptr, head, rm, rd, start_m,
                                             start_m + BLOCK_M, qk_scale, BLOCK_N, HEAD, True)
    tl.store(out_ptr + head + rm[:, None] * HEAD + rd[None, :], acc / l_i[:, None])


def causal_attention_reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float) -> np.ndarray:
    """softmax(Q K^T * scale) V per head, each query over the keys up to its own, in float64."""
    out = np.empty(q.shape, np.float64)
    for h in range(q.shape[0]):  # a head at a time: seq x seq scores each
        s = q[h].astype(np.float64) @ k[h].astype(np.float64).T * scale
        s[np.triu_indices(s.shape[0], 1)] = -np.inf
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out[h] = (p / p.sum(axis=1, keepdims=True)) @ v[h].astype(np.float64)
    return out
