"""Broadcasts a tensor weight by wrapping its flat index: weight[i % weight.numel()].

`input` and `end` are expanded properly, and scalar weights, full-shape weights and row-vector weights all come
out right, which hides the bug. A column weight (M, 1) is read down the column instead of once per row.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _lerp_kernel(a_ptr, e_ptr, w_ptr, out_ptr, n, n_w, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    e = tl.load(e_ptr + offs, mask=mask).to(tl.float32)
    w = tl.load(w_ptr + offs % n_w, mask=mask).to(tl.float32)
    diff = e - a
    y = tl.where(tl.abs(w) < 0.5, a + w * diff, e - diff * (1.0 - w))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def lerp(input, end, weight):
    if not isinstance(weight, torch.Tensor):
        weight = torch.full((), weight, dtype=torch.float32, device=input.device)
    shape = torch.broadcast_shapes(input.shape, end.shape, weight.shape)
    a = input.expand(shape).contiguous()
    e = end.expand(shape).contiguous()
    w = weight.contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _lerp_kernel[(triton.cdiv(n, 1024),)](a, e, w, out, n, w.numel(), BLOCK=1024)
    return out
