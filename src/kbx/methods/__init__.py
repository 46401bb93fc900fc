"""The methods kbx produces candidates with (`kbx.methods.registry`); importing this registers the built-in ones."""

from kbx.methods import oneshot, reference, refine, sample  # noqa: F401 - each registers itself
from kbx.methods.registry import Method, get_method, method, method_names

__all__ = ["Method", "get_method", "method", "method_names"]
