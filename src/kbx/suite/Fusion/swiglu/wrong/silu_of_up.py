"""Applies silu to the wrong operand: silu(up) * gate instead of silu(gate) * up.

The two projections are easy to swap when the kernel takes them as "a" and "b" (and some codebases order
the fused projection [up, gate]). The formula is not symmetric: with gate wide and up near 0.5 the results
differ everywhere.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _swiglu_kernel(g_ptr, u_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = u / (1.0 + tl.exp(-u)) * g
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def swiglu(gate, up):
    g, u = gate.contiguous(), up.contiguous()
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    n = out.numel()
    _swiglu_kernel[(triton.cdiv(n, 1024),)](g, u, out, n, BLOCK=1024)
    return out
