"""An honest matmul_tf32 as a persistent kernel: one program per SM looping over (batch, tile) work items.

The grid is min(work items, SM count) programs; program p takes work items p, p + P, p + 2P, ... where a work
item is one (batch, row tile, column tile) of the output, enumerated batch-major and then row-major. Each item
is a `tl.dot` loop over K with TF32 tensor-core products (`input_precision="tf32"`, as the contract allows) and
an fp32 accumulator, stored as fp32. Broadcast batch dimensions become stride-0 views; operands are read in
place through their strides.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _persistent_tf32(a_ptr, b_ptr, c_ptr, NB, M, N, K, sab, sam, sak, sbb, sbk, sbn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_batch = tiles_m * tiles_n
    total = NB * per_batch
    rk = tl.arange(0, BLOCK_K)
    for item in range(tl.program_id(0), total, tl.num_programs(0)):
        batch = (item // per_batch).to(tl.int64)
        t = item % per_batch
        rm = (t // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = (t % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
        m_ok = rm < M
        n_ok = rn < N
        a_rows = a_ptr + batch * sab + rm.to(tl.int64)[:, None] * sam
        b_cols = b_ptr + batch * sbb + rn.to(tl.int64)[None, :] * sbn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            kk = k0 + rk
            k_ok = kk < K
            a = tl.load(a_rows + kk[None, :] * sak, mask=m_ok[:, None] & k_ok[None, :], other=0.0)
            b = tl.load(b_cols + kk[:, None] * sbk, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision="tf32")
        c_ptrs = c_ptr + batch * M * N + rm.to(tl.int64)[:, None] * N + rn[None, :]
        tl.store(c_ptrs, acc, mask=m_ok[:, None] & n_ok[None, :])


def _num_sms(device):
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4


def matmul_tf32(input, other):
    M, K = input.shape[-2:]
    N = other.shape[-1]
    batch = torch.broadcast_shapes(input.shape[:-2], other.shape[:-2])
    a = input.expand(*batch, M, K).reshape(-1, M, K)
    b = other.expand(*batch, K, N).reshape(-1, K, N)
    nb = a.shape[0]
    out = torch.empty((nb, M, N), dtype=torch.float32, device=input.device)
    if out.numel() > 0:
        BM, BN, BK = 64, 64, 32
        items = nb * triton.cdiv(M, BM) * triton.cdiv(N, BN)
        grid = (min(items, _num_sms(input.device)),)
        _persistent_tf32[grid](a, b, out, nb, M, N, K, *a.stride(), *b.stride(), BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return out.reshape(*batch, M, N)
