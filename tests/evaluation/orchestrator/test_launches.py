"""The launch-trace rules: no kernel from outside both the candidate and torch's operators, no task-sized copies
between host and device."""

from __future__ import annotations

import pytest

from kbx.evaluation.orchestrator.launches import HOST_COPY_MIN_BYTES, STRAY_MIN_NS, launch_violation
from kbx.evaluation.protocol import Launches


def launches(foreign=None, stray_ns=0, kernel_ns=1_000_000, host_bytes=0, largest=10**6) -> Launches:
    stray = {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>": 1} if stray_ns else {}
    return Launches(40, 12, foreign or {}, stray, stray_ns, kernel_ns, host_bytes, largest)


def test_no_trace_on_the_cpu_is_no_violation():
    assert launch_violation(None) == ""


def test_own_and_dispatched_kernels_pass():
    assert launch_violation(launches(host_bytes=8)) == ""


def test_a_single_foreign_launch_is_rejected_and_named():
    why = launch_violation(launches({"sm80_xmma_gemm_f32f32": 1}))
    assert why.startswith("runtime.foreign_kernel") and "sm80_xmma_gemm_f32f32 (x1)" in why


@pytest.mark.parametrize(
    ("host_bytes", "largest", "rejected"),
    [
        (8, 10**6, False),  # .item()
        (10**6 // 8 - 1, 10**6, False),
        (10**6 // 8, 10**6, True),  # an eighth of the input went to the host
        (HOST_COPY_MIN_BYTES - 1, 1000, False),  # small inputs: the floor decides
        (HOST_COPY_MIN_BYTES, 1000, True),
    ],
)
def test_host_copies_are_judged_against_the_largest_input(host_bytes, largest, rejected):
    why = launch_violation(launches(host_bytes=host_bytes, largest=largest))
    assert why.startswith("runtime.host_copy") if rejected else why == ""


@pytest.mark.parametrize(
    ("stray_ns", "kernel_ns", "rejected"),
    [
        (3_000, 10_000, False),  # a copy kernel whose operator the profiler missed, at check sizes: under the floor
        (STRAY_MIN_NS - 1, STRAY_MIN_NS, False),
        (STRAY_MIN_NS, STRAY_MIN_NS * 2, True),  # torch's kernels did half the call's GPU work
        (100_000, 10_000_000, False),  # a sliver of a long, autotuned call
        (2_000_000, 10_000_000, True),
    ],
)
def test_torchs_kernels_with_no_operator_on_record_get_a_small_share(stray_ns, kernel_ns, rejected):
    why = launch_violation(launches(stray_ns=stray_ns, kernel_ns=kernel_ns))
    assert why.startswith("runtime.foreign_kernel") if rejected else why == ""


def test_a_cuda_candidates_call_must_launch_a_kernel_of_its_extensions():
    """Its calls into the extension are recorded in its own process; only the trace shows a kernel ran."""
    none_of_its_own = Launches(0, 3, {}, {}, 0, 1_000_000, 0, 10**6)
    assert launch_violation(none_of_its_own) == ""  # a Triton candidate's launches are counted by its guards
    assert launch_violation(none_of_its_own, own_required=True).startswith("runtime.no_kernel_launch")
    assert launch_violation(launches(), own_required=True) == ""
