"""An online (one-read) softmax that rescales with exp(m_old - m_new) without guarding m_new == -inf.

Correct on finite data. But when a block of a row is entirely -inf, the running max stays -inf and the
update evaluates exp(-inf - (-inf)) = exp(NaN): the running sum becomes NaN and so does the whole row.
Masked attention rows (a causal mask's leading -inf run) hit exactly this case.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    total = tl.sum(s, axis=0)
    top = tl.max(m, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf")).to(tl.float32)
        y = tl.exp(x - top) / total
        tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax(input, dim):
    x = input.movedim(dim, -1).contiguous()
    out = torch.empty_like(x)
    n_cols = x.shape[-1]
    BLOCK = min(triton.next_power_of_2(n_cols), 1024)
    _softmax_kernel[(x.numel() // n_cols,)](x, out, n_cols, BLOCK=BLOCK)
    return out.movedim(-1, dim)
