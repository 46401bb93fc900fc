"""The orchestrator's side of an evaluation: it plans, starts and watches workers, and writes verdicts."""
