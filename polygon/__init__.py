"""Polygon's application layer: the CLI, and (installed from the top-level folders) `polygon.tasks`
and `polygon.flows`."""

__version__ = "0.1.0"
