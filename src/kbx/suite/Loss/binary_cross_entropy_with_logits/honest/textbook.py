"""An honest binary_cross_entropy_with_logits as a third party writes it: the softplus form with `log(1 + exp(-|x|))`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _bce_kernel(x_ptr, y_ptr, w_ptr, pw_ptr, out_ptr, partial_ptr, n, C,
                HAS_W: tl.constexpr, HAS_PW: tl.constexpr, REDUCE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # softplus(-x) = max(-x, 0) + log(1 + exp(-|x|))
    sp = tl.maximum(-x, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(x)))
    if HAS_PW:
        pw = tl.load(pw_ptr + offs % C, mask=mask, other=1.0).to(tl.float32)
        loss = (1.0 - y) * x + (1.0 + (pw - 1.0) * y) * sp
    else:
        loss = (1.0 - y) * x + sp
    if HAS_W:
        loss = loss * tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if REDUCE:
        tl.store(partial_ptr + pid, tl.sum(tl.where(mask, loss, 0.0), axis=0))
    else:
        tl.store(out_ptr + offs, loss.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _finish_kernel(p_ptr, out_ptr, n_partials, divisor, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_partials, BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(p_ptr + idx, mask=idx < n_partials, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / divisor).to(out_ptr.dtype.element_ty))


def binary_cross_entropy_with_logits(input, target, weight=None, reduction='mean', pos_weight=None):
    x = input.contiguous()
    y = target.contiguous()
    n = x.numel()
    C = x.shape[-1] if x.dim() > 0 else 1
    w = weight.expand_as(input).contiguous() if weight is not None else x
    pw = pos_weight.contiguous() if pos_weight is not None else x
    BLOCK_SIZE = 1024
    n_blocks = triton.cdiv(n, BLOCK_SIZE)
    if reduction == 'none':
        out = torch.empty_like(x)
        _bce_kernel[(n_blocks,)](x, y, w, pw, out, out, n, C, HAS_W=weight is not None,
                                 HAS_PW=pos_weight is not None, REDUCE=False, BLOCK_SIZE=BLOCK_SIZE)
        return out
    partials = torch.empty(n_blocks, dtype=torch.float32, device=x.device)
    _bce_kernel[(n_blocks,)](x, y, w, pw, partials, partials, n, C, HAS_W=weight is not None,
                             HAS_PW=pos_weight is not None, REDUCE=True, BLOCK_SIZE=BLOCK_SIZE)
    out = torch.empty((), dtype=input.dtype, device=x.device)
    _finish_kernel[(1,)](partials, out, n_blocks, float(n) if reduction == 'mean' else 1.0, BLOCK_SIZE=1024)
    return out
