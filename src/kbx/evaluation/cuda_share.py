"""GPU memory handed from one process to another as a file descriptor (the CUDA driver's virtual memory API).

A candidate worker's outputs reach the trusted worker without leaving the GPU: the worker copies each large output
into an allocation of its own (`export`), the driver turns that allocation into a POSIX file descriptor, the
descriptor travels over Unix sockets (SCM_RIGHTS: candidate worker → orchestrator → trusted worker), and the trusted
worker maps it and copies the bytes out before judging them (`import_copy`).

Why this API and not `cudaIpcGetMemHandle`: a legacy IPC handle names the exporting process by its PID, and the
candidate runs in a PID namespace of its own, where that PID means nothing to the importer. A descriptor passed by
the two sides themselves names nothing. Each export is a dedicated allocation, rounded up to the driver's
granularity, holding one output and zeros: the importer sees no neighbouring memory of the exporter's, and the
exporter never sees any of the importer's.

Only ctypes into `libcuda.so.1` and torch; both processes must have made torch's CUDA context current first.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import Any

_ALLOCATION_PINNED = 1
_HANDLE_POSIX_FD = 1
_LOCATION_DEVICE = 1
_ACCESS_READ = 1
_ACCESS_READ_WRITE = 3
_GRANULARITY_MINIMUM = 0
_OUT_OF_MEMORY = 2  # CUDA_ERROR_OUT_OF_MEMORY


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [
        ("compressionType", ctypes.c_ubyte),
        ("gpuDirectRDMACapable", ctypes.c_ubyte),
        ("usage", ctypes.c_ushort),
        ("reserved", ctypes.c_ubyte * 4),
    ]


class _AllocationProp(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("requestedHandleTypes", ctypes.c_int),
        ("location", _Location),
        ("win32HandleMetaData", ctypes.c_void_p),
        ("allocFlags", _AllocFlags),
    ]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


class CudaShareError(RuntimeError):
    """A driver call failed (named with its error code), or a shared block's description does not add up."""


@dataclass(frozen=True)
class SharedBlock:
    """What travels beside the descriptor: how many bytes were mapped, and which of them hold the tensor."""

    size: int
    """Bytes of the allocation (a multiple of the driver's granularity)."""
    nbytes: int
    """Bytes of the tensor at the start of it."""
    dtype: str
    shape: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"size": self.size, "nbytes": self.nbytes, "dtype": self.dtype, "shape": list(self.shape)}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> SharedBlock:
        return SharedBlock(raw["size"], raw["nbytes"], raw["dtype"], tuple(raw["shape"]))


_driver: ctypes.CDLL | None = None


def _cuda() -> ctypes.CDLL:
    global _driver
    if _driver is None:
        _driver = ctypes.CDLL("libcuda.so.1")
    return _driver


def _call(name: str, *args: Any) -> None:
    code = getattr(_cuda(), name)(*args)
    if code == _OUT_OF_MEMORY:
        raise CudaShareError(f"{name} failed with CUDA error {code} (out of memory)")
    if code != 0:
        raise CudaShareError(f"{name} failed with CUDA error {code}")


def _prop(device: int) -> _AllocationProp:
    prop = _AllocationProp()
    prop.type = _ALLOCATION_PINNED
    prop.requestedHandleTypes = _HANDLE_POSIX_FD
    prop.location = _Location(_LOCATION_DEVICE, device)
    return prop


def granularity(device: int) -> int:
    value = ctypes.c_size_t()
    _call("cuMemGetAllocationGranularity", ctypes.byref(value), ctypes.byref(_prop(device)), _GRANULARITY_MINIMUM)
    return value.value


class _Bytes:
    """A device pointer seen by torch as a uint8 array (`__cuda_array_interface__`), without a copy."""

    def __init__(self, pointer: int, nbytes: int) -> None:
        self.__cuda_array_interface__ = {
            "shape": (nbytes,), "typestr": "|u1", "data": (pointer, False), "version": 3, "strides": None,
        }


