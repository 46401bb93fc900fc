"""Weights the wrong endpoint: computes weight * input + (1 - weight) * end, i.e. lerp(end, input, weight).

The two readings of "interpolate by weight" are easy to confuse; this one agrees with torch.lerp only at
weight = 0.5. Broadcasting and strides are handled (operands expanded and copied), so the flaw is purely which
endpoint weight = 0 returns.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _lerp_kernel(a_ptr, e_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    e = tl.load(e_ptr + offs, mask=mask).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (w * a + (1.0 - w) * e).to(out_ptr.dtype.element_ty), mask=mask)


def lerp(input, end, weight):
    if not isinstance(weight, torch.Tensor):
        weight = torch.full((), weight, dtype=torch.float32, device=input.device)
    shape = torch.broadcast_shapes(input.shape, end.shape, weight.shape)
    a = input.expand(shape).contiguous()
    e = end.expand(shape).contiguous()
    w = weight.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _lerp_kernel[(triton.cdiv(n, 1024),)](a, e, w, out, n, BLOCK=1024)
    return out
