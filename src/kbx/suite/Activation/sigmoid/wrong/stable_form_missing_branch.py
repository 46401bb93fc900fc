"""A "numerically stable" sigmoid with a slip in its negative branch.

The stable form computes z = exp(-|x|) and returns 1 / (1 + z) for x >= 0 and z / (1 + z) for x < 0. Here the
negative branch returns z alone, i.e. exp(x) instead of exp(x) / (1 + exp(x)): right in the far negative tail,
wrong by up to 0.5 just below 0 (0.37 instead of 0.27 at x = -1).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    z = tl.exp(-tl.abs(x))
    y = tl.where(x >= 0, 1.0 / (1.0 + z), z)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def sigmoid(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _sigmoid_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
