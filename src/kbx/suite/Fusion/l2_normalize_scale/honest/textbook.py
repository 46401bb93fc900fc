"""An honest l2_normalize_scale as a third party writes it: `x / max(sqrt(sum x^2), eps) * g`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _l2norm_scale_kernel(x_ptr, s_ptr, y_ptr, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    norm = tl.sqrt(tl.sum(acc, axis=0))
    denom = tl.maximum(norm, eps)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(s_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (x / denom * g).to(y_ptr.dtype.element_ty), mask=mask)


def l2_normalize_scale(input, scale, dim=-1, eps=1e-12):
    x = input.movedim(dim, -1).contiguous()
    shape = x.shape
    n_cols = shape[-1]
    x2 = x.view(-1, n_cols)
    y2 = torch.empty_like(x2)
    if x2.numel() == 0:
        return torch.empty_like(input)
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 4096)
    _l2norm_scale_kernel[(x2.shape[0],)](x2, scale.contiguous(), y2, n_cols, float(eps), BLOCK_SIZE=BLOCK_SIZE)
    return y2.view(shape).movedim(-1, dim)
