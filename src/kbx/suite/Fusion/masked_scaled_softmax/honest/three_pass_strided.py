"""An honest masked_scaled_softmax: three passes (max, sum, write) over each row, in the exp2 domain.

The input is read in place through its four strides (a transposed input is not copied) and the mask through the
strides of its broadcast view (stride 0 on broadcast dims). Each program takes ROWS rows (a ROWS x BLOCK tile of
at most 4096 elements, so short rows share a program and a long row gets BLOCK = 1024 lanes) and walks them in
BLOCK-wide chunks three times: the maximum of the masked, scaled scores s = x * scale (fp32), then the sum of
2^((s - max) log2 e), then it writes 2^((s - max) log2 e) / sum. A row masked everywhere has max = -inf and is
written as zeros.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _row_softmax(x_ptr, m_ptr, y_ptr, R, H, SQ, SK, scale,
                 sxb, sxh, sxq, sxk, smb, smh, smq, smk,
                 ROWS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = row < R
    q = (row % SQ).to(tl.int64)
    h = ((row // SQ) % H).to(tl.int64)
    b = (row // (SQ * H)).to(tl.int64)
    x_row = (x_ptr + b * sxb + h * sxh + q * sxq)[:, None]
    m_row = (m_ptr + b * smb + h * smh + q * smq)[:, None]
    y_row = (y_ptr + row.to(tl.int64) * SK)[:, None]
    ok_row = row_ok[:, None]
    lanes = tl.arange(0, BLOCK)[None, :]
    LOG2E: tl.constexpr = 1.4426950408889634
    run_max = tl.full([ROWS, BLOCK], float("-inf"), tl.float32)
    for start in range(0, SK, BLOCK):
        cols = start + lanes
        inb = ok_row & (cols < SK)
        x = tl.load(x_row + cols * sxk, mask=inb, other=0.0).to(tl.float32) * scale
        dead = tl.load(m_row + cols * smk, mask=inb, other=1) != 0
        run_max = tl.maximum(run_max, tl.where(dead, float("-inf"), x))
    row_max = tl.max(run_max, axis=1)
    # a fully masked row: subtract 0 so that no lane computes -inf - (-inf)
    shift = tl.where(row_max == float("-inf"), 0.0, row_max)[:, None]
    acc = tl.zeros([ROWS, BLOCK], tl.float32)
    for start in range(0, SK, BLOCK):
        cols = start + lanes
        inb = ok_row & (cols < SK)
        x = tl.load(x_row + cols * sxk, mask=inb, other=0.0).to(tl.float32) * scale
        dead = tl.load(m_row + cols * smk, mask=inb, other=1) != 0
        acc += tl.where(dead, 0.0, tl.math.exp2((x - shift) * LOG2E))
    total = tl.sum(acc, axis=1)
    inv = tl.where(total > 0.0, 1.0 / total, 0.0)[:, None]
    for start in range(0, SK, BLOCK):
        cols = start + lanes
        inb = ok_row & (cols < SK)
        x = tl.load(x_row + cols * sxk, mask=inb, other=0.0).to(tl.float32) * scale
        dead = tl.load(m_row + cols * smk, mask=inb, other=1) != 0
        p = tl.where(dead, 0.0, tl.math.exp2((x - shift) * LOG2E)) * inv
        tl.store(y_row + cols, p.to(y_ptr.dtype.element_ty), mask=inb)


def masked_scaled_softmax(input, mask, scale):
    B, H, SQ, SK = input.shape
    out = torch.empty((B, H, SQ, SK), dtype=input.dtype, device=input.device)
    if out.numel() == 0:
        return out
    m = mask.expand(B, H, SQ, SK).view(torch.uint8)
    BLOCK = min(triton.next_power_of_2(SK), 1024)
    R = B * H * SQ
    ROWS = min(4096 // BLOCK, triton.next_power_of_2(R))
    _row_softmax[(triton.cdiv(R, ROWS),)](input, m, out, R, H, SQ, SK, float(scale), *input.stride(), *m.stride(),
                                          ROWS=ROWS, BLOCK=BLOCK)
    return out
