"""polygon_core: Polygon's pure domain layer (no Prefect, database, network, clock or env)."""

__version__ = "0.1.0"
