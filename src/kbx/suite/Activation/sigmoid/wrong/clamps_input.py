"""Clamps the argument to [-10, 10] "to avoid exp overflow".

The clamp is unnecessary (1 / (1 + inf) is already 0) and wrong: sigmoid(10) = 0.9999546, so every x > 10 comes
back 4.5e-5 short of the reference's value (1 to fp32 precision beyond x ~ 17), outside the fp32 tolerance.
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
    x = tl.minimum(tl.maximum(x, -10.0), 10.0)
    tl.store(y_ptr + offsets, (1.0 / (1.0 + tl.exp(-x))).to(y_ptr.dtype.element_ty), mask=mask)


def sigmoid(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _sigmoid_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
