"""Subtracts the row max without guarding rows that are masked everywhere.

For such a row the max is -inf, s - max = -inf - (-inf) = NaN, and NaN spreads to the whole row. The task
defines those rows as zeros (padding queries, causal masks with more queries than keys), so NaN there fails.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _masked_softmax_kernel(x_ptr, m_ptr, y_ptr, n_cols, H, SQ, scale, smb, smh, smq, smk, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    q = row % SQ
    h = (row // SQ) % H
    b = row // SQ // H
    cols = tl.arange(0, BLOCK)
    inb = cols < n_cols
    masked = tl.load(m_ptr + b * smb + h * smh + q * smq + cols * smk, mask=inb, other=1) != 0
    s = tl.load(x_ptr + row * n_cols + cols, mask=inb, other=float("-inf")).to(tl.float32) * scale
    s = tl.where(masked, float("-inf"), s)
    p = tl.exp(s - tl.max(s, axis=0))
    y = p / tl.sum(p, axis=0)
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=inb)


def masked_scaled_softmax(input, mask, scale):
    B, H, SQ, SK = input.shape
    x = input.contiguous()
    out = torch.empty_like(x)
    m = mask.expand(B, H, SQ, SK).view(torch.uint8)
    _masked_softmax_kernel[(B * H * SQ,)](x, m, out, SK, H, SQ, scale, *m.stride(),
                                           BLOCK=triton.next_power_of_2(SK))
    return out
