"""What runs in the candidate worker's process, beside the candidate: warnings, never boundaries."""
