"""Broadcasting division in Triton, with PyTorch's three rounding modes, broadcasting done by strides.

Memory traffic dominates: each output element is written once and each *distinct* input element is read once
from DRAM. Broadcast operands are never materialised: both are `expand`ed to the output shape (views whose
broadcast dims have stride 0) and the kernel indexes each through its own strides, so a repeated row or column is
fetched once and then served from L1/L2. On the host, size-1 dims are dropped and neighbouring dims merged where
both operands allow it; the kernel takes up to four dims, views the output as rows x C and gives each program a
BLOCK_R x BLOCK_C tile of about 4096 elements (outer coordinates split once per row, the innermost stride
specialised to 1 for contiguous operands so accesses vectorise). Offsets are int64.

Arithmetic is fp32 (bf16 is widened on load and rounded once on store). The quotient uses `tl.div_rn`, the
IEEE-rounded division, because 'trunc' and 'floor' must see an exact integer quotient exactly: an approximate
divide or a multiply by a rounded reciprocal turns an exact quotient of -24 into -24.000002 and floors it to -25.
'floor' follows PyTorch's definition rather than floor(a / b): the remainder fmod(a, b) is computed exactly
(trunc of the rounded quotient, one fused multiply-add, and a one-step fix where the rounded quotient reached an
integer the true one does not; exact while |a / b| < 2^23), then (a - fmod) / b is corrected by one where the
remainder's sign differs from b's and rounded to the nearest integer. That is ~15 fp32 operations per element,
still far below what the memory traffic allows.

Expected H100 (~3 TB/s) times, fp32: bench_same (three 2.1 GB tensors) about 2.1 ms; bench_floor_row (2.1 GB read,
2.1 GB written) about 1.4 ms; bf16 about half of each.
"""

import torch
import triton
import triton.language as tl

MAX_DIMS = 4
TILE = 4096


@triton.jit
def _div_kernel(
    a_ptr, b_ptr, out_ptr, b_scalar,
    D1, D2, C, n_rows, n_col_blocks,
    sa0, sa1, sa2, sa3,
    sb0, sb1, sb2, sb3,
    B_IS_SCALAR: tl.constexpr, ROUNDING: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    # Which tile: column blocks vary fastest so neighbouring programs touch neighbouring memory.
    pid = tl.program_id(0)
    pid_r = pid // n_col_blocks
    pid_c = pid % n_col_blocks
    rows = pid_r.to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c.to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows < n_rows)[:, None] & (cols < C)[None, :]

    # Split each flat row index into its three outer coordinates (once per row, not per element).
    i2 = rows % D2
    i1 = (rows // D2) % D1
    i0 = rows // (D2 * D1)

    # Each operand: a per-row base offset plus the column offset, through its own (possibly 0) strides.
    a_offs = (i0 * sa0 + i1 * sa1 + i2 * sa2)[:, None] + cols[None, :] * sa3
    a = tl.load(a_ptr + a_offs, mask=mask, other=1.0).to(tl.float32)
    if B_IS_SCALAR:
        b = b_scalar
    else:
        b_offs = (i0 * sb0 + i1 * sb1 + i2 * sb2)[:, None] + cols[None, :] * sb3
        b = tl.load(b_ptr + b_offs, mask=mask, other=1.0).to(tl.float32)
    if ROUNDING == 0:
        y = tl.div_rn(a, b)
    else:
        q = tl.div_rn(a, b)
        t = tl.where(q < 0, tl.ceil(q), tl.floor(q))
        if ROUNDING == 1:
            y = t
        else:
            # fmod(a, b) exactly: a - t * b in one fma is exact when t is the true truncated quotient. Where the
            # rounded quotient reached an integer the true one does not, t is one too large in magnitude and the
            # remainder comes out with the wrong sign: move it back by |b|.
            mod = tl.fma(-t, b, a)
            overshot = (mod != 0) & ((mod < 0) != (a < 0))
            mod = tl.where(overshot, mod + tl.where(a < 0, -tl.abs(b), tl.abs(b)), mod)
            # PyTorch's floor division: exact quotient of (a - mod), one less where mod and b differ in sign,
            # rounded to the nearest integer; a zero keeps the sign of the true quotient.
            d = tl.div_rn(a - mod, b)
            d = tl.where((mod != 0) & ((b < 0) != (mod < 0)), d - 1.0, d)
            f = tl.floor(d)
            f = tl.where(d - f > 0.5, f + 1.0, f)
            f = tl.where(d == 0, 0.0 * q, f)
            y = tl.where(b == 0, q, f)

    # The output is a fresh contiguous tensor: its flat index is row * C + col.
    out_offs = rows[:, None] * C + cols[None, :]
    tl.store(out_ptr + out_offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _merge_dims(shape, *strides):
    """Drop size-1 dims and merge neighbours that every operand can index as one dim.

    Returns a list of (size, [stride per operand]) from outermost to innermost.
    """
    merged = []
    for i, size in enumerate(shape):
        if size == 1:
            continue
        st = [s[i] for s in strides]
        if merged and all(prev == cur * size for prev, cur in zip(merged[-1][1], st)):
            merged[-1] = (merged[-1][0] * size, st)
        else:
            merged.append((size, st))
    return merged or [(1, [0] * len(strides))]


ROUNDING_MODES = {None: 0, "trunc": 1, "floor": 2}


def div(input, other, rounding_mode=None):
    b_is_scalar = not isinstance(other, torch.Tensor)
    out_dtype = torch.result_type(input, other)
    if b_is_scalar:
        shape = input.shape
        a, b = input, input  # b is a placeholder pointer; the kernel uses b_scalar instead
    else:
        shape = torch.broadcast_shapes(input.shape, other.shape)
        # expand() makes stride-0 views: nothing is copied.
        a, b = input.expand(shape), other.expand(shape)
    out = torch.empty(shape, dtype=out_dtype, device=input.device)
    if out.numel() == 0:
        return out

    dims = _merge_dims(shape, a.stride(), b.stride())
    if len(dims) > MAX_DIMS:
        # Rare (more than four dims that cannot be merged): materialise and index flat.
        a, b = a.contiguous(), b.contiguous()
        dims = _merge_dims(shape, a.stride(), b.stride())
    dims = [(1, [0, 0])] * (MAX_DIMS - len(dims)) + dims
    (D0, (sa0, sb0)), (D1, (sa1, sb1)), (D2, (sa2, sb2)), (C, (sa3, sb3)) = dims
    n_rows = D0 * D1 * D2

    # About TILE elements per program: wide along the contiguous columns, extra rows when C is short.
    BLOCK_C = min(triton.next_power_of_2(C), TILE)
    BLOCK_R = min(triton.next_power_of_2(n_rows), max(1, TILE // BLOCK_C))
    n_col_blocks = triton.cdiv(C, BLOCK_C)
    grid = (triton.cdiv(n_rows, BLOCK_R) * n_col_blocks,)
    _div_kernel[grid](
        a, b, out, float(other) if b_is_scalar else 0.0,
        D1, D2, C, n_rows, n_col_blocks,
        sa0, sa1, sa2, sa3,
        sb0, sb1, sb2, sb3,
        B_IS_SCALAR=b_is_scalar, ROUNDING=ROUNDING_MODES[rounding_mode],
        BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=8,
    )
    return out
