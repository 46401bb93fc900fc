"""Block pointers under the CPU interpreter: kernels valid on the GPU's Triton 3.6 run on the CPU's Triton, which
removed them, through the shim (`install_block_pointers`); what 3.6 refuses is refused here too."""

from __future__ import annotations

from tests.evaluation.candidate.test_interpreter import shimmed_and_bare


def test_block_pointers_work_with_the_shims():
    """Kernels valid on the GPU's Triton 3.6 run on the CPU's 3.9, which removed block pointers; what 3.6 refuses
    is refused here too."""
    shimmed, bare = shimmed_and_bare("block_pointers.py")
    assert shimmed == {"scale_2d": True, "matmul": True, "row_max": True, "stores_wrong_type": "refused",
                       "int64_offsets": "refused"}
    # The shim's reason to exist: if the installed Triton has block pointers again, this fails.
    assert all(value is not True for value in bare.values()), bare
