"""The report tests render the analysis tests' synthetic store (`tests.analysis.conftest`)."""

from tests.analysis.conftest import store_path  # noqa: F401 - the fixture, shared
