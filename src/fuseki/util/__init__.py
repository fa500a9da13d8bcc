"""The bottom layer: what every other package may use and nothing of fuseki's own above it.

Atomic writes, safetensors metadata, seeds, statistics, the torch device,
the models folders, worker processes, the base error type and the lazy registry of named things. No module here
imports the rules engine, Numba kernels or torch at import time.
"""
