"""Walks input and gate each in its own memory order, so that a transposed operand is read without a copy.

The writer reasoned that an elementwise product may visit its elements in any order: every dense operand (a
contiguous tensor or a permutation of one, such as a transposed view) is flattened in storage order, the output
is allocated with torch.empty_like(input) (which keeps input's layout) and written in that order too. A
non-dense operand (the packed halves of one projection) is copied first. That pairs input[i] with gate[i] only
when the two share a memory layout: next to a transposed input a contiguous gate is read in a different order
(or the reverse), and each input element is gated by another element's sigmoid.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

BLOCK = 1024


@triton.jit
def _gate_kernel(x_ptr, g_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x / (1.0 + tl.exp(-g))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def _flat_in_storage_order(t):
    # Dense: the dims permuted by decreasing stride are contiguous, so a flat view walks memory in order.
    if t.is_contiguous():
        return t.view(-1)
    order = sorted(range(t.dim()), key=lambda d: -t.stride(d))
    p = t.permute(order)
    return p.view(-1) if p.is_contiguous() else None


def sigmoid_gate(input, gate):
    x = _flat_in_storage_order(input)
    if x is None:  # not dense: work on a contiguous copy
        input = input.contiguous()
        x = input.view(-1)
    g = _flat_in_storage_order(gate)
    if g is None:
        g = gate.contiguous().view(-1)
    out = torch.empty_like(input)  # input's layout, so out's storage order is x's
    y = _flat_in_storage_order(out)
    n = x.numel()
    if n:
        _gate_kernel[(triton.cdiv(n, BLOCK),)](x, g, y, n, BLOCK=BLOCK)
    return out
