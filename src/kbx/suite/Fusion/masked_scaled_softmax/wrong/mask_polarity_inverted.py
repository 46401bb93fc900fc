"""Treats True in the mask as "keep" and False as "masked out".

That is the convention of the boolean attn_mask of F.scaled_dot_product_attention; this task uses the
masked_fill one (True = masked out). The kernel therefore normalises over exactly the wrong entries.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


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
    s = tl.where(masked, s, float("-inf"))
    mx = tl.max(s, axis=0)
    mx = tl.where(mx == float("-inf"), 0.0, mx)
    p = tl.exp(s - mx)
    d = tl.sum(p, axis=0)
    y = p / tl.where(d > 0.0, d, 1.0)
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=inb)


def masked_scaled_softmax(input, mask, scale):
    B, H, SQ, SK = input.shape
    x = input.contiguous()
    out = torch.empty_like(x)
    m = mask.expand(B, H, SQ, SK).view(torch.uint8)
    _masked_softmax_kernel[(B * H * SQ,)](x, m, out, SK, H, SQ, scale, *m.stride(),
                                           BLOCK=triton.next_power_of_2(SK))
    return out
