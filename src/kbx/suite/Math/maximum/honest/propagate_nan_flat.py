"""An honest maximum with `tl.maximum(..., propagate_nan=ALL)` in the input dtype, on contiguous broadcast copies.

Triton's maximum takes a NaN policy: with `tl.PropagateNan.ALL` a NaN in either operand gives NaN, as
`torch.maximum` does (the default policy returns the other operand, as a GPU's max instruction does). The values are
compared in fp16/bf16 themselves (a select, nothing rounds). The operands go through `torch.broadcast_tensors` and
`.contiguous()`, and one program handles each block of the flat output with int64 offsets (the output may pass
2^31 elements). The solution reads strided operands in place and handles NaN with explicit selects.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _maximum_flat(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL), mask=mask)


def maximum(input, other):
    a, b = (t.contiguous() for t in torch.broadcast_tensors(input, other))
    out = torch.empty(a.shape, dtype=torch.result_type(input, other), device=input.device)
    n = out.numel()
    if n == 0:
        return out
    BLOCK = 2048
    _maximum_flat[(triton.cdiv(n, BLOCK),)](a, b, out, n, BLOCK=BLOCK, num_warps=8)
    return out
