"""Normal samples scaled by std^2 instead of std: mean + std * std * z.

Mixing up the variance and the standard deviation (`torch.normal` takes std, many formulas take sigma^2).
With std = 1 the output is right; with std = 2.5 the spread is 6.25 instead of 2.5, with std = 0.5 it is 0.25.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(out_ptr, n, mean, std, seed, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    z = tl.randn(seed, offsets)
    y = mean + std * std * z  # bug: the variance used as the scale
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=offsets < n)


def normal_like(input, mean=0.0, std=1.0, seed=0):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _kernel[(triton.cdiv(n, 4096),)](out, n, float(mean), float(std), seed, BLOCK=4096)
    return out
