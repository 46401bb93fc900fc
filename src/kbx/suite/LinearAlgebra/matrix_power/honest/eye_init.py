"""An honest matrix_power: the running product starts as torch.eye(N) expanded over the batch (a contiguous copy),
then host-side binary exponentiation, right to left, with one batched Triton matmul launch per product (the whole
N x N tile in registers, fp32 accumulation with input_precision="ieee", each intermediate stored in the input's
dtype as PyTorch stores it); a copy kernel writes the result (for n = 0 the identity itself).

Regression (2026-11-28): `runtime.torch_compute` counted `torch.eye` as torch's work (256 elements on the 3 x 16 x 16
smoke, REJECTED_RUNTIME), though the identity is a constant like `ones`; it is now an allowed fill.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _bmm(a_ptr, b_ptr, c_ptr, N, sab, sar, sac, sbb, sbr, sbc, BN: tl.constexpr):
    bb = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, BN)
    ok = (r[:, None] < N) & (r[None, :] < N)
    x = tl.load(a_ptr + bb * sab + r[:, None] * sar + r[None, :] * sac, mask=ok, other=0.0).to(tl.float32)
    y = tl.load(b_ptr + bb * sbb + r[:, None] * sbr + r[None, :] * sbc, mask=ok, other=0.0).to(tl.float32)
    tl.store(c_ptr + bb * N * N + r[:, None] * N + r[None, :], tl.dot(x, y, input_precision="ieee")
             .to(c_ptr.dtype.element_ty), mask=ok)


@triton.jit
def _copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


def matrix_power(A, n):
    N = A.shape[-1]
    a = A.reshape(-1, N, N)
    nb = a.shape[0]
    BN = max(16, triton.next_power_of_2(N))
    result = torch.eye(N, dtype=A.dtype, device=A.device).expand(nb, N, N).contiguous()
    base, e = a, n
    while e:
        if e & 1:
            nxt = torch.empty_like(result)
            _bmm[(nb,)](result, base, nxt, N, *result.stride(), *base.stride(), BN=BN)
            result = nxt
        e >>= 1
        if e:
            sq = torch.empty((nb, N, N), dtype=A.dtype, device=A.device)
            _bmm[(nb,)](base, base, sq, N, *base.stride(), *base.stride(), BN=BN)
            base = sq
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    _copy[(triton.cdiv(out.numel(), 1024),)](result, out, out.numel(), BLOCK=1024)
    return out
