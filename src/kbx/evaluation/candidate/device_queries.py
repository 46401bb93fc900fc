"""GPU queries under the CPU interpreter: a wrapper that asks what GPU it runs on gets an answer, as on a GPU.

Wrappers written for a GPU size their grids from the device: a persistent kernel launches a few programs per SM,
`torch.cuda.get_device_properties(x.device).multi_processor_count`, or, as Triton's tutorials do,
`triton.runtime.driver.active.utils.get_device_properties(...)["multiprocessor_count"]` after
`DEVICE = triton.runtime.driver.active.get_active_torch_device()` at the top of the file. On a CPU machine torch
raises "Torch not compiled with CUDA enabled" and Triton "0 active drivers", so an honest persistent bernoulli was
RUNTIME_ERROR on the CPU for a reason of the machine, not of the kernel (2026-11-28). Here those queries answer
for one H200: the device torch's calls name is the CPU (where the tensors are), its properties are the H200's. The
answers size grids and choose configs; correctness cannot depend on them, as it cannot on an autotuned config.
Host code asking Triton for the target gets CUDA sm_90 (the tutorials' `is_cuda()`); a kernel being interpreted
gets none (`_InterpretedDriver`).

Only queries are answered: `torch.cuda.is_available()` stays False, and nothing can run on a device that is not
there. Installed on the CPU only (`install_interpreter_shims`), before the guards take their snapshot of torch.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

SM_COUNT = 132
CAPABILITY = (9, 0)
_SHARED_PER_BLOCK = 232448
_REGISTERS = 65536


@dataclasses.dataclass(frozen=True)
class InterpretedDeviceProperties:
    """What `torch.cuda.get_device_properties` says of an H200 (the fields kernels' wrappers read)."""

    name: str = "NVIDIA H200 (kbx CPU interpreter)"
    major: int = CAPABILITY[0]
    minor: int = CAPABILITY[1]
    multi_processor_count: int = SM_COUNT
    total_memory: int = 150_754_820_096
    L2_cache_size: int = 62_914_560  # noqa: N815 - torch's field name
    warp_size: int = 32
    max_threads_per_multi_processor: int = 2048
    max_threads_per_block: int = 1024
    regs_per_multiprocessor: int = _REGISTERS
    shared_memory_per_block: int = 49152
    shared_memory_per_block_optin: int = _SHARED_PER_BLOCK
    shared_memory_per_multiprocessor: int = 233472
    is_integrated: bool = False
    is_multi_gpu_board: bool = False


PROPERTIES = InterpretedDeviceProperties()


def install_device_queries() -> None:
    """Answer torch's and Triton's device queries where no GPU is; idempotent, and nothing where CUDA is there."""
    import torch

    if torch.cuda.is_available() or getattr(torch.cuda.get_device_properties, "_kbx_shimmed", False):
        return
    _shim_torch(torch)
    _shim_cuda_device_guard(torch)
    _shim_triton_driver()
    _shim_kernel_scope()


def _shim_torch(torch: Any) -> None:
    def get_device_properties(device: Any = None) -> InterpretedDeviceProperties:
        return PROPERTIES

    def get_device_capability(device: Any = None) -> tuple[int, int]:
        return CAPABILITY

    def get_device_name(device: Any = None) -> str:
        return PROPERTIES.name

    def current_device() -> int:
        return 0

    for shim in (get_device_properties, get_device_capability, get_device_name, current_device):
        shim._kbx_shimmed = True  # type: ignore[attr-defined]
        setattr(torch.cuda, shim.__name__, shim)


def _shim_cuda_device_guard(torch: Any) -> None:
    """`with torch.cuda.device(x.device.index):` around a launch (Mamba's and FlashAttention's Triton wrappers)
    selects the inputs' GPU; torch documents it as a no-op for None, but a torch built without CUDA raises on None (a
    TypeError) and on a CPU device (a ValueError), so an honest kernel failed on the CPU alone (2026-11-28). Here
    the inputs' device is the CPU, which stands for the GPU: the guard is a no-op for None and for a CPU device; a
    CUDA index still raises, as it does without a GPU."""
    guard = torch.cuda.device
    if getattr(guard.__init__, "_kbx_shimmed", False):
        return
    original = guard.__init__

    def init(self: Any, device: Any) -> None:
        if device is None or (isinstance(device, (str, torch.device)) and torch.device(device).type == "cpu"):
            self.idx = self.prev_idx = -1  # torch's own "nothing to select": enter and exit switch nothing
            return
        original(self, device)

    init._kbx_shimmed = True  # type: ignore[attr-defined]
    guard.__init__ = init


class _Utils:
    """`driver.active.utils`: the device properties as Triton's CUDA driver reports them."""

    @staticmethod
    def get_device_properties(device: Any = None) -> dict[str, int]:
        return {"max_shared_mem": _SHARED_PER_BLOCK, "max_num_regs": _REGISTERS, "multiprocessor_count": SM_COUNT,
                "warpSize": 32, "sm_clock_rate": 1_980_000, "mem_clock_rate": 3_201_000, "mem_bus_width": 6144}


class _InterpretedDriver:
    """`triton.runtime.driver.active` on a CPU machine: the device is the CPU, its properties an H200's.

    Its target depends on who asks. Host code gets the CUDA target the GPU frontend check lowers for (sm_90): the
    tutorials pick their autotuning configs by `driver.active.get_current_target().backend == "cuda"`, which raised
    on None (an honest conv2d written from the matmul tutorial). A kernel being interpreted gets None, as it did
    before there was a driver: `tl.target_info.is_cuda()` stays False there, so a kernel keeps the portable branch
    rather than inline PTX, which the interpreter cannot run."""

    utils = _Utils()

    @staticmethod
    def get_active_torch_device() -> Any:
        import torch

        return torch.device("cpu")

    @staticmethod
    def get_current_device() -> int:
        return 0

    @staticmethod
    def get_current_stream(device: Any = None) -> int:
        return 0

    @staticmethod
    def get_current_target() -> Any:
        if getattr(_INTERPRETING, "depth", 0):
            return None
        from triton.backends.compiler import GPUTarget

        return GPUTarget("cuda", 10 * CAPABILITY[0] + CAPABILITY[1], 32)

    @staticmethod
    def is_active() -> bool:
        return True


_INTERPRETING = threading.local()
"""`depth`: how many interpreted kernel launches this thread is inside."""


def _shim_kernel_scope() -> None:
    """Count the interpreter's kernel launches in `_INTERPRETING`, for `_InterpretedDriver.get_current_target`."""
    from triton.runtime.interpreter import GridExecutor

    original = GridExecutor.__call__
    if getattr(original, "_kbx_kernel_scope", False):
        return

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        _INTERPRETING.depth = getattr(_INTERPRETING, "depth", 0) + 1
        try:
            return original(self, *args, **kwargs)
        finally:
            _INTERPRETING.depth -= 1

    call._kbx_kernel_scope = True  # type: ignore[attr-defined]
    GridExecutor.__call__ = call


def _shim_triton_driver() -> None:
    from triton.runtime import driver

    try:
        driver.active  # noqa: B018 - a real driver, where one is active, is left alone
    except RuntimeError:
        driver.set_active(_InterpretedDriver())  # type: ignore[arg-type]
