"""Kernels that tmetal cannot compile, for the error-reporting tests. The
tests find the offending lines by the markers in the comments, so keep each
marker on the line of the construct it names."""
import triton
import triton.language as tl


@triton.jit
def inline_asm_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)  # MARK:asm
    tl.store(out_ptr + offs, y, mask=offs < n)


@triton.jit
def odd_range_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)  # MARK:range
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def fp8_arithmetic_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.float8e5)
    tl.store(out_ptr + offs, (x + x).to(tl.float32))  # MARK:fp8add


@triton.jit
def wide_atomic_kernel(counter_ptr, x_ptr):
    i = tl.arange(0, 16)
    tl.atomic_add(counter_ptr + i, tl.load(x_ptr + i))  # MARK:atomic64


@triton.jit
def transpose_tiles_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out = x.T for an n x n float32 x, a BLOCK x BLOCK tile a program. The
    transposed tile is flattened, which moves it through threadgroup memory:
    BLOCK * BLOCK * 4 bytes, in pieces where that is past Apple's 32 KB (up
    to 16 of them: 1 MB at BLOCK=512 is refused)."""
    i, j = tl.program_id(0), tl.program_id(1)
    rows = i * BLOCK + tl.arange(0, BLOCK)
    cols = j * BLOCK + tl.arange(0, BLOCK)
    tile = tl.load(x_ptr + rows[:, None] * n + cols[None, :])
    flat = tl.reshape(tl.trans(tile), (BLOCK * BLOCK, ))  # MARK:flatten
    k = tl.arange(0, BLOCK * BLOCK)
    tl.store(out_ptr + (j * BLOCK + k // BLOCK) * n + i * BLOCK + k % BLOCK, flat)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def marker_line(marker: str) -> int:
    """1-based line of this file that carries `# MARK:<marker>`."""
    with open(__file__) as f:
        for number, line in enumerate(f, start=1):
            if line.rstrip().endswith(f"# MARK:{marker}"):
                return number
    raise LookupError(marker)
