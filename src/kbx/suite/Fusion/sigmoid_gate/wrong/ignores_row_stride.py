"""Indexes input and gate as if they were contiguous: element i at base + i.

Right for separate tensors, wrong for the packed layout, where input and gate are the two halves of one
(..., 2D) tensor and their rows are 2D elements apart: only the last stride is checked before skipping
`.contiguous()`, so the kernel reads rows of input and gate interleaved.
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
    y = x / (1.0 + tl.exp(-g))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def sigmoid_gate(input, gate):
    x = input if input.stride(-1) == 1 else input.contiguous()  # only checks the last stride
    g = gate if gate.stride(-1) == 1 else gate.contiguous()
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _sigmoid_gate_kernel[(triton.cdiv(n, 1024),)](x, g, out, n, BLOCK=1024)
    return out
