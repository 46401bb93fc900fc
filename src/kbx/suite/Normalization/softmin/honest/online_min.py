"""An honest softmin as a third party writes it from the definition: an online pass over the row for the minimum
and the sum of exp(m - x), then a second pass writing exp(m - x) / s.

Per lane, a running minimum m and a running sum s, rescaled by exp(m_new - m_old) when m drops; lanes that have seen
only +inf keep m = +inf and s = 0 (guarded so that no inf - inf is formed). The lanes are merged at the end. fp32
inside, 512-wide blocks, any dim moved to the end and made contiguous.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _softmin_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    m = tl.full([BLOCK], float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row + cols, mask=cols < n_cols, other=float("inf")).to(tl.float32)
        m_new = tl.minimum(m, x)
        m_ref = tl.where(m_new == float("inf"), 0.0, m_new)  # a lane with only +inf so far
        s = s * tl.exp(m_ref - m) + tl.exp(m_ref - x)
        m = m_new
    low = tl.min(m, axis=0)
    total = tl.sum(s * tl.exp(low - m), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row + cols, mask=mask, other=float("inf")).to(tl.float32)
        tl.store(y_ptr + row + cols, (tl.exp(low - x) / total).to(y_ptr.dtype.element_ty), mask=mask)


def softmin(input, dim):
    x = input.movedim(dim, -1).contiguous()
    out = torch.empty_like(x)
    n_cols = x.shape[-1]
    if x.numel() > 0:
        BLOCK = min(triton.next_power_of_2(n_cols), 512)
        _softmin_kernel[(x.numel() // n_cols,)](x, out, n_cols, BLOCK=BLOCK)
    return out.movedim(-1, dim)
