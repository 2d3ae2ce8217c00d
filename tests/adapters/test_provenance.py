"""What made a result: a run's provenance (Polygon and package versions, formats) and the format
version every stored transcript, judgment and report carries; older records read as they were."""

from __future__ import annotations

import json
from importlib import metadata

import pytest
import sqlalchemy as sa

from polygon_core.adapters import provenance
from polygon_core.adapters.storage import Repository
from polygon_core.adapters.storage._convert import row_values
from polygon_core.adapters.storage._engine import make_engine
from polygon_core.adapters.storage._migrate import upgrade
from polygon_core.models import STORED, Conversation, Provenance

from ._storage_helpers import make_conversation, make_judgment, make_run

SHAPING = ["prefect", "pydantic", "openai", "anthropic", "numpy", "scipy", "scikit-learn"]


def test_the_provenance_names_polygon_the_shaping_packages_and_the_formats() -> None:
    made = provenance.current_provenance()
    assert made == Provenance(polygon=metadata.version("polygon-bench"),
                              packages={name: metadata.version(name) for name in SHAPING},
                              formats={"transcript": 1, "judgment": 1, "report": 1})
    assert list(made.packages) == SHAPING  # in the groups' order


def test_a_feature_adds_its_packages_as_a_group(monkeypatch: pytest.MonkeyPatch) -> None:
    # The voice wing names its speech stack so; a package not installed is left out, not guessed.
    monkeypatch.setitem(provenance.SHAPING_PACKAGES, "speech", ("numpy", "no-such-speech-engine"))
    made = provenance.current_provenance(("pipeline", "speech"))
    assert made.packages == {"prefect": metadata.version("prefect"), "pydantic": metadata.version("pydantic"),
                             "numpy": metadata.version("numpy")}
    with pytest.raises(ValueError, match=r"^unknown package group\(s\) voice; known: pipeline, models, "
                                         r"statistics, speech$"):
        provenance.current_provenance(("voice",))


def test_a_transcript_stored_without_a_format_version_reads_as_format_0() -> None:
    fresh = make_conversation()
    assert fresh.format_version == 1
    stored = json.loads(fresh.model_dump_json())
    assert stored["format_version"] == 1  # every transcript written from now on says its format
    del stored["format_version"]  # as Polygon wrote it before formats were versioned
    older = Conversation.model_validate_json(json.dumps(stored), context=STORED)
    assert older.format_version == 0 and older.model_copy(update={"format_version": 1}) == fresh
    assert Conversation.model_validate_json(fresh.model_dump_json(), context=STORED) == fresh


def test_a_run_and_judgment_stored_before_revision_0007_read_without_provenance_and_as_format_0(
        db_url: str) -> None:
    engine = make_engine(db_url)
    upgrade(engine, "0006")  # the schema before provenance and judgment formats
    tables = sa.MetaData()
    tables.reflect(engine)
    run = make_run("old-run")
    old_run = {k: v for k, v in row_values(run, created_at="2026-01-01T00:00:00+00:00").items()
               if k != "provenance"}
    judgment = make_judgment().model_dump(mode="json", exclude={"format_version"})
    with engine.begin() as connection:
        connection.execute(tables.tables["polygon_run"].insert().values(**old_run))
        connection.execute(tables.tables["polygon_judgment"].insert().values(run_id="old-run", seq=1, **judgment))
    engine.dispose()
    repo = Repository(db_url)
    try:
        repo.upgrade()
        stored = repo.get_run("old-run", exact=True)
        assert stored is not None and stored.provenance is None
        (read,) = repo.judgments("old-run")
        assert read.format_version == 0 and read == make_judgment().model_copy(update={"format_version": 0})
        # A new judgment is stored in today's format; re-saving the old run without provenance keeps NULL.
        repo.save_judgment("old-run", make_judgment("conv-2"))
        assert [j.format_version for j in repo.judgments("old-run")] == [0, 1]
        made = provenance.current_provenance()
        repo.save_run(run.model_copy(update={"provenance": made}))
        repo.save_run(run)  # saved again without it: the recorded provenance stays
        again = repo.get_run("old-run", exact=True)
        assert again is not None and again.provenance == made
    finally:
        repo.close()
