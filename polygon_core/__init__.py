"""polygon_core: Polygon's pure domain layer (no Prefect, database, network, clock or env).

The stable content hashes every layer keys records by (`content_hash`, `canonical_json`,
`stable_seed`) are exported here, so the layers above never import the private `_hashing`.
"""

from ._hashing import canonical_json, content_hash, stable_seed

__version__ = "0.1.0"

__all__ = ["__version__", "canonical_json", "content_hash", "stable_seed"]
