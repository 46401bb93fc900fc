"""The report tests render the analysis tests' synthetic stores (`tests.analysis.conftest`)."""

from tests.analysis.conftest import fair_store, kernelbench_store, store_path  # noqa: F401 - the fixtures, shared
