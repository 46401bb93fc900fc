"""An honest max_pool1d as a third party writes it: one program per row and block of outputs, -inf padded window.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _max_pool1d_kernel(x_ptr, y_ptr, L, OL, S, P, D, K: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    o = tl.program_id(1).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    out_mask = o < OL
    x_row = x_ptr + row * L
    acc = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    for k in tl.static_range(K):
        pos = o * S - P + k * D
        ok = out_mask & (pos >= 0) & (pos < L)
        acc = tl.maximum(acc, tl.load(x_row + pos, mask=ok, other=float("-inf")).to(tl.float32))
    tl.store(y_ptr + row * OL + o, acc.to(y_ptr.dtype.element_ty), mask=out_mask)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    k = kernel_size
    s = k if stride is None else stride
    p, d = padding, dilation
    L = input.shape[-1]
    num = L + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        OL = -(-num // s) + 1
        if (OL - 1) * s >= L + p:
            OL -= 1
    else:
        OL = num // s + 1
    x = input.contiguous()
    rows = x.numel() // L
    y = torch.empty(input.shape[:-1] + (OL,), dtype=input.dtype, device=input.device)
    BLOCK_SIZE = min(triton.next_power_of_2(max(OL, 1)), 1024)
    grid = (rows, triton.cdiv(OL, BLOCK_SIZE))
    _max_pool1d_kernel[grid](x, y, L, OL, s, p, d, K=k, BLOCK_SIZE=BLOCK_SIZE)
    return y
