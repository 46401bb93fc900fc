"""Takes alpha to be an integer, as the default `alpha=1` suggests, and passes int(alpha) to the kernel.

torch.sub accepts any number for alpha on floating tensors. Truncating it turns alpha=0.5 into 0 (the result
becomes `input`) and leaves -2 intact, so only the fractional-alpha workloads fail: a mistake that a test
with integer alphas never sees.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sub_kernel(a_ptr, b_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (a - alpha * b).to(out_ptr.dtype.element_ty), mask=mask)


def sub(input, other, alpha=1):
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=torch.float32, device=input.device)
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _sub_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, int(alpha), BLOCK=1024)
    return out
