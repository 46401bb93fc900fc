"""An honest add_layer_norm: ROWS rows per program in 2-D tiles, h recomputed in each of three passes.

Each program owns ROWS rows and walks their columns in BLOCK-wide tiles three times, recomputing
h = input + residual (rounded to the dtype, as the definition says) from the inputs each time instead of reading
h back: the mean, then the mean squared deviation (two-pass variance, fp32), then it writes h and the normalised
(h - mean) / sqrt(var + eps) * weight + bias. Rows are addressed through their strides, so a strided residual or
a row-strided input is read in place.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _add_ln_rows(x_ptr, r_ptr, w_ptr, b_ptr, out_ptr, h_ptr, n_rows, D, sxr, sxc, srr, src, eps,
                 ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < n_rows
    xr = x_ptr + rows.to(tl.int64)[:, None] * sxr
    rr = r_ptr + rows.to(tl.int64)[:, None] * srr
    orow = rows.to(tl.int64)[:, None] * D
    acc = tl.zeros([ROWS, BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = row_ok[:, None] & (cols < D)[None, :]
        x = tl.load(xr + cols[None, :] * sxc, mask=mask, other=0.0)
        r = tl.load(rr + cols[None, :] * src, mask=mask, other=0.0)
        acc += (x.to(tl.float32) + r.to(tl.float32)).to(x.dtype).to(tl.float32)
    mean = tl.sum(acc, axis=1) / D
    acc = tl.zeros([ROWS, BLOCK], tl.float32)
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = row_ok[:, None] & (cols < D)[None, :]
        x = tl.load(xr + cols[None, :] * sxc, mask=mask, other=0.0)
        r = tl.load(rr + cols[None, :] * src, mask=mask, other=0.0)
        h = (x.to(tl.float32) + r.to(tl.float32)).to(x.dtype).to(tl.float32)
        d = tl.where(mask, h - mean[:, None], 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=1) / D + eps)
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = row_ok[:, None] & (cols < D)[None, :]
        x = tl.load(xr + cols[None, :] * sxc, mask=mask, other=0.0)
        r = tl.load(rr + cols[None, :] * src, mask=mask, other=0.0)
        h = (x.to(tl.float32) + r.to(tl.float32)).to(x.dtype)
        w = tl.load(w_ptr + cols, mask=cols < D, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=cols < D, other=0.0).to(tl.float32)
        y = (h.to(tl.float32) - mean[:, None]) * rstd[:, None] * w[None, :] + b[None, :]
        tl.store(h_ptr + orow + cols[None, :], h, mask=mask)
        tl.store(out_ptr + orow + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def add_layer_norm(input, residual, weight, bias, eps=1e-05):
    D = input.shape[-1]
    x = input.reshape(-1, D)
    r = residual.reshape(-1, D)
    n_rows = x.shape[0]
    out = torch.empty((n_rows, D), dtype=input.dtype, device=input.device)
    h = torch.empty((n_rows, D), dtype=input.dtype, device=input.device)
    ROWS = 4
    BLOCK = min(triton.next_power_of_2(D), 1024)
    _add_ln_rows[(triton.cdiv(n_rows, ROWS),)](x, r, weight.contiguous(), bias.contiguous(), out, h, n_rows, D,
                                               x.stride(0), x.stride(1), r.stride(0), r.stride(1), float(eps),
                                               ROWS=ROWS, BLOCK=BLOCK)
    return out.view(input.shape), h.view(input.shape)
