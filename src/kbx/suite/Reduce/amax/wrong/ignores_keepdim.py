"""Always drops the reduced dims, even when keepdim=True.

The values are right (the reduced dims are permuted to the end, made contiguous and reduced row by row), but with
keepdim=True PyTorch keeps each reduced dim with size 1, so the shape differs.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_SHAPE"


@triton.jit
def _row_max_kernel(x_ptr, out_ptr, R, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.load(x_ptr + row * R + cols, mask=cols < R, other=float("-inf")).to(tl.float32))
    tl.store(out_ptr + row, tl.max(acc, axis=0).to(out_ptr.dtype.element_ty))


def amax(input, dim=(), keepdim=False):
    nd = input.dim()
    dims = [dim] if isinstance(dim, int) else list(dim)
    reduced = sorted({d % nd for d in dims}) if dims else list(range(nd))
    kept = [d for d in range(nd) if d not in reduced]
    R = math.prod(input.shape[d] for d in reduced)
    x = input.permute(kept + reduced).contiguous()
    out = torch.empty([input.shape[d] for d in kept], dtype=input.dtype, device=input.device)
    _row_max_kernel[(max(out.numel(), 1),)](x, out, R, BLOCK=min(triton.next_power_of_2(R), 1024))
    return out  # the mistake: keepdim is ignored
