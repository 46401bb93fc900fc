"""Shared fixtures. GPU tests carry the `gpu` marker and are skipped where torch sees no CUDA device."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import default_suite_root, load_suite
from kbx.tasks.spec import Task

FIXTURES = Path(__file__).parent / "fixtures"

# Runs made by tests go to a store of this test session's own, never the user's (~/.local/share/kbx/kbx.db).
os.environ["KBX_STORE"] = str(Path(tempfile.mkdtemp(prefix="kbx-test-store-")) / "kbx.db")


def _has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _has_cuda():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def suite() -> dict[str, Task]:
    return {t.name: t for t in load_suite(default_suite_root())}


@pytest.fixture(scope="session")
def cpu_evaluator() -> Iterator[Evaluator]:
    # The CLI's limit on the CPU: an honest conv3d kernel takes 83 s alone and ran past 180 s in a loaded CI run
    with Evaluator("cpu", Limits(timeout_s=600)) as evaluator:
        yield evaluator
