"""reduction='mean' divides by the number of positions N, counting the ignored ones.

The numerator is right (ignored targets contribute nothing), but PyTorch divides by the total weight of the
NON-ignored targets. With about 20% of the targets ignored (and class weights in the weighted workloads), the
mean is too small.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _nll_kernel(x_ptr, t_ptr, w_ptr, out_ptr, n_pos, D, C, ignore_index, HAS_WEIGHT: tl.constexpr,
                BLOCK: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    in_range = p < n_pos
    t = tl.load(t_ptr + p, mask=in_range, other=ignore_index)
    valid = in_range & (t != ignore_index)
    n = p // D
    x = tl.load(x_ptr + (n * C + t) * D + (p - n * D), mask=valid, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + t, mask=valid, other=0.0).to(tl.float32) if HAS_WEIGHT else valid.to(tl.float32)
    tl.store(out_ptr + p, -(w * x), mask=in_range)


@triton.jit
def _sum_kernel(v_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(v_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) * scale).to(out_ptr.dtype.element_ty))


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    x = (input[None] if input.dim() == 1 else input).contiguous()
    C = x.shape[1]
    D = x[0, 0].numel()
    t = target.reshape(-1).contiguous()
    n_pos = t.numel()
    losses = torch.empty(n_pos, dtype=torch.float32, device=x.device)
    BLOCK = 1024
    _nll_kernel[(triton.cdiv(n_pos, BLOCK),)](x, t, weight, losses, n_pos, D, C, ignore_index,
                                              HAS_WEIGHT=weight is not None, BLOCK=BLOCK)
    if reduction == "none":
        return losses.to(input.dtype).reshape(target.shape)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    scale = 1.0 / n_pos if reduction == "mean" else 1.0  # the mistake: every position counts
    _sum_kernel[(1,)](losses, out, n_pos, scale, BLOCK=1024)
    return out
