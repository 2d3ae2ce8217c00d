"""Seen webhook delivery ids (revision 0005), so a replayed delivery is refused after a restart too.

Kept apart from ``Repository`` like the import ledger and calibrations: a delivery belongs to no
run. Claiming an id is one INSERT on the primary key, so two receivers sharing the database cannot
both accept the same delivery: the second gets the unique-key violation and answers 409.
Ids expire (``expires_at``), and expired rows are deleted by the next claim.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, func, insert, select
from sqlalchemy import exc as sa_exc

from ._engine import WRITE_OPTION
from ._tables import WebhookDeliveryRow

__all__ = ["DeliveryLedger"]

_T = WebhookDeliveryRow.__table__  # type: ignore[attr-defined]


class DeliveryLedger:
    """Claims and releases webhook delivery ids through an existing engine (the repository's)."""

    def __init__(self, engine: Engine) -> None:
        """Use `engine` (its schema must be at head: see ``ensure_database``)."""
        self.engine = engine

    def claim(self, delivery_id: str, kind: str, *, ttl_seconds: float,
              now: datetime | None = None) -> bool:
        """Record a delivery id for `ttl_seconds`; False when it is already recorded and unexpired.

        Expired ids (this one included) are deleted in the same transaction, so an id comes back
        only after its expiry.
        """
        at = now or datetime.now(UTC)
        stamp = _iso(at)
        try:
            with self.engine.connect() as connection:
                connection.execution_options(**{WRITE_OPTION: True})
                with connection.begin():
                    connection.execute(delete(_T).where(_T.c.expires_at <= stamp))
                    connection.execute(insert(_T).values(
                        delivery_id=delivery_id, kind=kind, received_at=stamp,
                        expires_at=_iso(at + timedelta(seconds=ttl_seconds))))
        except sa_exc.IntegrityError:
            return False  # the primary key is taken: a replay (or a concurrent duplicate)
        return True

    def release(self, delivery_id: str) -> None:
        """Forget a claimed id (its request was refused later, so a corrected resend is accepted)."""
        with self.engine.connect() as connection:
            connection.execution_options(**{WRITE_OPTION: True})
            with connection.begin():
                connection.execute(delete(_T).where(_T.c.delivery_id == delivery_id))

    def count(self) -> int:
        """How many ids are recorded (expired ones not yet deleted included)."""
        with self.engine.connect() as connection:
            return int(connection.execute(select(func.count()).select_from(_T)).scalar_one())


def _iso(moment: datetime) -> str:
    # Fixed-width UTC text sorts as time, so `expires_at <= now` compares correctly as strings.
    return moment.astimezone(UTC).isoformat(timespec="microseconds")
