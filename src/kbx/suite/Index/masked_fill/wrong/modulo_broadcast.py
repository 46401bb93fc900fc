"""Broadcasts the mask by wrapping the flat index: mask_flat[i % mask.numel()].

That is right when the mask's dims are input's trailing dims (a same-shape mask, a row mask, a (S, S) mask for
(B, S, S) scores), which is how broadcasting is often first met. It is wrong when a broadcast dim of size 1 sits
after a real one: a column mask (M, 1), an attention mask (B, 1, S, S) over (B, H, S, S), or (1, C, 1): the
wrapped index walks the mask in the wrong order.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _masked_fill_kernel(x_ptr, m_ptr, out_ptr, n, n_mask, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    x = tl.load(x_ptr + offs, mask=inb)
    m = tl.load(m_ptr + offs % n_mask, mask=inb, other=0)
    fill = tl.full([BLOCK], value, tl.float32).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, tl.where(m != 0, fill, x), mask=inb)


def masked_fill(input, mask, value):
    x = input.contiguous()
    m = mask.contiguous().view(torch.uint8)
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _masked_fill_kernel[(triton.cdiv(n, BLOCK),)](x, m, out, n, max(m.numel(), 1), float(value), BLOCK=BLOCK)
    return out
