"""Dropout that ignores `training`: it drops and rescales elements at inference time too.

A kernel written for the training path and called unconditionally. With training=False F.dropout is the
identity; this returns a randomly zeroed, rescaled copy. Correct in every training workload.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, out_ptr, n, p, scale, seed, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    u = tl.rand(seed, offsets)
    y = tl.where(u >= p, x * scale, 0.0)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def dropout(input, p=0.5, training=True, seed=0):
    x = input.contiguous()  # bug: `training` is never looked at
    out = torch.empty_like(x)
    n = x.numel()
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    _kernel[(triton.cdiv(n, 4096),)](x, out, n, p, scale, seed, BLOCK=4096)
    return out.view(input.shape)
