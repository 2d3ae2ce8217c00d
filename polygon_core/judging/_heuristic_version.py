"""The offline heuristic judge's version: bump it whenever its scoring logic changes.

A calibration of `offline-heuristic` is keyed by the hash of this string (see `_identity.py`), so
a calibration made before a change reads as "calibrated for an earlier prompt" afterwards.
"""

HEURISTIC_VERSION = "heuristic-4"
