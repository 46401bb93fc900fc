"""Bernoulli sampling that returns a boolean mask instead of a tensor in the input's dtype.

The draws are right, but `torch.bernoulli` returns 0.0 / 1.0 in the dtype of its input (a float tensor that is
multiplied with activations, as in dropout); a bool tensor is a different output.
"""

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_DTYPE"


@triton.jit
def _kernel(p_ptr, out_ptr, n, seed, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    p = tl.load(p_ptr + offsets, mask=mask).to(tl.float32)
    u = tl.rand(seed, offsets)
    tl.store(out_ptr + offsets, u < p, mask=mask)


def bernoulli(input, seed=0):
    p = input.contiguous()
    out = torch.empty(p.shape, dtype=torch.bool, device=p.device)  # bug: not the input's dtype
    n = p.numel()
    _kernel[(triton.cdiv(n, 4096),)](p, out, n, seed, BLOCK=4096)
    return out.view(input.shape)
