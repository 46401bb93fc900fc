"""Applies the sigmoid to the wrong operand: gate * sigmoid(input) instead of input * sigmoid(gate).

The two arguments are easy to swap when a kernel calls them "a" and "b"; the function is not symmetric, and
with the gate drawn much wider than the input the outputs differ almost everywhere.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sigmoid_gate_kernel(x_ptr, g_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = g / (1.0 + tl.exp(-x))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def sigmoid_gate(input, gate):
    x, g = input.contiguous(), gate.contiguous()
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _sigmoid_gate_kernel[(triton.cdiv(n, 1024),)](x, g, out, n, BLOCK=1024)
    return out
