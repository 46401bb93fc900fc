"""An honest sigmoid_gate as a third party writes it: fp32 x * tl.sigmoid(g), rounded once.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sigmoid_gate_kernel(x_ptr, g_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x * tl.sigmoid(g)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def sigmoid_gate(input, gate):
    x = input.contiguous()
    g = gate.contiguous()
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _sigmoid_gate_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, g, y, n, BLOCK_SIZE=BLOCK_SIZE)
    return y
