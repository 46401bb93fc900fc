"""An honest vector_norm as a third party writes it: one program per output, fp32 sum of squares / |x| or max |x|.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _norm_rows_kernel(x_ptr, y_ptr, n_cols, ORD: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # ORD: 2 (euclidean), 1 (sum of magnitudes), 0 (max magnitude, ord=inf)
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        if ORD == 2:
            acc += x * x
        elif ORD == 1:
            acc += tl.abs(x)
        else:
            acc = tl.maximum(acc, tl.abs(x))
    if ORD == 2:
        out = tl.sqrt(tl.sum(acc, axis=0))
    elif ORD == 1:
        out = tl.sum(acc, axis=0)
    else:
        out = tl.max(acc, axis=0)
    tl.store(y_ptr + row, out.to(y_ptr.dtype.element_ty))


def vector_norm(x, ord=2, dim=None, keepdim=False):
    if isinstance(ord, str):
        ord = float(ord)
    if ord == 2:
        code = 2
    elif ord == 1:
        code = 1
    elif math.isinf(ord) and ord > 0:
        code = 0
    else:
        raise NotImplementedError(f"ord={ord}")
    nd = x.dim()
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):  # (): every dim, as torch
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = sorted(set(d % nd for d in dims))
    kept = [d for d in range(nd) if d not in dims]
    xp = x.permute(kept + dims).contiguous()
    n_rows = 1
    for d in kept:
        n_rows *= x.shape[d]
    n_cols = 1
    for d in dims:
        n_cols *= x.shape[d]
    y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    if n_rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(n_cols, 1)), 1024)
        _norm_rows_kernel[(n_rows,)](xp, y, n_cols, ORD=code, BLOCK_SIZE=BLOCK_SIZE)
    if keepdim:
        shape = [1 if d in dims else x.shape[d] for d in range(nd)]
    else:
        shape = [x.shape[d] for d in kept]
    return y.view(shape)
