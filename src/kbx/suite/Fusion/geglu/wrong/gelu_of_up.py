"""Applies GELU to the wrong half: gelu(up) * gate instead of gelu(gate) * up.

`proj(x).chunk(2, -1)` returns (up, gate) in that order in the diffusers convention and (gate, up) in others;
a kernel written against the other convention activates the wrong operand. With gate and up drawn differently
(gate with outliers of +-30) the outputs differ everywhere.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _geglu_kernel(g_ptr, u_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = 0.5 * u * (1.0 + tl.math.erf(u * 0.7071067811865476)) * g
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def geglu(gate, up):
    g, u = gate.contiguous(), up.contiguous()
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    n = out.numel()
    _geglu_kernel[(triton.cdiv(n, 1024),)](g, u, out, n, BLOCK=1024)
    return out
