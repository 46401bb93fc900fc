"""Building blocks of the GPU performance stage (DESIGN §6): statistics, the per-sample timing protocol,
speed of light, measured device peaks and clock readings.

Every module here imports with torch + triton + numpy + the standard library only, and imports on a machine
without CUDA: torch is imported inside the functions that need it.
"""
