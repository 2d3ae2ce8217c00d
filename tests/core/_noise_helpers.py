"""The conversation id shared by the recognition-noise tests (tests/core/test_noise_*.py)."""

from __future__ import annotations

CID = "conv-1"
