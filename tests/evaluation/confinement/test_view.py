"""The plan of the candidate's filesystem view: system and Python directories read-only, kbx's source and the
hidden paths covered, only the job directory writable. (test_boundary.py checks the view built from it.)"""

from __future__ import annotations

import os
import sys

import kbx
from kbx.evaluation.confinement.view import SYSTEM_PATHS, _outermost, plan_view


def test_outermost_keeps_the_directories_no_other_contains():
    paths = ["/usr/lib/python3", "/usr", "/opt/venv/lib", "/opt/venv", "/opt/venv2", "/usr"]
    assert _outermost(paths) == ("/opt/venv", "/opt/venv2", "/usr")


def test_the_plan_shows_the_system_and_python_read_only_and_hides_kbx(tmp_path, monkeypatch):
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    plan = plan_view(str(tmp_path), hidden=("/root/secret",))
    package = os.path.realpath(os.path.dirname(kbx.__file__))
    assert plan.job_dir == os.path.realpath(tmp_path)
    assert package in plan.hidden and os.path.realpath("/root/secret") in plan.hidden

    def shown(path: str) -> bool:
        real = os.path.realpath(path)
        return any(real == d or real.startswith(d.rstrip("/") + "/") for d in plan.read_only)

    assert shown("/usr") and shown(sys.base_prefix) and shown(os.path.dirname(os.__file__))
    assert not shown(str(tmp_path))  # the job directory is bound writable, apart from the read-only ones
    assert list(plan.read_only) == sorted(plan.read_only) and _outermost(plan.read_only) == plan.read_only
    assert {link for link, _ in plan.links} <= set(SYSTEM_PATHS)
    assert "/dev/null" in plan.devices


def test_kbxs_source_root_is_not_bound_even_on_sys_path(tmp_path, monkeypatch):
    source_root = os.path.dirname(os.path.realpath(os.path.dirname(kbx.__file__)))
    monkeypatch.setattr(sys, "path", [source_root, *sys.path])
    plan = plan_view(str(tmp_path))
    assert source_root not in plan.read_only


def test_directories_the_environment_names_for_cuda_are_shown(tmp_path, monkeypatch):
    cuda = tmp_path / "cuda"
    (cuda / "bin").mkdir(parents=True)
    (cuda / "bin" / "ptxas").write_text("")
    monkeypatch.setenv("TRITON_PTXAS_PATH", str(cuda / "bin" / "ptxas"))
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{cuda}/lib:{tmp_path}/missing")
    (cuda / "lib").mkdir()
    plan = plan_view(str(tmp_path / "job"))
    assert str(cuda / "bin") in plan.read_only and str(cuda / "lib") in plan.read_only
    assert f"{tmp_path}/missing" not in plan.read_only
