"""Computes the textbook formula -(pw * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x))) literally.

Right for moderate logits, but sigmoid(x) rounds to exactly 0 for x below about -88 (exp(-x) overflows) and to 1
above about 17, so log(sigmoid(x)) or log(1 - sigmoid(x)) is log(0) = -inf; times a zero weight (y = 0 or 1) that
is NaN, otherwise inf. The inputs hold logits of +-200.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _bce_kernel(x_ptr, y_ptr, w_ptr, pw_ptr, out_ptr, n, C, HAS_W: tl.constexpr, W_FULL: tl.constexpr,
                HAS_PW: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-x))
    pw = tl.load(pw_ptr + offs % C, mask=mask, other=1.0).to(tl.float32) if HAS_PW else 1.0
    loss = -(pw * y * tl.log(s) + (1.0 - y) * tl.log(1.0 - s))
    if HAS_W:
        loss *= tl.load(w_ptr + (offs if W_FULL else offs % C), mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, loss, mask=mask)


@triton.jit
def _sum_kernel(v_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(v_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) * scale).to(out_ptr.dtype.element_ty))


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    x, y = input.contiguous(), target.contiguous()
    n, C = x.numel(), x.shape[-1]
    w_full = weight is not None and weight.numel() != C
    w = None if weight is None else (weight.expand(x.shape).contiguous() if w_full else weight.contiguous())
    pw = None if pos_weight is None else pos_weight.contiguous()
    losses = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    BLOCK = 1024
    _bce_kernel[(triton.cdiv(n, BLOCK),)](x, y, w, pw, losses, n, C, HAS_W=w is not None, W_FULL=w_full,
                                          HAS_PW=pw is not None, BLOCK=BLOCK)
    if reduction == "none":
        return losses.to(x.dtype)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    _sum_kernel[(1,)](losses, out, n, 1.0 / n if reduction == "mean" else 1.0, BLOCK=1024)
    return out
