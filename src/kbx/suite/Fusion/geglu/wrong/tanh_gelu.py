"""Uses the tanh approximation of GELU instead of the exact erf form the task asks for.

0.5 z (1 + tanh(sqrt(2/pi) (z + 0.044715 z^3))) is off by up to ~5e-4 for z between about -3 and -1, where
gelu is small (-0.17 to -0.004); multiplied by up (std 4) that is several times the float16 tolerance there.
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
    inner = 0.7978845608028654 * (g + 0.044715 * g * g * g)
    t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0  # tanh(inner), saturating without overflow
    y = 0.5 * g * (1.0 + t) * u
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def geglu(gate, up):
    g, u = gate.contiguous(), up.contiguous()
    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)
    n = out.numel()
    _geglu_kernel[(triton.cdiv(n, 1024),)](g, u, out, n, BLOCK=1024)
    return out
