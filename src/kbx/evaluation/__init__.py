"""Evaluation: static checks, isolated candidate workers, a trusted worker, and comparison."""