class _Mapping:
    """An allocation mapped at an address of this process; `close` unmaps it and lets go of the allocation."""

    def __init__(self, handle: int, size: int, device: int, access: int) -> None:
        self.handle, self.size = handle, size
        pointer = ctypes.c_uint64()
        _call("cuMemAddressReserve", ctypes.byref(pointer), ctypes.c_size_t(size), ctypes.c_size_t(0),
              ctypes.c_uint64(0), ctypes.c_uint64(0))
        self.pointer = pointer.value
        try:
            _call("cuMemMap", ctypes.c_uint64(self.pointer), ctypes.c_size_t(size), ctypes.c_size_t(0),
                  ctypes.c_uint64(handle), ctypes.c_uint64(0))
            access_desc = _AccessDesc(_Location(_LOCATION_DEVICE, device), access)
            _call("cuMemSetAccess", ctypes.c_uint64(self.pointer), ctypes.c_size_t(size),
                  ctypes.byref(access_desc), ctypes.c_size_t(1))
        except CudaShareError:
            self.close()
            raise

    def bytes(self, nbytes: int) -> Any:
        import torch

        return torch.as_tensor(_Bytes(self.pointer, nbytes), device="cuda")

    def close(self) -> None:
        if self.pointer:
            _cuda().cuMemUnmap(ctypes.c_uint64(self.pointer), ctypes.c_size_t(self.size))
            _cuda().cuMemAddressFree(ctypes.c_uint64(self.pointer), ctypes.c_size_t(self.size))
            self.pointer = 0
        if self.handle:
            _cuda().cuMemRelease(ctypes.c_uint64(self.handle))
            self.handle = 0


class Export:
    """One tensor copied into a dedicated allocation; `fd` is the descriptor to send. Keep the object until the
    importer has copied the bytes out, then `close` it."""

    def __init__(self, tensor: Any) -> None:
        import torch

        device = tensor.device.index if tensor.device.index is not None else torch.cuda.current_device()
        flat = tensor.detach().contiguous().view(-1).view(torch.uint8)
        step = granularity(device)
        size = max(step, -(-flat.numel() // step) * step)
        handle = ctypes.c_uint64()
        _call("cuMemCreate", ctypes.byref(handle), ctypes.c_size_t(size), ctypes.byref(_prop(device)),
              ctypes.c_uint64(0))
        self._mapping = _Mapping(handle.value, size, device, _ACCESS_READ_WRITE)
        try:
            target = self._mapping.bytes(size)
            target[flat.numel():].zero_()
            target[: flat.numel()].copy_(flat)
            torch.cuda.synchronize(device)
            fd = ctypes.c_int(-1)
            _call("cuMemExportToShareableHandle", ctypes.byref(fd), ctypes.c_uint64(handle.value), _HANDLE_POSIX_FD,
                  ctypes.c_uint64(0))
        except BaseException:
            self._mapping.close()
            raise
        self.fd = fd.value
        self.block = SharedBlock(size, flat.numel(), str(tensor.dtype).removeprefix("torch."), tuple(tensor.shape))

    def close(self) -> None:
        self._mapping.close()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def import_copy(fd: int, block: SharedBlock) -> Any:
    """A tensor of this process holding a copy of the shared block's tensor; the descriptor is closed. Raises
    CudaShareError when the description does not fit (a dtype torch lacks, a shape that does not make `nbytes`,
    more bytes than mapped) or the driver refuses the descriptor."""
    import torch

    try:
        dtype = getattr(torch, block.dtype, None)
        if not isinstance(dtype, torch.dtype):
            raise CudaShareError(f"no such dtype: {block.dtype!r}")
        numel = 1
        for extent in block.shape:
            if not isinstance(extent, int) or extent < 0:
                raise CudaShareError(f"not a shape: {block.shape!r}")
            numel *= extent
        if numel * dtype.itemsize != block.nbytes or not 0 < block.nbytes <= block.size:
            raise CudaShareError(f"{block.nbytes} bytes cannot hold {block.dtype} {list(block.shape)} "
                                 f"within {block.size} mapped")
        device = torch.cuda.current_device()
        torch.cuda.synchronize(device)  # the runtime makes its context current on this thread: the driver calls need it
        handle = ctypes.c_uint64()
        _call("cuMemImportFromShareableHandle", ctypes.byref(handle), ctypes.c_void_p(fd), _HANDLE_POSIX_FD)
        mapping = _Mapping(handle.value, block.size, device, _ACCESS_READ)
        try:
            copy = mapping.bytes(block.nbytes).clone()
            torch.cuda.synchronize(device)
        finally:
            mapping.close()
        return copy.view(dtype).view(block.shape)
    finally:
        os.close(fd)
