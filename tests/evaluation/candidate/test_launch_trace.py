"""The launch trace's summary, from events shaped as torch's profiler saves them (seen on an H100 with torch 2.11):
which kernels are the candidate's own, which a torch operator launched, which neither, and the host copies. The
tracer itself needs a GPU: tests/gpu/test_launch_trace_gpu.py."""

from __future__ import annotations

import torch

from kbx.evaluation.candidate.launch_trace import largest_bytes, summarise


def op(name: str, external: int, cat: str = "cpu_op") -> dict:
    return {"ph": "X", "cat": cat, "name": name, "args": {"External id": external}}


def api(name: str, correlation: int, external: int | None = None) -> dict:
    args = {"correlation": correlation, **({} if external is None else {"External id": external})}
    return {"ph": "X", "cat": "cuda_driver" if name.startswith("cu") and not name.startswith("cuda") else
            "cuda_runtime", "name": name, "args": args}


def kernel(name: str, correlation: int, external: int | None = None, microseconds: float = 2.0) -> dict:
    args = {"correlation": correlation, "grid": [1, 1, 1], **({} if external is None else {"External id": external})}
    return {"ph": "X", "cat": "kernel", "name": name, "dur": microseconds, "args": args}


def copy(direction: str, nbytes: int, external: int | None = None) -> dict:
    args = {"bytes": nbytes, **({} if external is None else {"External id": external})}
    return {"ph": "X", "cat": "gpu_memcpy", "name": f"Memcpy {direction} (Device -> Pageable)", "args": args}


OWN = {"relu_kernel"}
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"


def test_own_kernels_and_an_operators_kernels_are_told_apart():
    events = [
        op("aten::zeros", 7), api("cudaLaunchKernel", 10, 7), kernel(FILL, 10, 7),
        api("cuLaunchKernelEx", 11), kernel("relu_kernel", 11),
        api("cuLaunchKernelEx", 12), kernel("relu_kernel", 12),
    ]
    launches = summarise(events, OWN, 4000)
    assert (launches.own, launches.dispatched, dict(launches.foreign)) == (2, 1, {})


def test_a_replayed_graph_is_foreign_even_under_an_own_kernels_name():
    events = [
        api("cudaGraphLaunch", 20), kernel("sm80_xmma_gemm_f32f32_nn", 20),
        api("cudaGraphLaunch", 21), kernel("relu_kernel", 21),
    ]
    launches = summarise(events, OWN, 4000)
    assert launches.own == 0 and dict(launches.foreign) == {"sm80_xmma_gemm_f32f32_nn": 1, "relu_kernel": 1}


def test_a_library_kernel_launched_outside_every_operator_is_foreign():
    """A matrix product run in a thread: the profiler records no operator there, so the kernel has no External id."""
    events = [api("cudaLaunchKernelExC", 30), kernel("sm80_xmma_gemm_f32f32_nn", 30)]
    assert dict(summarise(events, OWN, 4000).foreign) == {"sm80_xmma_gemm_f32f32_nn": 1}


def test_a_user_annotation_is_no_operator():
    """Kernels launched inside `record_function` carry the annotation's External id; only aten operators count."""
    events = [op("cover", 40, cat="user_annotation"), api("cudaLaunchKernel", 41, 40), kernel("ampere_sgemm", 41, 40)]
    assert dict(summarise(events, OWN, 4000).foreign) == {"ampere_sgemm": 1}


def test_a_kernel_named_own_but_not_compiled_here_is_foreign():
    events = [api("cuLaunchKernelEx", 50), kernel("nvjet_sm90_tst_128x64", 50)]
    assert dict(summarise(events, OWN, 4000).foreign) == {"nvjet_sm90_tst_128x64": 1}


def test_torchs_own_kernels_with_no_operator_on_record_are_counted_apart_with_their_time():
    events = [
        api("cuLaunchKernelEx", 70), kernel("relu_kernel", 70, microseconds=30.0),
        api("cudaLaunchKernel", 71), kernel(FILL, 71, microseconds=1.5),
    ]
    launches = summarise(events, OWN, 4000)
    assert not launches.foreign and dict(launches.stray_torch) == {FILL: 1}
    assert (launches.stray_torch_ns, launches.kernel_ns) == (1500, 31500)


def test_copies_between_host_and_device_are_added_up_and_device_copies_are_not():
    events = [
        op("aten::_to_copy", 60), copy("DtoH", 4096, 60), copy("HtoD", 1024), copy("DtoD", 10**6, 60),
        {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "args": {"bytes": 10**6}},
    ]
    launches = summarise(events, OWN, 4000)
    assert launches.host_bytes == 5120 and launches.largest_input_bytes == 4000


def test_events_that_are_no_complete_spans_are_ignored():
    events = [
        {"ph": "i", "cat": "kernel", "name": "x"}, "junk", {"ph": "X", "cat": "kernel", "name": "k", "args": None},
    ]
    assert dict(summarise(events, OWN, 0).foreign) == {"k": 1}


def test_the_largest_input_is_measured_in_bytes():
    inputs = {"x": torch.zeros(10, dtype=torch.float64), "y": torch.zeros(30, dtype=torch.float16), "alpha": 2.0}
    assert largest_bytes(inputs) == 80 and largest_bytes({}) == 0


def test_a_cuda_extensions_kernels_are_own_when_launched_through_the_runtime():
    """`<<<...>>>` compiles to `cudaLaunchKernel`: accepted for an extension's kernels
    (`kbx.evaluation.candidate.extensions.watch`), still not for a Triton candidate's, nor through a graph."""
    from kbx.evaluation.candidate.extensions import RUNTIME_LAUNCHERS
    from kbx.evaluation.candidate.launch_trace import OWN_LAUNCHERS

    name = "relu_f32(float const*, float*, long)"
    events = [api("cudaLaunchKernel", 40), kernel(name, 40), api("cudaGraphLaunch", 41), kernel(name, 41)]
    as_cuda = summarise(events, {name}, 4000, OWN_LAUNCHERS | RUNTIME_LAUNCHERS)
    assert as_cuda.own == 1 and dict(as_cuda.foreign) == {name: 1}
    assert summarise(events, {name}, 4000).own == 0
