"""The rules on a call's launch trace (`kbx.evaluation.candidate.launch_trace` records it on a GPU), applied in the
orchestrator, out of the candidate's reach:

- `runtime.foreign_kernel`: no kernel may run that is neither the candidate's own (compiled by Triton in its process
  and launched by Triton's launcher; for a CUDA candidate also a `__global__` function of its compiled extensions,
  launched through the CUDA runtime) nor launched inside a torch operator. Kernels launched inside an operator do the
  work the torch-work recorder adds up (`kbx.evaluation.orchestrator.torch_work`: at most 1/8 of the largest input's
  elements); kernels launched outside every operator — a replayed CUDA graph, a library reached from a thread or
  from C — are seen by nothing else, and no honest wrapper launches one, so none is allowed. torch's own kernels
  with no operator on record (the profiler can miss the link now and then, `kbx.evaluation.candidate.launch_trace`)
  may take up to 1/STRAY_DIVISOR of the call's kernel time, or STRAY_MIN_NS, whichever is more.
- `runtime.host_copy`: the bytes copied between host and device during the call reach 1/HOST_COPY_DIVISOR of the
  largest input's (at least HOST_COPY_MIN_BYTES): the host did part of the work between two copies. Scalars
  (`.item()`) and small index lists pass.
- `runtime.no_kernel_launch`, for a CUDA candidate: the call launched none of its extensions' kernels.
"""

from __future__ import annotations

from kbx.evaluation.protocol import Launches

HOST_COPY_MIN_BYTES = 4096
HOST_COPY_DIVISOR = 8
STRAY_MIN_NS = 50_000
STRAY_DIVISOR = 8


def launch_violation(launches: Launches | None, own_required: bool = False) -> str:
    """Why a call's launch trace means work was done by something other than the candidate's kernels, or "".
    `own_required`: the call must launch at least one kernel of the candidate's own (a CUDA candidate, whose
    extensions' launches only the trace sees; a Triton candidate's are counted by its worker's guards)."""
    if launches is None:  # on the CPU: no trace
        return ""
    if own_required and launches.own == 0:
        return ("runtime.no_kernel_launch: the call launched no kernel of the candidate's compiled extensions "
                "(none of their __global__ functions ran on the GPU)")
    if launches.foreign:
        count = sum(launches.foreign.values())
        named = ", ".join(f"{name} (x{n})" for name, n in sorted(launches.foreign.items(), key=lambda i: -i[1])[:3])
        return (f"runtime.foreign_kernel: {count} launch(es) of kernels that are neither the candidate's own "
                f"(compiled by Triton in its process) nor launched by a torch operator: {named}")
    stray_limit = max(STRAY_MIN_NS, launches.kernel_ns // STRAY_DIVISOR)
    if launches.stray_torch_ns >= stray_limit:
        named = ", ".join(sorted(launches.stray_torch, key=lambda n: -launches.stray_torch[n])[:2])
        return (f"runtime.foreign_kernel: torch's kernels ran outside any torch operator for "
                f"{launches.stray_torch_ns / 1000:.0f} us of the call's {launches.kernel_ns / 1000:.0f} us of kernel "
                f"time, at least {stray_limit / 1000:.0f} us (1/{STRAY_DIVISOR}, min {STRAY_MIN_NS / 1000:.0f} us): "
                f"{named}")
    threshold = max(HOST_COPY_MIN_BYTES, launches.largest_input_bytes // HOST_COPY_DIVISOR)
    if launches.host_bytes >= threshold:
        return (f"runtime.host_copy: {launches.host_bytes} bytes went between host and device during the call, at "
                f"least {threshold} (1/{HOST_COPY_DIVISOR} of the largest input, min {HOST_COPY_MIN_BYTES}): the "
                "task's work must be done on the GPU by the candidate's own kernels")
    return ""
