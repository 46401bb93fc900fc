"""Online softmax that raises the running max but forgets to rescale the running sum by exp(m_old - m_new).

Each block's exponentials are taken against the max known so far, and added to a sum still expressed against the
previous max: every block before the one holding a new maximum is over-weighted by exp(m_new - m_old). Right when
the row's maximum sits in its first block (or the row fits in one block), wrong otherwise. Writing the rescale
only for the max and not for the sum is the classic slip in a first online-softmax kernel.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    m = tl.full([], float("-inf"), tl.float32)
    s = tl.zeros([], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s + tl.sum(tl.exp(x - m_safe), axis=0)  # the bug: s * exp(m - m_safe) is missing
        m = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + row + cols, (tl.exp(x - m) / s).to(y_ptr.dtype.element_ty), mask=mask)


def softmax(input, dim):
    x = input.movedim(dim, -1).contiguous()
    out = torch.empty_like(x)
    n_cols = x.shape[-1]
    BLOCK = min(triton.next_power_of_2(n_cols), 1024)
    _softmax_kernel[(x.numel() // n_cols,)](x, out, n_cols, BLOCK=BLOCK)
    return out.movedim(-1, dim)
