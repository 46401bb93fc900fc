"""An honest div: the correctly rounded quotient, then trunc or floor of it, on contiguous broadcast copies.

The operands go through `torch.broadcast_tensors` and `.contiguous()` and one program handles each block of the
flat output (int64 offsets); a Python-number divisor is a scalar argument. In fp32 (bf16 widened, rounded once at
the end) the quotient is `tl.div_rn` (IEEE, so exact quotients come out as exact integers), and the rounding modes
apply libdevice's `trunc` or `floor` to it directly, the textbook reading of trunc(a / b) and floor(a / b). The
solution follows PyTorch's floor formula through fmod instead.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _div_flat(a_ptr, b_ptr, out_ptr, b_scalar, n, B_SCALAR: tl.constexpr, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if B_SCALAR:
        b = tl.full((BLOCK,), b_scalar, tl.float32)
    else:
        b = tl.load(b_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    q = tl.div_rn(a, b)
    if MODE == 1:
        q = libdevice.trunc(q)
    elif MODE == 2:
        q = libdevice.floor(q)
    tl.store(out_ptr + offs, q.to(out_ptr.dtype.element_ty), mask=mask)


def div(input, other, rounding_mode=None):
    modes = {None: 0, "trunc": 1, "floor": 2}
    if rounding_mode not in modes:
        raise ValueError(f"unknown rounding_mode {rounding_mode!r}")
    b_scalar = not isinstance(other, torch.Tensor)
    if b_scalar:
        a, b = input.contiguous(), None
    else:
        a, b = (t.contiguous() for t in torch.broadcast_tensors(input, other))
    out = torch.empty(a.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    BLOCK = 1024
    _div_flat[(triton.cdiv(n, BLOCK),)](a, a if b_scalar else b, out, float(other) if b_scalar else 0.0, n,
                                        B_SCALAR=b_scalar, MODE=modes[rounding_mode], BLOCK=BLOCK)
    return out
