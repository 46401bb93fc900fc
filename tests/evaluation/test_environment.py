"""The environment fingerprint stored with every evaluation."""

from __future__ import annotations

import sys

import torch
import triton

from kbx.evaluation.environment import fingerprint


def test_a_cpu_fingerprint_names_the_versions_and_the_interpreter():
    info = fingerprint("cpu")
    assert info["device"] == "cpu" and info["triton_mode"] == "interpreter"
    assert info["torch"] == torch.__version__ and info["triton"] == triton.__version__
    assert info["python"] == sys.version.split()[0]
    assert info["host"] and info["platform"]
    assert "gpu" not in info


def test_the_fingerprint_is_plain_json_and_stable():
    import json

    assert json.loads(json.dumps(fingerprint("cpu"))) == fingerprint("cpu")
