"""On a GPU: the launch trace tells the candidate's own kernels from torch's, and sees what nothing else sees —
kernels launched outside every torch operator (a replayed graph, a thread) and copies between host and device.
The tracer runs here in the test's own process, as it runs in the candidate worker."""

from __future__ import annotations

import threading

import pytest
import torch
import triton
import triton.language as tl

from kbx.evaluation.orchestrator.launches import launch_violation

pytestmark = pytest.mark.gpu


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.where(x < 0, 0, x), mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})], key=["n"])
@triton.jit
def _tuned_relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.where(x < 0, 0, x), mask=mask)


@pytest.fixture(scope="module")
def tracer(tmp_path_factory):
    from kbx.evaluation.candidate.launch_trace import LaunchTracer

    return LaunchTracer(tmp_path_factory.mktemp("trace"))


def relu(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    _relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y


def traced(tracer, inputs, call):
    with tracer.tracing(inputs):
        call()
    return tracer.last


@pytest.fixture
def x():
    return torch.randn(1 << 20, device="cuda")


def test_an_honest_wrapper_launches_only_its_own_kernels(tracer, x):
    relu(x)  # compiled and loaded before the trace, as an import would
    launches = traced(tracer, {"x": x}, lambda: relu(x))
    assert launches.own == 1 and not launches.foreign and launch_violation(launches) == ""


def test_torch_allocation_and_partial_sums_are_dispatched(tracer, x):
    launches = traced(tracer, {"x": x}, lambda: (relu(torch.zeros_like(x)), x[:1000].sum().item()))
    assert launches.own == 1 and launches.dispatched >= 2 and launch_violation(launches) == ""


def test_an_autotuned_kernel_benchmarking_inside_the_call_passes(tracer, x):
    y = torch.empty_like(x)
    launches = traced(tracer, {"x": x}, lambda: _tuned_relu_kernel[lambda m: (triton.cdiv(x.numel(), m["BLOCK"]),)](
        x, y, x.numel()))
    assert launches.own >= 2 and launch_violation(launches) == "", launches


def matmul_graph(a: torch.Tensor) -> torch.cuda.CUDAGraph:
    """A CUDA graph of `a @ a`, captured after a warm-up on a side stream (as capture requires)."""
    graph, side = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        a @ a
    torch.cuda.current_stream().wait_stream(side)
    with torch.cuda.graph(graph):
        a @ a
    return graph


def test_a_replayed_graph_of_torch_work_is_foreign(tracer):
    a = torch.randn(512, 512, device="cuda")
    launches = traced(tracer, {"a": a}, matmul_graph(a).replay)
    assert launches.foreign and launch_violation(launches).startswith("runtime.foreign_kernel")


def test_torch_work_in_a_joined_thread_is_foreign(tracer):
    a = torch.randn(512, 512, device="cuda")

    def in_thread() -> None:
        thread = threading.Thread(target=lambda: a @ a)
        thread.start()
        thread.join()

    launches = traced(tracer, {"a": a}, in_thread)
    assert launch_violation(launches).startswith("runtime.foreign_kernel")


def test_a_round_trip_through_the_host_is_seen(tracer, x):
    small = x[:4096]
    launches = traced(tracer, {"x": small}, lambda: torch.tensor(
        [max(v, 0.0) for v in small.tolist()], device="cuda"))
    assert launches.host_bytes >= 2 * small.numel() * 4
    assert launch_violation(launches).startswith("runtime.host_copy")


def test_an_annotation_does_not_make_a_replayed_graph_an_operator(tracer):
    a = torch.randn(256, 256, device="cuda")
    graph = matmul_graph(a)

    def annotated() -> None:
        with torch.autograd.profiler.record_function("cover"):
            graph.replay()

    assert launch_violation(traced(tracer, {"a": a}, annotated)).startswith("runtime.foreign_kernel")


def test_stopping_the_profiler_during_the_call_loses_the_trace(tracer, x):
    from kbx.evaluation.candidate.launch_trace import TraceLost

    with pytest.raises(TraceLost, match="runtime.trace_lost"):
        traced(tracer, {"x": x}, lambda: torch.autograd._disable_profiler())
    assert traced(tracer, {"x": x}, lambda: relu(x)).own == 1  # and the next trace works


def test_a_call_that_fails_keeps_its_own_error(tracer, x):
    """An honest kernel's error (here an exception after stopping the profiler) is reported as itself, not as a lost
    trace."""
    def fails() -> None:
        torch.autograd._disable_profiler()
        raise ValueError("the kernel's own error")

    with pytest.raises(ValueError, match="the kernel's own error"):
        traced(tracer, {"x": x}, fails)
    assert traced(tracer, {"x": x}, lambda: relu(x)).own == 1
