"""Analysis of stored runs (issue 8): metrics with bootstrap intervals, category GLMs, refinement trajectories,
cross-hardware spreads, run comparisons, and the terminal and HTML reports. Reads only the store."""
