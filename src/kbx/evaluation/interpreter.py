"""Make ordinary Triton code run under the CPU interpreter (`TRITON_INTERPRET=1`).

`@triton.autotune` with several configs benchmarks them through the active GPU driver, which a CPU-only
machine lacks. Under the interpreter timings mean nothing anyway, so the shim keeps the first config that
survives pruning; correctness does not depend on the config a kernel is launched with.
"""

from __future__ import annotations


def install_autotune_shim() -> None:
    """Patch triton's Autotuner to skip benchmarking; call before candidate code is imported."""
    from triton.runtime.autotuner import Autotuner

    if getattr(Autotuner, "_kbx_shimmed", False):
        return
    original = Autotuner.prune_configs

    def first_config(self, kwargs):  # type: ignore[no-untyped-def]
        return original(self, kwargs)[:1]

    Autotuner.prune_configs = first_config
    Autotuner._kbx_shimmed = True
