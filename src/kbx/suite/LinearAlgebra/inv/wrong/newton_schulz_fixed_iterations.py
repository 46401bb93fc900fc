"""Newton-Schulz iteration with a fixed count: X <- X (2I - A X) from X0 = Aᵀ / (‖A‖₁ ‖A‖∞), 24 times, all in
tl.dot. Each step squares the residual I - A X, but only once every eigenvalue of A X0 has grown near 1, which
takes about log2(‖A‖₁ ‖A‖∞ / σ_min(A)²) doublings first: a handful for a well-conditioned A, about 30 for
cond(A) = 1e4. A count tuned on well-conditioned inputs stops far from A⁻¹ on ill-conditioned ones; an honest
kernel iterates until the residual is small, or eliminates with pivoting.

Measured (scripts/verify_tasks.py, CPU interpreter): PASSED every workload before check_cond_1e4 was added;
MISMATCH after, 4,327 of its 4,356 elements out, the worst at 519x its bound (460-510x at seeds 0 and 1, where
its worst element on the other workloads sits at 0.10 of its bound)."""


import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
ITERATIONS = 24


@triton.jit
def _inv_kernel(a_ptr, x_ptr, n, sab, sar, sac, sxb, sxr, sxc, ITERS: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    rows = tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < n) & (cols[None, :] < n)
    a = tl.load(a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac, mask=inside, other=0.0).to(tl.float32)
    # X0 = Aᵀ / (‖A‖₁ ‖A‖∞) puts every eigenvalue of A X0 in (0, 1], where the iteration converges.
    norm_1 = tl.max(tl.sum(tl.abs(a), axis=0), axis=0)
    norm_inf = tl.max(tl.sum(tl.abs(a), axis=1), axis=0)
    x = tl.trans(a) / (norm_1 * norm_inf)
    for _ in range(ITERS):
        ax = tl.dot(a, x, input_precision="ieee")
        x = 2.0 * x - tl.dot(x, ax, input_precision="ieee")
    tl.store(x_ptr + b * sxb + rows[:, None] * sxr + cols[None, :] * sxc, x.to(x_ptr.dtype.element_ty), mask=inside)


def inv(A):
    n = A.shape[-1]
    assert A.shape[-2] == n and n <= 64, "square A with n <= 64 (batched small matrices)"
    out = torch.empty(A.shape, dtype=A.dtype, device=A.device)
    a = A.reshape(-1, n, n)  # a view whenever the batch dims merge; a copy otherwise
    x = out.view(-1, n, n)
    if out.numel() == 0:
        return out
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    _inv_kernel[(x.shape[0],)](a, x, n, *a.stride(), *x.stride(), ITERS=ITERATIONS, BLOCK_N=BLOCK_N, num_warps=4)
    return out
