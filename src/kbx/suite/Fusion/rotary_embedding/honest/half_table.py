"""An honest rotary_embedding that reads only the first half of each cos / sin row, as production RoPE kernels that
take (S, D/2) tables do: the task promises that the two halves of every row are equal (frequencies duplicated
across the halves), so out[i + h] = x[i + h] cos[s, i] + x[i] sin[s, i]. One program per block of (token, head)
rows, fp32 arithmetic, one rounding per output.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rotary_kernel(x_ptr, cos_ptr, sin_ptr, y_ptr, n_rows, S, H, half,
                   stride_xb, stride_xs, stride_xh, stride_cs,
                   BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    # 64-bit rows: the bench has 2^28 elements.
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    token = rows // H
    head = rows % H
    b = token // S
    s = token % S
    d = tl.arange(0, BLOCK_D)[None, :]
    mask = (rows[:, None] < n_rows) & (d < half)

    # The first half of this position's cos / sin row (the second is equal to it, as the task promises).
    cs = (s * stride_cs)[:, None] + d
    cos1 = tl.load(cos_ptr + cs, mask=mask, other=0.0).to(tl.float32)
    sin1 = tl.load(sin_ptr + cs, mask=mask, other=0.0).to(tl.float32)

    # The two halves of x, through its strides; the rotation; one rounding; contiguous output rows.
    x_ptrs = x_ptr + (b * stride_xb + s * stride_xs + head * stride_xh)[:, None] + d
    x1 = tl.load(x_ptrs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptrs + half, mask=mask, other=0.0).to(tl.float32)
    y1 = x1 * cos1 - x2 * sin1
    y2 = x2 * cos1 + x1 * sin1
    y_ptrs = y_ptr + (rows * (2 * half))[:, None] + d
    tl.store(y_ptrs, y1.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptrs + half, y2.to(y_ptr.dtype.element_ty), mask=mask)


def rotary_embedding(x, cos, sin):
    B, S, H, D = x.shape
    assert D % 2 == 0 and cos.shape == (S, D) and sin.shape == (S, D), "x (B, S, H, D) with cos, sin (S, D)"
    if x.stride(-1) != 1:
        x = x.contiguous()
    cos, sin = cos.contiguous(), sin.contiguous()
    out = torch.empty((B, S, H, D), dtype=x.dtype, device=x.device)
    if out.numel() == 0:
        return out
    half = D // 2
    n_rows = B * S * H
    BLOCK_D = triton.next_power_of_2(half)
    BLOCK_R = min(max(1, 2048 // BLOCK_D), triton.next_power_of_2(n_rows))  # <= 4096 elements of x per program
    _rotary_kernel[(triton.cdiv(n_rows, BLOCK_R),)](x, cos, sin, out, n_rows, S, H, half,
                                                    x.stride(0), x.stride(1), x.stride(2), cos.stride(0),
                                                    BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D, num_warps=4)
    return out
