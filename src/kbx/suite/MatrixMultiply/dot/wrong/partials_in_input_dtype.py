"""Stores each program's partial sum in the input dtype (a bfloat16 partials buffer, "like the output").

Every partial is rounded to 8 significant bits before the final sum, an error of up to half a bf16 ulp of the
partial (8 for a partial near 4096). Where the vectors' halves cancel, the partials are in the thousands and the
result is O(1), so those roundings are the whole answer's error: 23x the tolerance. The reference keeps every
partial in fp32. (float32 inputs are unaffected.)
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

_MAX_PROGRAMS = 1024


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 4096}, num_warps=8),
        triton.Config({"BLOCK": 2048}, num_warps=8),
        triton.Config({"BLOCK": 1024}, num_warps=4),
        triton.Config({"BLOCK": 8192}, num_warps=16),
    ],
    key=["N"],
)
@triton.jit
def _dot_partials_kernel(a_ptr, b_ptr, partial_ptr, N, stride_a, stride_b, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_programs = tl.num_programs(0)
    offs = tl.arange(0, BLOCK).to(tl.int64)  # 64-bit, so idx * stride cannot overflow
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for chunk in range(pid, tl.cdiv(N, BLOCK), num_programs):
        idx = chunk * BLOCK + offs
        ok = idx < N
        a = tl.load(a_ptr + idx * stride_a, mask=ok, other=0.0)
        b = tl.load(b_ptr + idx * stride_b, mask=ok, other=0.0)
        acc += a.to(tl.float32) * b.to(tl.float32)
    tl.store(partial_ptr + pid, tl.sum(acc, axis=0).to(partial_ptr.dtype.element_ty))


@triton.jit
def _sum_partials_kernel(partial_ptr, out_ptr, G, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(partial_ptr + offs, mask=offs < G, other=0.0).to(tl.float32)
    tl.store(out_ptr, tl.sum(p, axis=0).to(out_ptr.dtype.element_ty))


def dot(input, tensor):
    assert input.dim() == 1 and input.shape == tensor.shape, "dot takes two 1-D tensors of the same length"
    N = input.shape[0]
    out = torch.empty((), device=input.device, dtype=input.dtype)
    # One partial per program, at most one program per chunk; programs the chosen BLOCK leaves without a launch
    # keep their zero partial.
    G = max(1, min(_MAX_PROGRAMS, triton.cdiv(N, 1024)))
    partials = torch.zeros((G,), device=input.device, dtype=input.dtype)
    grid = lambda meta: (min(G, triton.cdiv(N, meta["BLOCK"])),)
    _dot_partials_kernel[grid](input, tensor, partials, N, input.stride(0), tensor.stride(0))
    _sum_partials_kernel[(1,)](partials, out, G, BLOCK=triton.next_power_of_2(G))
    return out
