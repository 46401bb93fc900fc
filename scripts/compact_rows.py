"""Write a stored run's rows without their per-case details, for `docs/runs/` (small enough to keep in git):

    python scripts/compact_rows.py --store kbx-out/gpu/kbx.db RUN [RUN ...] > docs/runs/DATE-DEVICE-what.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kbx.store.db import Store

KEPT = ("task", "category", "candidate_hash", "task_version", "status", "message", "speedup_eager", "speedup_compile",
        "sol_fraction", "elapsed_s", "phases")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--store", type=Path, required=True)
    args = parser.parse_args(argv)
    with Store(args.store) as store:
        for run in args.runs:
            info = store.run(run)
            for row in store.rows(info.run_id):
                compact = {key: row.get(key) for key in KEPT}
                compact["message"] = (compact["message"] or "")[:300]
                compact["run"] = info.run_id
                compact["gpu"] = (row.get("environment") or {}).get("gpu")
                print(json.dumps(compact))
    return 0


if __name__ == "__main__":
    sys.exit(main())
