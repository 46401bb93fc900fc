"""Online log-sum-exp that forgets to rescale the running sum when the running maximum grows.

The update should be s = s * exp(m_old - m_new) + exp(x - m_new); this kernel does s += exp(x - m_new), so terms
added before the maximum moved keep their old, too-large scale. Stable (no overflow: every exponent is at most
0), and right whenever a lane's first element is its maximum, but wrong on general data.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _row_lse_kernel(x_ptr, out_ptr, R, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * R + cols, mask=cols < R, other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, v)
        ref = tl.where(m == float("-inf"), 0.0, m)
        s += tl.exp(v - ref)  # the mistake: s is not multiplied by exp(m_old - m_new)
    top = tl.max(m, axis=0)
    top_ref = tl.where(top == float("-inf"), 0.0, top)
    total = tl.sum(s * tl.exp(m - top_ref), axis=0)
    tl.store(out_ptr + row, (top_ref + tl.log(total)).to(out_ptr.dtype.element_ty))


def logsumexp(input, dim, keepdim=False):
    nd = input.dim()
    reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    R = math.prod(input.shape[d] for d in reduced)
    x = input.permute(kept + reduced).contiguous()
    out = torch.empty([input.shape[d] for d in kept], dtype=input.dtype, device=input.device)
    # 32 lanes: every lane sees several elements, so the running maximum moves often.
    _row_lse_kernel[(max(out.numel(), 1),)](x, out, R, BLOCK=min(triton.next_power_of_2(R), 32))
    if keepdim:
        return out.reshape([1 if d in reduced else input.shape[d] for d in range(nd)])
    return out
