"""Candidates: where they come from (files, directories, JSONL, LLM replies) and the static stage."""
