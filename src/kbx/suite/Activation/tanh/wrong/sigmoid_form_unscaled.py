"""Uses tanh(x) = 2 * sigmoid(2x) - 1 but forgets to double the argument: 2 * sigmoid(x) - 1 is tanh(x / 2).

Overflow-safe and right at 0 and in the saturated tails, but off by up to ~0.3 in between (0.46 instead of 0.76
at x = 1).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = 2.0 / (1.0 + tl.exp(-x)) - 1.0
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def tanh(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _tanh_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
