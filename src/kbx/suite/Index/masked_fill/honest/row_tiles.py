"""An honest masked_fill with a (row-block, column-block) grid: leading dims decoded once per row, bool mask loads.

The output is seen as rows of its last dimension. Program (i, j) takes ROWS rows (a ROWS x BLOCK tile of at
most 4096 elements, so short rows share a program), decodes each row into its (up to three) leading indices once,
then covers columns [j * BLOCK, (j + 1) * BLOCK) of those rows: the input and the mask
(expanded to the input's shape as a stride-0 view, passed as a bool tensor without any copy or cast) are read
through their own strides, and the row is written contiguously with `value` rounded to the dtype where the mask
is set. The suite's kernel decodes every element's four indices from one flat offset and reads the mask as
uint8.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _fill_rows(x_ptr, m_ptr, out_ptr, value, n_rows, D1, D2, L, xs0, xs1, xs2, xs3, ms0, ms1, ms2, ms3,
               ROWS: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    r_ok = r < n_rows
    r = r.to(tl.int64)
    i2 = r % D2
    i1 = (r // D2) % D1
    i0 = r // (D2 * D1)
    x_row = (i0 * xs0 + i1 * xs1 + i2 * xs2)[:, None]
    m_row = (i0 * ms0 + i1 * ms1 + i2 * ms2)[:, None]
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    c = cols.to(tl.int64)[None, :]
    ok = r_ok[:, None] & (cols < L)[None, :]
    x = tl.load(x_ptr + x_row + c * xs3, mask=ok)
    m = tl.load(m_ptr + m_row + c * ms3, mask=ok, other=False)
    fill = tl.full((ROWS, BLOCK), value, tl.float32).to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + r[:, None] * L + c, tl.where(m, fill, x), mask=ok)


def _as4(shape, strides):
    pad = 4 - len(shape)
    return [1] * pad + list(shape), [0] * pad + list(strides)


def masked_fill(input, mask, value):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if out.numel() == 0:
        return out
    m = mask.expand(input.shape)
    shape, xs = _as4(input.shape, input.stride())
    _, ms = _as4(m.shape, m.stride())
    _, D1, D2, L = shape
    rows = out.numel() // L
    BLOCK = min(1024, triton.next_power_of_2(L))
    ROWS = min(4096 // BLOCK, triton.next_power_of_2(rows))
    _fill_rows[(triton.cdiv(rows, ROWS), triton.cdiv(L, BLOCK))](input, m, out, float(value), rows, D1, D2, L, *xs,
                                                                *ms, ROWS=ROWS, BLOCK=BLOCK)
    return out
