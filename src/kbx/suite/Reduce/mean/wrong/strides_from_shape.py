"""Assumes a contiguous input: computes element offsets from the shape instead of the tensor's strides.

Right for every contiguous input, but a transposed or strided view is read as if its storage were laid out
row-major in its own shape, so the kernel averages the wrong elements (and past the view for strided inputs).
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _mean_kernel(x_ptr, out_ptr, R, inner, BLOCK: tl.constexpr):
    # One program per output (o, c); element (o, r, c) assumed at (o * R + r) * inner + c.
    pid = tl.program_id(0)
    o = (pid // inner).to(tl.int64)
    c = pid % inner
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, R, BLOCK):
        r = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + (o * R + r) * inner + c, mask=r < R, other=0.0).to(tl.float32)
    tl.store(out_ptr + pid, (tl.sum(acc, axis=0) / R).to(out_ptr.dtype.element_ty))


def mean(input, dim=None, keepdim=False):
    nd = input.dim()
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        reduced = list(range(nd))
    else:
        reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    R = math.prod(input.shape[d] for d in reduced)
    if reduced != list(range(reduced[0], reduced[-1] + 1)):
        # Non-adjacent dims: move them together first (this copy is correct, whatever the strides).
        x, outer, inner = input.permute(kept + reduced).contiguous(), math.prod(input.shape[d] for d in kept), 1
    else:
        x = input  # the mistake: no .contiguous(), and the kernel ignores x.stride()
        outer, inner = math.prod(input.shape[: reduced[0]]), math.prod(input.shape[reduced[-1] + 1 :])
    out = torch.empty(outer * inner, dtype=input.dtype, device=input.device)
    BLOCK = min(triton.next_power_of_2(R), 1024)
    _mean_kernel[(outer * inner,)](x, out, R, inner, BLOCK=BLOCK)
    if keepdim:
        return out.reshape([1 if d in reduced else input.shape[d] for d in range(nd)])
    return out.reshape([input.shape[d] for d in kept])
