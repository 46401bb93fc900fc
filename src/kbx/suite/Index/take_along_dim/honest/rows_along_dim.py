"""An honest take_along_dim that moves `dim` last (as views) and gathers one output row per program.

With `dim` given, input and indices are broadcast against each other (except along `dim`) as stride-0 views,
and `dim` is moved to the end of both and of the output, again as views. Program (r, j) (on one flat grid
axis) decodes row r into up to three leading indices, loads the j-th BLOCK of indices of that row, and gathers
input[row, index] through the input's stride along `dim`, writing through the output's strides. dim=None is
the same kernel on the flattened input (one row) and the flattened indices. The suite's kernel instead decodes
four indices per element from a flat offset and selects the gathered coordinate with tl.where.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _gather_rows(x_ptr, i_ptr, o_ptr, L, D1, D2, xs0, xs1, xs2, xsd, is0, is1, is2, isd, os0, os1, os2, osd,
                 BLOCK: tl.constexpr):
    blocks = tl.cdiv(L, BLOCK)
    pid = tl.program_id(0).to(tl.int64)  # one flat grid axis: a single 2^27-index row needs 2^17 blocks
    r = pid // blocks
    r2 = r % D2
    r1 = (r // D2) % D1
    r0 = r // (D2 * D1)
    j = (pid % blocks) * BLOCK + tl.arange(0, BLOCK)
    ok = j < L
    pos = tl.load(i_ptr + r0 * is0 + r1 * is1 + r2 * is2 + j * isd, mask=ok, other=0)
    v = tl.load(x_ptr + r0 * xs0 + r1 * xs1 + r2 * xs2 + pos * xsd, mask=ok)
    tl.store(o_ptr + r0 * os0 + r1 * os1 + r2 * os2 + j * osd, v, mask=ok)


def _lead(t):
    """The leading dims of a view as three (size, stride) pairs (padded with 1s; more than three must merge)."""
    sizes, strides = list(t.shape[:-1]), list(t.stride()[:-1])
    while len(sizes) > 3:
        assert strides[-2] == strides[-1] * sizes[-1], "leading dims do not merge"
        sizes[-2:] = [sizes[-2] * sizes[-1]]
        strides[-2:] = [strides[-1]]
    pad = 3 - len(sizes)
    return [1] * pad + sizes, [0] * pad + strides


def take_along_dim(input, indices, dim=None):
    if dim is None:
        x = input.reshape(1, -1)
        idx = indices.reshape(1, -1)
        out = torch.empty((indices.numel(),), dtype=input.dtype, device=input.device)
        o = out.view(1, -1)
    else:
        d = dim % input.dim()
        shape = list(torch.broadcast_shapes(*[tuple(1 if k == d else s for k, s in enumerate(t.shape))
                                              for t in (input, indices)]))
        x = input.expand([input.shape[d] if k == d else s for k, s in enumerate(shape)]).movedim(d, -1)
        shape[d] = indices.shape[d]
        idx = indices.expand(shape).movedim(d, -1)
        out = torch.empty(shape, dtype=input.dtype, device=input.device)
        o = out.movedim(d, -1)
    if out.numel() == 0:
        return out
    (_, D1, D2), xs = _lead(x)
    _, ist = _lead(idx)
    _, ost = _lead(o)
    L = idx.shape[-1]
    BLOCK = min(1024, triton.next_power_of_2(L))
    _gather_rows[(idx.numel() // L * triton.cdiv(L, BLOCK),)](
        x, idx, o, L, D1, D2, *xs, x.stride(-1), *ist, idx.stride(-1), *ost, o.stride(-1), BLOCK=BLOCK)
    return out
