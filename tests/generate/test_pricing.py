"""Prices from `KBX_PRICES`: inline JSON or a file, keyed by `KIND:MODEL` or the bare model."""

from __future__ import annotations

import json

import pytest

from kbx.errors import KbxError
from kbx.generate.pricing import Prices
from kbx.generate.providers import Usage


def test_cost_from_the_price_table(monkeypatch):
    monkeypatch.setenv("KBX_PRICES", json.dumps({"tiny": {"input": 2.0, "output": 8.0}}))
    prices = Prices.from_env()
    assert prices.cost("openai:tiny", Usage(1_000_000, 500_000)) == pytest.approx(6.0)
    assert prices.cost("openai:other", Usage(1, 1)) is None
    assert prices.cost("openai:tiny", Usage(None, 1)) is None


def test_a_provider_qualified_key_wins_over_the_bare_model(monkeypatch, tmp_path):
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"m": {"input": 1.0, "output": 1.0}, "openai:m": {"input": 3.0, "output": 0.0}}))
    monkeypatch.setenv("KBX_PRICES", str(table))
    prices = Prices.from_env()
    assert prices.cost("openai:m", Usage(1_000_000, 1_000_000)) == pytest.approx(3.0)
    assert prices.cost("anthropic:m", Usage(1_000_000, 1_000_000)) == pytest.approx(2.0)


def test_no_table_prices_nothing(monkeypatch):
    monkeypatch.delenv("KBX_PRICES", raising=False)
    assert Prices.from_env().cost("openai:tiny", Usage(10, 10)) is None


@pytest.mark.parametrize("raw", ['{"m": {"input": 1.0}}', '{"m": 3}', "{not json", "/no/such/prices.json"])
def test_a_malformed_table_is_one_clear_error(monkeypatch, raw):
    monkeypatch.setenv("KBX_PRICES", raw)
    with pytest.raises(KbxError, match="KBX_PRICES"):
        Prices.from_env()
