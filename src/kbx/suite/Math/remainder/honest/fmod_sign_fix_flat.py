"""An honest remainder as fmod plus a sign fix, on broadcast operands copied to contiguous and walked flat.

Python's remainder takes the divisor's sign: r = fmod(a, b), and where r is non-zero with a sign unlike b's, r + b.
bf16 operands are widened to fp32, where CUDA's libdevice `fmod` is exact, the fix is one fp32 addition and the
result is rounded once to bf16 (as PyTorch does); int32 uses Triton's `%` (C's remainder) and the same fix, which
cannot overflow since r and b then have opposite signs. The operands go through `torch.broadcast_tensors` and
`.contiguous()`, and one program handles each block of the flat output; a Python-number divisor is a scalar
argument. The solution reads strided operands in place and forms fmod from a corrected quotient.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _remainder_flat(a_ptr, b_ptr, out_ptr, b_scalar, n, B_SCALAR: tl.constexpr, IS_FLOAT: tl.constexpr,
                    BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if IS_FLOAT:
        a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        if B_SCALAR:
            b = tl.full((BLOCK,), b_scalar, tl.float32)
        else:
            b = tl.load(b_ptr + offs, mask=mask, other=1.0).to(tl.float32)
        r = libdevice.fmod(a, b)
    else:
        a = tl.load(a_ptr + offs, mask=mask, other=0)
        if B_SCALAR:
            b = tl.full((BLOCK,), b_scalar, a.dtype)
        else:
            b = tl.load(b_ptr + offs, mask=mask, other=1)
        r = a % b
    r = tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=mask)


def remainder(input, other):
    b_scalar = not isinstance(other, torch.Tensor)
    if b_scalar:
        a, b = input.contiguous(), None
    else:
        a, b = (t.contiguous() for t in torch.broadcast_tensors(input, other))
    out = torch.empty(a.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    is_float = input.dtype.is_floating_point
    scalar = (float(other) if is_float else int(other)) if b_scalar else 0
    BLOCK = 1024
    _remainder_flat[(triton.cdiv(n, BLOCK),)](a, a if b_scalar else b, out, scalar, n, B_SCALAR=b_scalar,
                                              IS_FLOAT=is_float, BLOCK=BLOCK)
    return out
