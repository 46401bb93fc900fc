"""The commit a run records: HEAD of the checkout, `-dirty` when tracked files differ."""

from __future__ import annotations

import subprocess

from kbx.running import provenance


def test_the_sha_of_this_checkout_is_heads():
    sha = provenance.git_sha()
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False,
                          cwd=provenance.Path(provenance.__file__).parent).stdout.strip()
    if not head:  # kbx installed outside a checkout
        assert sha is None
    else:
        assert sha is not None and sha.removesuffix("-dirty") == head


def test_no_git_means_no_sha(monkeypatch):
    def missing(*args, **kwargs):
        raise OSError("no git")

    monkeypatch.setattr(provenance.subprocess, "run", missing)
    assert provenance.git_sha() is None
