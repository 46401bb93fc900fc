"""Block pointers under the CPU interpreter: kernels valid on the GPU's Triton 3.6 run on the CPU's Triton, which
removed them, through the shim (`install_block_pointers`); what 3.6 refuses is refused here too."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import FIXTURES


def test_block_pointers_work_with_the_shims():
    """Kernels valid on the GPU's Triton 3.6 run on the CPU's 3.9, which removed block pointers; what 3.6 refuses
    is refused here too."""
    script = FIXTURES / "interpreter" / "block_pointers.py"
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    outcomes = []
    for flags in (["--shim"], []):
        result = subprocess.run([sys.executable, str(script), *flags], capture_output=True, text=True, env=env,
                                timeout=300)
        assert result.returncode == 0, result.stderr[-2000:]
        outcomes.append(json.loads(result.stdout.strip().splitlines()[-1]))
    shimmed, bare = outcomes
    assert shimmed == {"scale_2d": True, "matmul": True, "row_max": True, "stores_wrong_type": "refused",
                       "int64_offsets": "refused"}
    # The shim's reason to exist: if the installed Triton has block pointers again, this fails.
    assert all(value is not True for value in bare.values()), bare
