"""Polygon's adapters: the edges (settings, storage, artifact stores, model providers).

Each adapter lives in its own subpackage and imports its SDK (SQLAlchemy, boto3, ...) only there,
so importing this package stays cheap and pulls in no SDK. Import what you need from the
subpackages, e.g. ``from polygon_core.adapters.storage import Repository``.
"""
