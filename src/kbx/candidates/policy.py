"""Which rules an evaluation applies: the candidate's own kernels must do the work, or the candidate is the task's
own reference code.

The policy is a field of the `Candidate` value, set by the trusted side that made the candidate (a method:
`kbx.methods.reference` for a KernelBench problem's own `Model`), never read from the candidate's source: nothing a
candidate writes, a module-level variable of this name included, reaches it. Every candidate read from files or
replies (`kbx eval`, the generating methods, `kbx.evaluate`) gets `Policy.KERNEL`.

Under `Policy.REFERENCE_CODE` the rules whose purpose is "the candidate's own kernels did the work" are not applied,
since the code under evaluation is the task's PyTorch reference, which has no kernels of its own:
- static: a `@triton.jit` kernel defined and launched (`triton_kernel`), a `__global__` kernel built and used
  (`cuda_kernel`), the task's forbidden torch operations (`torch_fallback`);
- runtime, in the worker's guards: `runtime.foreign_kernel` and `runtime.no_kernel_launch` (per call and over the
  timed calls);
- runtime, in the orchestrator: `runtime.torch_compute` and the launch trace's rules (`runtime.foreign_kernel`,
  `runtime.host_copy`, `runtime.no_kernel_launch`).
Everything else stays: the confinement, every other static rule (allowed imports, no threads, no dynamic code, ...),
the audit hook and the guards' other checks, the channel's protocol, the trusted worker's judgement on every case,
INPUT_MUTATED, the output checks and, on a GPU, the performance stage and its re-checks. Each row records its policy
(`Evaluation.policy`), and it is part of the store's cache key, so a verdict reached under one policy is never
served to the other or mistaken for a kernel's.
"""

from __future__ import annotations

from enum import Enum


class Policy(Enum):
    """The rules an evaluation applies (above)."""

    KERNEL = "kernel"
    """A kernel under test: every rule."""
    REFERENCE_CODE = "reference-code"
    """The task's own reference code as a candidate (an oracle row): the rules on whose kernels did the work are off."""

    @property
    def own_kernels_required(self) -> bool:
        """Whether the candidate's own kernels must do the work (the rules listed in the module's docstring)."""
        return self is Policy.KERNEL

    @property
    def relaxed(self) -> str:
        """One line saying which rules this policy leaves out and why; empty for `KERNEL`."""
        if self is Policy.KERNEL:
            return ""
        return ("the candidates are the problems' own reference code, so the rules that the candidate's own kernels "
                "do the work (a launched kernel, runtime.torch_compute, runtime.foreign_kernel, runtime.host_copy, "
                "runtime.no_kernel_launch) were not applied; every other rule was")
