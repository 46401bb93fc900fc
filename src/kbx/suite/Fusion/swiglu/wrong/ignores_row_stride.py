"""Indexes gate and up as if they were contiguous: element i at base + i.

Right for freshly allocated projections, wrong for the packed layout, where gate and up are the two halves of
one (..., 2I) tensor and their rows are 2I elements apart: the kernel then reads the first half of the
buffer (gate rows interleaved with up rows) for both operands. `.contiguous()` or the row stride was needed.
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
    y = g / (1.0 + tl.exp(-g)) * u
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def swiglu(gate, up):
    g = gate if gate.stride(-1) == 1 else gate.contiguous()  # only checks the last stride
    u = up if up.stride(-1) == 1 else up.contiguous()
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    n = out.numel()
    _swiglu_kernel[(triton.cdiv(n, 1024),)](g, u, out, n, BLOCK=1024)
    return out
