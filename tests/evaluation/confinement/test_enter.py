"""The confinement spec the orchestrator hands a worker: what it records, and what it hides by default. Entering
it (`split`, `confine`) is checked from inside confined processes in test_boundary.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import kbx
from kbx.evaluation.confinement.enter import ConfinementSpec, default_hidden, for_this_process, unavailable


def test_the_spec_crosses_as_json_and_comes_back_equal():
    spec = ConfinementSpec(user_namespace=True, hidden=("/home/me", "/srv/kbx"))
    back = ConfinementSpec.from_json(json.loads(json.dumps(spec.to_json())))
    assert back == spec and isinstance(back.hidden, tuple)


def test_the_row_says_what_the_candidate_ran_under():
    assert ConfinementSpec(enabled=False).describe() == "none (--unconfined)"
    assert "uid 65534" in ConfinementSpec(uid=65534).describe()
    assert "own user namespace" in ConfinementSpec(user_namespace=True).describe()
    assert "seccomp" in ConfinementSpec().describe()


def test_a_root_orchestrator_changes_uid_and_another_uses_a_user_namespace():
    assert for_this_process(True).user_namespace == (os.geteuid() != 0)
    assert not for_this_process(False).enabled


def test_the_checkout_and_home_are_hidden_by_default():
    hidden = default_hidden()
    checkout = Path(kbx.__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").exists():
        assert str(checkout) in hidden
    home = os.path.expanduser("~")
    assert (home in hidden) == (home not in ("/", ""))


def test_an_unconfined_spec_needs_no_probe():
    assert unavailable(ConfinementSpec(enabled=False)) is None


def test_this_machine_can_confine_a_candidate():
    """The probe goes through every step in a scratch process; CI's machines must be able to (else every
    boundary test would be moot)."""
    assert unavailable(for_this_process(True, default_hidden())) is None
