"""One line per results.jsonl row (task, status, wall time, speedups and SOL fraction if timed, phases, message):
what the device scripts print at the end of a call.

    python scripts/rows_summary.py kbx-out/gpu/NAME.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    for name in argv if argv is not None else sys.argv[1:]:
        path = Path(name)
        for line in path.read_text().splitlines() if path.is_file() else []:
            row = json.loads(line)
            phases = " ".join(f"{k} {v:.0f}" for k, v in (row.get("phases") or {}).items())
            speed = " ".join(_fmt(row.get(k)) for k in ("speedup_eager", "speedup_compile", "sol_fraction"))
            print(f"{row['task']:24} {row['status']:16} {row.get('elapsed_s') or 0:6.0f} s  {speed}  {phases}  "
                  f"{(row.get('message') or '')[:100]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
