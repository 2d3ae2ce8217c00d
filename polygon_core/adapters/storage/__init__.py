"""Storage: Polygon's results in SQL (SQLModel tables, Alembic migrations shipped inside).

``Repository`` takes and returns domain models; ``ensure_database`` opens one ready to use.
"""

from . import _pages as pages  # paginated reads for the web app
from . import _scorecard_reads as scorecard_reads  # streamed reads for scorecards, show and compare
from ._calibrations import CalibrationStore
from ._call_objects import CallObject, CallObjectLedger
from ._deliveries import DeliveryLedger
from ._imports import ImportedRecord, ImportLedger, ProductionRunInfo
from ._migrate import DatabaseNotReadyError, head_revision
from ._open import ensure_database, repository_from_settings
from ._records import ConversationRecord
from ._repository import Repository, RunNotFoundError
from ._writer import BatchedRepository, BatchWriter

__all__ = [
    "BatchWriter",
    "BatchedRepository",
    "CalibrationStore",
    "CallObject",
    "CallObjectLedger",
    "ConversationRecord",
    "DatabaseNotReadyError",
    "DeliveryLedger",
    "ImportLedger",
    "ImportedRecord",
    "ProductionRunInfo",
    "Repository",
    "RunNotFoundError",
    "ensure_database",
    "head_revision",
    "pages",
    "repository_from_settings",
    "scorecard_reads",
]
