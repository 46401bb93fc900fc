"""An honest conv2d written from Triton's matmul tutorial: its header (`DEVICE = triton.runtime.driver.active.
get_active_torch_device()`, `is_cuda()` choosing CUDA or HIP autotuning configs at import), an implicit GEMM over a
channels-last copy of the input (permute + contiguous), the weight repacked to (kH, kW, Cg, C_out), the tutorial's
grouped program order, `tl.dot` with `input_precision="ieee"` for float32 (fp32 accumulation for float16); the
NHWC result returned as a permuted view.

The header made it RUNTIME_ERROR on the CPU alone (with no GPU, Triton has no active driver and raises at import)
until kbx's interpreter shim gave it one (2026-11-28).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def is_cuda():
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


def get_hip_autotune_config():
    return [triton.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 16, "GROUP_M": 4}, num_warps=4, num_stages=2)]


def get_cuda_autotune_config():
    return [
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 16, "GROUP_M": 4}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=8, num_stages=3),
    ]


def get_autotune_config():
    return get_cuda_autotune_config() if is_cuda() else get_hip_autotune_config()


@triton.autotune(configs=get_autotune_config(), key=["M", "Og", "Cg", "KH", "KW"])
@triton.jit
def _igemm(x_ptr, w_ptr, b_ptr, y_ptr, M, OH, OW, H, W, C_in, Cg, Og, C_out,
           SH, SW, PH, PW, DH, DW,
           KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr, PREC: tl.constexpr,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    g = tl.program_id(1)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(Og, BLOCK_N)
    width = GROUP_M * num_n
    first_m = (pid // width) * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % size_m
    pid_n = (pid % width) // size_m

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < Og
    ow = rm % OW
    oh = (rm // OW) % OH
    nb = (rm // (OW * OH)).to(tl.int64)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for rs in range(0, KH * KW):
        r = rs // KW
        s = rs % KW
        ih = oh * SH - PH + r * DH
        iw = ow * SW - PW + s * DW
        inside = m_ok & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        pix = ((nb * H + ih) * W + iw) * C_in + g * Cg
        for c0 in range(0, Cg, BLOCK_K):
            c = c0 + rk
            a = tl.load(x_ptr + pix[:, None] + c[None, :], mask=inside[:, None] & (c < Cg)[None, :], other=0.0)
            b = tl.load(w_ptr + ((rs * Cg + c[:, None]) * C_out + g * Og + rn[None, :]),
                        mask=(c < Cg)[:, None] & n_ok[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision=PREC)
    if HAS_BIAS:
        acc += tl.load(b_ptr + g * Og + rn, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    y = y_ptr + rm.to(tl.int64)[:, None] * C_out + g * Og + rn[None, :]
    tl.store(y, acc.to(y_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    unbatched = input.ndim == 3
    x4 = input.unsqueeze(0) if unbatched else input
    N, C_in, H, W = x4.shape
    C_out, Cg, KH, KW = weight.shape
    SH, SW = (stride, stride) if isinstance(stride, int) else stride
    DH, DW = (dilation, dilation) if isinstance(dilation, int) else dilation
    if isinstance(padding, str):
        PH, PW = (0, 0) if padding == "valid" else (DH * (KH - 1) // 2, DW * (KW - 1) // 2)
        same = padding == "same"
    else:
        PH, PW = (padding, padding) if isinstance(padding, int) else padding
        same = False
    OH = H if same else (H + 2 * PH - DH * (KH - 1) - 1) // SH + 1
    OW = W if same else (W + 2 * PW - DW * (KW - 1) - 1) // SW + 1
    x_nhwc = x4.permute(0, 2, 3, 1).contiguous()
    w_packed = weight.permute(2, 3, 1, 0).contiguous()  # (KH, KW, Cg, C_out)
    y_nhwc = torch.empty((N, OH, OW, C_out), device=input.device, dtype=input.dtype)
    M, Og = N * OH * OW, C_out // groups
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(Og, meta["BLOCK_N"]), groups)
    _igemm[grid](x_nhwc, w_packed, bias if bias is not None else w_packed, y_nhwc, M, OH, OW, H, W, C_in, Cg, Og,
                 C_out, SH, SW, PH, PW, DH, DW, KH=KH, KW=KW, HAS_BIAS=bias is not None,
                 PREC="ieee" if input.dtype == torch.float32 else "tf32")
    y = y_nhwc.permute(0, 3, 1, 2)
    return y[0] if unbatched else y
