"""An honest add_bias_residual_layer_norm with Welford statistics (the Apex way), h written then read back.

Each program takes ROWS rows (a ROWS x BLOCK tile of at most 4096 elements, so short rows share a program). The
first loop forms h = (input + bias) + residual, each add rounded to the dtype as the definition says, stores h
(the returned residual), and feeds it to a per-lane Welford accumulator (count, mean, sum of squared deviations)
in fp32; the lanes are then merged pairwise with Chan's formula in a log2(BLOCK)-level tree (neighbouring lanes
split apart and merged, as Apex's warp shuffles do). The second loop reads h back from memory and writes
(h - mean) / sqrt(var + eps) * weight + ln_bias.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _welford_merge(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    w_b = tl.where(n > 0, n_b / tl.maximum(n, 1.0), 0.0)
    delta = mean_b - mean_a
    return mean_a + delta * w_b, m2_a + m2_b + delta * delta * n_a * w_b, n


@triton.jit
def _halves(x, ROWS: tl.constexpr):
    return tl.split(tl.reshape(x, (ROWS, x.shape[1] // 2, 2)))


@triton.jit
def _add_layer_norm_row(x_ptr, bias_ptr, r_ptr, w_ptr, lb_ptr, out_ptr, h_ptr, n_rows, D, eps,
                        ROWS: tl.constexpr, BLOCK: tl.constexpr, LOG2_BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = (rows < n_rows)[:, None]
    row = (rows.to(tl.int64) * D)[:, None]
    lanes = tl.arange(0, BLOCK)[None, :]
    mean = tl.zeros([ROWS, BLOCK], tl.float32)
    m2 = tl.zeros([ROWS, BLOCK], tl.float32)
    cnt = tl.zeros([ROWS, BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        cols = start + lanes
        mask = row_ok & (cols < D)
        x = tl.load(x_ptr + row + cols, mask=mask, other=0.0)
        bias = tl.load(bias_ptr + cols, mask=mask, other=0.0)
        r = tl.load(r_ptr + row + cols, mask=mask, other=0.0)
        xb = (x.to(tl.float32) + bias.to(tl.float32)).to(x.dtype)
        h = (xb.to(tl.float32) + r.to(tl.float32)).to(x.dtype)
        tl.store(h_ptr + row + cols, h, mask=mask)
        hf = h.to(tl.float32)
        cnt_new = cnt + tl.where(mask, 1.0, 0.0)
        delta = tl.where(mask, hf - mean, 0.0)
        mean = mean + delta / tl.maximum(cnt_new, 1.0)
        m2 = m2 + delta * tl.where(mask, hf - mean, 0.0)
        cnt = cnt_new
    for _ in tl.static_range(LOG2_BLOCK):
        mean_a, mean_b = _halves(mean, ROWS)
        m2_a, m2_b = _halves(m2, ROWS)
        cnt_a, cnt_b = _halves(cnt, ROWS)
        mean, m2, cnt = _welford_merge(mean_a, m2_a, cnt_a, mean_b, m2_b, cnt_b)
    mu = mean  # (ROWS, 1) after the last level
    rstd = 1.0 / tl.sqrt(m2 / tl.maximum(cnt, 1.0) + eps)
    for start in range(0, D, BLOCK):
        cols = start + lanes
        mask = row_ok & (cols < D)
        h = tl.load(h_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        lb = tl.load(lb_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + row + cols, ((h - mu) * rstd * w + lb).to(out_ptr.dtype.element_ty), mask=mask)


def add_bias_residual_layer_norm(input, bias, residual, weight, ln_bias, eps=1e-05):
    D = input.shape[-1]
    x = input.contiguous()
    r = residual.contiguous()
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    h = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    rows = x.numel() // D
    BLOCK = min(triton.next_power_of_2(D), 2048)
    ROWS = min(4096 // BLOCK, triton.next_power_of_2(max(rows, 1)))
    _add_layer_norm_row[(triton.cdiv(rows, ROWS),)](x, bias.contiguous(), r, weight.contiguous(),
                                                    ln_bias.contiguous(), out, h, rows, D, float(eps), ROWS=ROWS,
                                                    BLOCK=BLOCK, LOG2_BLOCK=BLOCK.bit_length() - 1)
    return out, h
