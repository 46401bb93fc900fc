"""Named workload lists a task may declare instead of writing them out (`TASK["workloads"] = "elementwise"`).

`kbx.tasks.meta` expands the name while reading the TASK literal, without importing task code. A preset is data,
not behaviour: the expansion is exactly the list a task would otherwise repeat, and `kbx tasks show` prints it.
"""

from __future__ import annotations

import copy
from typing import Any

PRESETS: dict[str, list[dict[str, Any]]] = {
    "elementwise": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000]}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_2d_t", "role": "check", "params": {"shape": [129, 127], "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check", "params": {"shape": [3, 33, 65], "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [24576, 32768]}},
    ],
}
"""`elementwise`: a one-input elementwise operation of one `shape` parameter, on a flat tail that fills no block
evenly, a transposed and a strided layout, and a 3 GiB (float32) bench tensor."""


def workload_list(name: str) -> list[dict[str, Any]] | None:
    """A fresh copy of the preset's workloads, or None when there is no such preset."""
    found = PRESETS.get(name)
    return None if found is None else copy.deepcopy(found)
