"""Infrastructure failures as one line with the cause and the fix (exit 1), never a traceback.

Bad input stays exit 2 (`friendly`); a database that is down or not migrated, a bucket that is
missing, or a Prefect API that does not answer is the environment's problem, and the operator needs
to know which setting to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.markup import escape

from ._prefect import PrefectUnavailable


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _database(exc: BaseException) -> str | None:
    from sqlalchemy.exc import OperationalError

    from polygon_core.adapters.storage import DatabaseNotReadyError

    if isinstance(exc, DatabaseNotReadyError):
        return str(exc)
    if isinstance(exc, OperationalError):
        return (f"the database cannot be used: {_first_line(exc)} (check POLYGON_DATABASE_URL and that the "
                "server is up; `polygon db upgrade` creates the tables)")
    return None


def _artifacts(exc: BaseException) -> str | None:
    from polygon_core.adapters.artifacts import ArtifactStoreError

    if isinstance(exc, ArtifactStoreError):
        return f"the artifact store cannot be used: {exc} (POLYGON_ARTIFACTS_URL, POLYGON_S3_ENDPOINT_URL)"
    try:
        from botocore.exceptions import ClientError, EndpointConnectionError, NoCredentialsError
    except ImportError:  # pragma: no cover - boto3 is a dependency
        return None
    if isinstance(exc, EndpointConnectionError):
        return f"cannot reach the artifact store: {_first_line(exc)} (check POLYGON_S3_ENDPOINT_URL)"
    if isinstance(exc, NoCredentialsError):
        return "no credentials for the artifact store (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or a profile)"
    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "")
        bucket = exc.response.get("Error", {}).get("BucketName", "")
        if code == "NoSuchBucket":
            return (f"the artifact bucket {bucket!r} does not exist: create it or fix POLYGON_ARTIFACTS_URL"
                    if bucket else "the artifact bucket does not exist: create it or fix POLYGON_ARTIFACTS_URL")
        if code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
            return f"the artifact store refused access ({code}): check the AWS credentials"
    return None


def _prefect(exc: BaseException) -> str | None:
    if isinstance(exc, PrefectUnavailable):
        return str(exc)
    if isinstance(exc, RuntimeError) and "ephemeral Prefect API server" in str(exc):
        return ("Prefect's temporary server did not start in time: start a long-lived one with `prefect server "
                "start` and set PREFECT_API_URL=http://127.0.0.1:4200/api")
    name = type(exc).__module__ + "." + type(exc).__name__
    if "PrefectHTTPStatusError" in name or (name.startswith("prefect.") and "Unreachable" in name):
        return f"the Prefect API failed: {_first_line(exc)} (check PREFECT_API_URL and the server's log)"
    return None


def infrastructure_error(exc: BaseException) -> str | None:
    """The one line for an infrastructure failure anywhere in `exc`'s chain, or None."""
    for link in _chain(exc):
        for reader in (_database, _artifacts, _prefect):
            line = reader(link)
            if line:
                return line
    return None


def print_infrastructure_error(err: Any, line: str) -> None:
    """The line on stderr, in the CLI's error style."""
    err.print(f"[red]error:[/] {escape(line)}", markup=True, highlight=False, soft_wrap=True)
