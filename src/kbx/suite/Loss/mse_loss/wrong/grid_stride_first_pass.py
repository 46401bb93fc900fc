"""Stops its persistent grid after the first pass: each program sums one tile, not every grid-th tile.

The solution's 'sum'/'mean' launch a grid of a few programs per SM that walk the tiles with a grid-sized stride;
here the walk ends after its first tile (`range(first, min(n, first + step), step)`, a bound taken for the end of
the loop). Wherever the grid covers the input in one pass the result is right: every check workload (at most 49k
elements, a dozen tiles of 4096) on any device. On a GPU the bench's 2^29 elements need about 250 passes of a
528-program grid (132 SMs): the sum misses more than 99 % of its terms.

GPU only: no check workload is larger than one pass of any plausible persistent grid, so the CPU interpreter runs
it correctly. Found by `scripts/mutants.py` (`first_block` survives on every grid-stride loss and on dot).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
DEVICE = "cuda"

BLOCK = 4096  # elements per tile: 16 KB of each fp32 operand in flight per program and iteration
PROGRAMS_PER_SM = 4  # persistent grid size for the reducing launch


@triton.jit
def _diff(x, y, dtype: tl.constexpr):
    # PyTorch's kernel computes `diff = a - b` in the input dtype, then `diff * diff`: for bf16 the difference is
    # rounded before squaring. Doing the same keeps 'none' outputs within one rounding of the reference (an fp32
    # difference can land two bf16 ulps away). A no-op for fp32.
    return (x - y).to(dtype).to(tl.float32)


@triton.jit
def _mse_kernel(x_ptr, y_ptr, out_ptr, n, REDUCE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    if REDUCE:
        # Grid-stride loop: program pid handles tiles pid, pid + grid, ...; partial sums stay in fp32 lanes.
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        step = tl.num_programs(0).to(tl.int64) * BLOCK
        for start in range(pid.to(tl.int64) * BLOCK, tl.minimum(n, pid.to(tl.int64) * BLOCK + step), step):
            offs = start + lanes
            mask = offs < n
            x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            # Round the difference to the input dtype as PyTorch does (see _diff); masked lanes add 0.
            d = _diff(x, y, x_ptr.dtype.element_ty)
            acc += d * d
        tl.store(out_ptr + pid, tl.sum(acc, axis=0))
    else:
        offs = pid.to(tl.int64) * BLOCK + lanes
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
        d = _diff(x, y, x_ptr.dtype.element_ty)
        tl.store(out_ptr + offs, (d * d).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _finish_kernel(partial_ptr, out_ptr, n_partials, scale, BLOCK: tl.constexpr):
    # One program: add the per-program partial sums in a fixed order, scale, round once to the output dtype.
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) * scale).to(out_ptr.dtype.element_ty))


def mse_loss(input, target, reduction="mean"):
    x = input.contiguous()
    y = target.contiguous()
    n = x.numel()
    if reduction == "none":
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        if n:
            _mse_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, REDUCE=False, BLOCK=BLOCK, num_warps=8)
        return out
    if reduction not in ("mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")

    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.device.type == "cuda" else 132
    grid = max(1, min(triton.cdiv(n, BLOCK), PROGRAMS_PER_SM * sms))
    partials = torch.empty(grid, dtype=torch.float32, device=x.device)
    _mse_kernel[(grid,)](x, y, partials, n, REDUCE=True, BLOCK=BLOCK, num_warps=8)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    scale = 1.0 / n if reduction == "mean" and n else (float("nan") if reduction == "mean" else 1.0)
    _finish_kernel[(1,)](partials, out, grid, scale, BLOCK=1024, num_warps=4)
    return out
