"""An honest embedding as a third party writes it: a (token, column-block) grid copying strided weight rows.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_kernel(ids_ptr, w_ptr, y_ptr, D, stride_wn, stride_wd, BLOCK_D: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = cols < D
    row = tl.load(ids_ptr + tok).to(tl.int64)
    v = tl.load(w_ptr + row * stride_wn + cols * stride_wd, mask=mask)
    tl.store(y_ptr + tok * D + cols, v, mask=mask)


def embedding(input, weight, padding_idx=None):
    # padding_idx only affects the gradient; the forward pass is a plain lookup
    ids = input.contiguous().view(-1)
    D = weight.shape[1]
    y = torch.empty(tuple(input.shape) + (D,), dtype=weight.dtype, device=weight.device)
    n_tok = ids.numel()
    if n_tok == 0 or D == 0:
        return y
    BLOCK_D = min(triton.next_power_of_2(D), 1024)
    grid = (n_tok, triton.cdiv(D, BLOCK_D))
    _embedding_kernel[grid](ids, weight, y, D, weight.stride(0), weight.stride(1), BLOCK_D=BLOCK_D)
    return y
