"""Known GPUs' headline figures, for telling a model what it is writing for (not for timing: `kbx.timing.peaks`
measures the real peaks). Dense tensor-core figures; fp16/bf16 with fp32 accumulation; datasheet values."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gpu:
    name: str
    sms: int
    memory_gb: int
    bandwidth_tbs: float
    """Peak DRAM bandwidth, TB/s."""
    fp32_tflops: float
    """Non-tensor-core fp32."""
    tf32_tflops: float
    fp16_tflops: float
    """fp16/bf16 tensor cores, fp32 accumulation."""
    l2_mb: int

    def describe(self) -> str:
        return (f"NVIDIA {self.name}: {self.sms} SMs, {self.memory_gb} GB at {self.bandwidth_tbs:g} TB/s, "
                f"{self.l2_mb} MB L2; peak {self.fp32_tflops:g} TFLOP/s fp32 (CUDA cores), {self.tf32_tflops:g} "
                f"TFLOP/s tf32 and {self.fp16_tflops:g} TFLOP/s fp16/bf16 on tensor cores (dense)")


KNOWN_GPUS: tuple[Gpu, ...] = (
    Gpu("H200", 132, 141, 4.8, 67.0, 494.0, 989.0, 50),
    Gpu("H100", 132, 80, 3.35, 67.0, 494.0, 989.0, 50),
    Gpu("A100", 108, 80, 2.04, 19.5, 156.0, 312.0, 40),
    Gpu("L40S", 142, 48, 0.864, 91.6, 183.0, 362.0, 96),
    Gpu("RTX 5090", 170, 32, 1.792, 104.8, 104.8, 209.5, 96),
    Gpu("RTX 4090", 128, 24, 1.008, 82.6, 82.6, 165.2, 72),
)
"""Matched in this order against a device name, so `H200` is tried before `H100`."""


def find_gpu(name: str) -> Gpu | None:
    """The known GPU a device name (`NVIDIA H100 80GB HBM3`, `h100`, `GeForce RTX 4090`) refers to."""
    wanted = name.lower().replace("-", " ")
    return next((gpu for gpu in KNOWN_GPUS if gpu.name.lower() in wanted), None)


def describe_target(name: str | None) -> str:
    """One paragraph on the device the kernel will run on; None means the CPU through Triton's interpreter."""
    if name is None or name.lower() == "cpu":
        return ("CPU through Triton's interpreter (TRITON_INTERPRET=1): correctness only, no timings. Write the "
                "kernel as you would for a modern NVIDIA GPU; it must also run under the interpreter.")
    gpu = find_gpu(name)
    if gpu is None:
        return f"{name} (kbx has no figures for this GPU)."
    return gpu.describe() + "."
