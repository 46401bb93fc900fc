"""An honest outer written the way Triton's tutorials begin: `DEVICE = triton.runtime.driver.active
.get_active_torch_device()` and the SM count from `driver.active.utils.get_device_properties` at import, the output
allocated on DEVICE, a persistent grid of row programs (twice the SM count) each writing its rows in 1024-wide
blocks; the vectors are read through their strides, the product formed in fp32 and rounded once.

Regression (2026-11-28): on the CPU, Triton has no active driver ("0 active drivers"), so importing this file
raised; the interpreter now answers device queries for an H200 with the CPU as the device
(`kbx.evaluation.candidate.device_queries`).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
NUM_SM = triton.runtime.driver.active.utils.get_device_properties(DEVICE.index)["multiprocessor_count"]


@triton.jit
def outer_kernel(x_ptr, y_ptr, out_ptr, n, m, stride_x, stride_y, BLOCK_M: tl.constexpr):
    cols = tl.arange(0, BLOCK_M)
    for row in tl.range(tl.program_id(0), n, tl.num_programs(0)):
        x = tl.load(x_ptr + row * stride_x).to(tl.float32)
        for c0 in tl.range(0, m, BLOCK_M):
            c = c0 + cols
            y = tl.load(y_ptr + c * stride_y, mask=c < m, other=0.0).to(tl.float32)
            tl.store(out_ptr + row.to(tl.int64) * m + c, (x * y).to(out_ptr.dtype.element_ty), mask=c < m)


def outer(input, vec2):
    n, m = input.shape[0], vec2.shape[0]
    out = torch.empty((n, m), dtype=input.dtype, device=DEVICE)
    grid = (max(1, min(n, 2 * NUM_SM)),)
    outer_kernel[grid](input, vec2, out, n, m, input.stride(0), vec2.stride(0), BLOCK_M=1024)
    return out
