"""The task format: metadata (read without importing task code), registry and input helpers."""
