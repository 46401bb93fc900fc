"""Takes the softmax over every entry and zeroes the masked ones afterwards.

The mask must act before the normalisation: masked entries get probability 0 *and* the others share the whole
mass. Zeroing after the softmax leaves the kept entries with only part of it (their rows no longer sum to 1),
and fully masked rows happen to come out as zeros, which hides the mistake on them.
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
    s = tl.where(inb, s, float("-inf"))
    p = tl.exp(s - tl.max(s, axis=0))
    y = tl.where(masked, 0.0, p / tl.sum(p, axis=0))
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=inb)


def masked_scaled_softmax(input, mask, scale):
    B, H, SQ, SK = input.shape
    x = input.contiguous()
    out = torch.empty_like(x)
    m = mask.expand(B, H, SQ, SK).view(torch.uint8)
    _masked_softmax_kernel[(B * H * SQ,)](x, m, out, SK, H, SQ, scale, *m.stride(),
                                           BLOCK=triton.next_power_of_2(SK))
    return out
