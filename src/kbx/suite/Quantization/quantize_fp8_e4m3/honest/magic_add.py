"""An honest quantize_fp8_e4m3 rounding with the magic-number add: (a + M) - M at the value's own binade.

Flat grid over the output, with the input gathered through its strides (up to 3-D, no contiguous copy). After
y = x / scale and the saturating clamp to +-448, the magnitude a is rounded to the e4m3 grid by one fp32 add
and subtract: for a normal a in [2^e, 2^(e+1)) the constant M = 2^(e+20) (built from a's exponent bits) has
an fp32 ulp of 2^(e-3), the e4m3 spacing there, so (a + M) - M is a rounded to nearest, ties to even; below
2^-6 the constant is 2^14 (ulp 2^-9, the subnormal spacing). The byte is then read off the rounded value: its
exponent re-biased to 7 and its top three mantissa bits for normals, r * 512 for subnormals (2^-6 lands on
code 8 by itself), with the sign bit of y. The suite's kernel instead rounds the fp32 bit pattern with integer
arithmetic.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _fp8_magic(x_ptr, out_ptr, numel, D1, D2, s0, s1, s2, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < numel
    src = (offs // (D1 * D2)) * s0 + ((offs // D2) % D1) * s1 + (offs % D2) * s2
    x = tl.load(x_ptr + src, mask=ok, other=0.0).to(tl.float32)
    y = x / scale
    y = tl.minimum(tl.maximum(y, -448.0), 448.0)
    ybits = y.to(tl.int32, bitcast=True)
    a = (ybits & 0x7FFFFFFF).to(tl.float32, bitcast=True)
    e = ((ybits >> 23) & 0xFF) - 127
    normal = a >= 0.015625
    magic_bits = tl.where(normal, (e + 20 + 127) << 23, (14 + 127) << 23)
    magic = magic_bits.to(tl.float32, bitcast=True)
    r = (a + magic) - magic
    rbits = r.to(tl.int32, bitcast=True)
    code_normal = ((((rbits >> 23) & 0xFF) - 127 + 7) << 3) | ((rbits >> 20) & 7)
    code_sub = (r * 512.0).to(tl.int32)
    code = tl.where(normal, code_normal, code_sub) | ((ybits >> 24) & 0x80)
    tl.store(out_ptr + offs, code.to(tl.uint8), mask=ok)


def quantize_fp8_e4m3(input, scale):
    x = input
    while x.dim() < 3:
        x = x.unsqueeze(0)
    if x.dim() > 3:
        x = x.reshape(-1, *x.shape[-2:])
    _, D1, D2 = x.shape
    out = torch.empty(input.shape, dtype=torch.uint8, device=input.device)
    numel = out.numel()
    if numel > 0:
        BLOCK = 1024
        _fp8_magic[(triton.cdiv(numel, BLOCK),)](x, out, numel, D1, D2, *x.stride(), float(scale), BLOCK=BLOCK)
    return out.view(torch.float8_e4m3fn)
