"""The Candidate value and its content hash (the store's cache key)."""

from __future__ import annotations

from kbx.candidates.source import Candidate, content_hash


def test_the_hash_follows_the_source_and_nothing_else():
    a = Candidate("a.py", "relu", "def relu(x):\n    return x\n")
    b = Candidate("elsewhere/b.py", "relu", "def relu(x):\n    return x\n", provenance={"model": "m"})
    c = Candidate("a.py", "relu", "def relu(x):\n    return x \n")
    assert a.hash == b.hash == content_hash(a.code) and len(a.hash) == 16
    assert a.hash != c.hash


def test_a_candidate_without_code_has_the_empty_source_hash_and_says_why():
    missing = Candidate("reply.jsonl:3", "relu", None, problem="no code block in the reply")
    assert missing.hash == content_hash("") and missing.problem
    assert missing.task == "relu"
