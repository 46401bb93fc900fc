"""Always divides by the Euclidean norm, ignoring p (p = 2 is the default and by far the most common use).

With p = 1, 3 or inf the norms differ (||x||_1 >= ||x||_2 >= ||x||_3 >= ||x||_inf), so every output moves.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    norm = tl.maximum(tl.sqrt(tl.sum(x * x, axis=0)), eps)
    tl.store(y_ptr + row + cols, (x / norm).to(y_ptr.dtype.element_ty), mask=mask)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    x = input.movedim(dim, -1).contiguous()
    out = torch.empty_like(x)
    n = x.shape[-1]
    _kernel[(x.numel() // n,)](x, out, n, eps, BLOCK=triton.next_power_of_2(n))
    return out.movedim(-1, dim)
