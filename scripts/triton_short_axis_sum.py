"""A Triton broadcast-product sum over a short axis, against float64 (GPU only; `docs/gpu-verification.md`, session 28).

    python scripts/triton_short_axis_sum.py

`tl.sum(a[:, :, None] * b[None, :, :], axis=1)` is a matrix product written without `tl.dot`. With Triton 3.6 on an
H200 (2026-11-29) it came out wrong for a summed axis shorter than 8, and with TF32's error for fp32 inputs at 8 and
16: the compiler makes it an MMA. One line per shape: the largest error and the largest output.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _product_sum(a_ptr, b_ptr, c_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rk = tl.arange(0, K)
    rn = tl.arange(0, N)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :]).to(tl.float32)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :]).to(tl.float32)
    acc = tl.zeros((M, N), dtype=tl.float32)
    acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def main() -> None:
    for dtype in (torch.float16, torch.float32):
        for m, k, n in ((128, 1, 16), (128, 4, 16), (128, 8, 16), (128, 16, 16), (64, 4, 32), (32, 2, 32)):
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            c = torch.empty(m, n, device="cuda", dtype=torch.float32)
            _product_sum[(1,)](a, b, c, m, k, n)
            truth = a.double() @ b.double()
            err = (c.double() - truth).abs().max().item()
            print(f"{dtype} M={m} K={k} N={n}: max error {err:.3g} (largest output {truth.abs().max().item():.3g})")


if __name__ == "__main__":
    main()
