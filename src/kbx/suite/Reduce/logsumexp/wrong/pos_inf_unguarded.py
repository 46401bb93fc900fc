"""An online log-sum-exp (per-lane running max, rescaled sum) that guards -inf but not +inf.

Right on every slice without +inf: an all -inf lane keeps its sum at 0 and an all -inf slice gives -inf. A +inf
element makes its lane's maximum +inf and the rescaling form exp(inf - inf) = NaN, so the slice's result is NaN
where PyTorch's is +inf (it replaces an infinite maximum by 0). `check_masked_rows`, about half of whose slices
hold a +inf, catches it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _lse_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    m = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
        p = tl.where(m_new == float("-inf"), 0.0, tl.exp(x - m_new))
        s = s * alpha + p
        m = m_new
    row_max = tl.max(m, axis=0)
    scale = tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max))
    row_sum = tl.sum(s * scale, axis=0)
    out = tl.where(row_max == float("-inf"), float("-inf"), row_max + tl.log(row_sum))
    tl.store(y_ptr + row, out.to(y_ptr.dtype.element_ty))


def logsumexp(input, dim, keepdim=False):
    nd = input.dim()
    dims = [dim] if isinstance(dim, int) else list(dim)
    dims = sorted(set(d % nd for d in dims))
    kept = [d for d in range(nd) if d not in dims]
    x = input.permute(kept + dims).contiguous()
    n_rows = 1
    for d in kept:
        n_rows *= input.shape[d]
    n_cols = 1
    for d in dims:
        n_cols *= input.shape[d]
    y = torch.empty(n_rows, dtype=input.dtype, device=input.device)
    if n_rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(n_cols, 1)), 1024)
        _lse_rows_kernel[(n_rows,)](x, y, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    if keepdim:
        shape = [1 if d in dims else input.shape[d] for d in range(nd)]
    else:
        shape = [input.shape[d] for d in kept]
    return y.view(shape)
