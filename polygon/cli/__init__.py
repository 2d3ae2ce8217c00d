"""The `polygon` command line."""

import gc

# A command imports Prefect, the SDKs and Polygon (hundreds of thousands of long-lived objects):
# with the default thresholds the cyclic collector runs hundreds of times while they load, each
# pass walking them again. Collections are rarer for the command's life (its start-up is a good
# part of a short run's CPU); a run's conversation loop sets its own (`usecases.run_bounded`).
gc.set_threshold(50_000, 20, 20)

from ._app import app, main  # noqa: E402  (after the thresholds: the imports are what they are for)

__all__ = ["app", "main"]
