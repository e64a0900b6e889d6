"""The Triton kernel `python -m triton_metal.check` runs end to end (in its
own module: Triton needs a kernel's source file)."""
import triton
import triton.language as tl


@triton.jit
def add_one_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)
