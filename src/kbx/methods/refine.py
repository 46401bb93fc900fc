"""The `refine` method: a chain per sample that feeds each verdict back to the model (repairs, then speed) until
`--iterations` calls or `--max-repairs` failures in a row (`kbx.generate.methods.Session.chain`)."""

from __future__ import annotations

from kbx.methods.registry import Method, method


@method("refine")
class Refine(Method):
    summary = "feedback on each verdict, up to --iterations model calls a chain (default 4; --model)"
    needs_model = True
    iterates = True
    default_iterations = 4
