"""The trusted worker: one long-lived process per device that owns the reference outputs and judges."""
