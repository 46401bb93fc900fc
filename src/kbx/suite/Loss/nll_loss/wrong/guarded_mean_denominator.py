"""'mean' divides by max(total weight, tiny), the usual guard against a zero denominator.

Identical to F.nll_loss whenever at least one target is not ignored. When every target of the batch equals
ignore_index (an all-padding batch, a legal input) PyTorch returns 0 / 0 = NaN; this kernel returns 0. It passes
every workload but `check_mean_all_ignored`, where 0 is judged against a NaN truth (a NaN matches only a NaN).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

BLOCK = 1024  # positions per tile
PROGRAMS_PER_SM = 4  # persistent grid size for the reducing launch


@triton.jit
def _tile(x_ptr, t_ptr, w_ptr, p, n_pos, D, sN, sC, sD, ignore_index, HAS_WEIGHT: tl.constexpr):
    # Losses and weights of the positions p (int64); ignored and out-of-range positions get 0 and 0.
    in_range = p < n_pos
    t = tl.load(t_ptr + p, mask=in_range, other=ignore_index)
    valid = in_range & (t != ignore_index)
    n = p // D
    d = p - n * D
    # The gather: only valid positions are loaded, so an ignore_index outside [0, C) is never dereferenced.
    x = tl.load(x_ptr + n * sN + t * sC + d * sD, mask=valid, other=0.0).to(tl.float32)
    if HAS_WEIGHT:
        w = tl.load(w_ptr + t, mask=valid, other=0.0).to(tl.float32)
    else:
        w = valid.to(tl.float32)
    return -(w * x), w


@triton.jit
def _nll_none_kernel(x_ptr, t_ptr, w_ptr, out_ptr, n_pos, D, sN, sC, sD, ignore_index,
                     HAS_WEIGHT: tl.constexpr, BLOCK: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    loss, _ = _tile(x_ptr, t_ptr, w_ptr, p, n_pos, D, sN, sC, sD, ignore_index, HAS_WEIGHT)
    tl.store(out_ptr + p, loss.to(out_ptr.dtype.element_ty), mask=p < n_pos)


@triton.jit
def _nll_partial_kernel(x_ptr, t_ptr, w_ptr, loss_ptr, wsum_ptr, n_pos, D, sN, sC, sD, ignore_index,
                        HAS_WEIGHT: tl.constexpr, BLOCK: tl.constexpr):
    # Grid-stride loop over position tiles; the weighted loss and the weight accumulate in fp32 lanes.
    pid = tl.program_id(0)
    loss_acc = tl.zeros([BLOCK], dtype=tl.float32)
    w_acc = tl.zeros([BLOCK], dtype=tl.float32)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    for start in range(pid.to(tl.int64) * BLOCK, n_pos, step):
        p = start + tl.arange(0, BLOCK)
        loss, w = _tile(x_ptr, t_ptr, w_ptr, p, n_pos, D, sN, sC, sD, ignore_index, HAS_WEIGHT)
        loss_acc += loss
        w_acc += w
    tl.store(loss_ptr + pid, tl.sum(loss_acc, axis=0))
    tl.store(wsum_ptr + pid, tl.sum(w_acc, axis=0))


@triton.jit
def _finish_kernel(loss_ptr, wsum_ptr, out_ptr, n_partials, MEAN: tl.constexpr, BLOCK: tl.constexpr):
    # One program: add the partial sums in a fixed order; 'mean' divides by the total weight (0 / 0 = NaN when
    # every target is ignored, as in PyTorch).
    loss = tl.zeros([BLOCK], dtype=tl.float32)
    wsum = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        loss += tl.load(loss_ptr + offs, mask=offs < n_partials, other=0.0)
        wsum += tl.load(wsum_ptr + offs, mask=offs < n_partials, other=0.0)
    total = tl.sum(loss, axis=0)
    if MEAN:
        total = total / tl.maximum(tl.sum(wsum, axis=0), 1e-12)
    tl.store(out_ptr, total.to(out_ptr.dtype.element_ty))


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    x = input[None] if input.dim() == 1 else input  # unbatched (C,) with a 0-d target
    t = target.reshape(-1).contiguous()  # positions in (n, d1, d2, ...) order
    if x.dim() == 2:
        D, (sN, sC), sD = 1, x.stride(), 0  # read in place through the strides
    else:
        x = x.contiguous()
        D = x[0, 0].numel()
        sN, sC, sD = x.stride(0), x.stride(1), 1
    n_pos = t.numel()
    w = weight.contiguous() if weight is not None else None

    if reduction == "none":
        out = torch.empty(target.shape, dtype=input.dtype, device=input.device)
        if n_pos:
            _nll_none_kernel[(triton.cdiv(n_pos, BLOCK),)](x, t, w, out, n_pos, D, sN, sC, sD, ignore_index,
                                                           HAS_WEIGHT=w is not None, BLOCK=BLOCK, num_warps=4)
        return out

    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.device.type == "cuda" else 132
    grid = max(1, min(triton.cdiv(n_pos, BLOCK), PROGRAMS_PER_SM * sms))
    loss_part = torch.empty(grid, dtype=torch.float32, device=x.device)
    w_part = torch.empty(grid, dtype=torch.float32, device=x.device)
    _nll_partial_kernel[(grid,)](x, t, w, loss_part, w_part, n_pos, D, sN, sC, sD, ignore_index,
                                 HAS_WEIGHT=w is not None, BLOCK=BLOCK, num_warps=4)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    _finish_kernel[(1,)](loss_part, w_part, out, grid, MEAN=reduction == "mean", BLOCK=1024, num_warps=4)
    return out
