"""Generation (DESIGN §8): ask a model for candidates, feed evaluations back, store every word it said.

`providers` talk to models (OpenAI-compatible HTTP, Anthropic, replay), `prompts` render the template files in
`prompts/`, `feedback` turns an evaluation row into the next user message, `methods` run oneshot / sample / refine
loops over an `evaluate` callable the runner hands in, so nothing here imports the runner or the evaluator.
"""
