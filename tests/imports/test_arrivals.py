"""Importing what arrived (use cases, no Prefect): each arrival once, an unreadable one keeps waiting."""

from __future__ import annotations

from pathlib import Path

from polygon import usecases
from polygon_core.adapters.storage import CallObjectLedger, ImportLedger
from polygon_core.imports import load_sources, sample_path


def test_each_arrival_is_imported_once_and_an_unreadable_one_keeps_waiting(polygon_home: Path,
                                                                          tmp_path: Path) -> None:
    sources_file = tmp_path / "sources.yaml"
    sources_file.write_text("sources:\n  exports:\n    platform: vapi\n    secret_env: X_SECRET\n", encoding="utf-8")
    sources = load_sources(sources_file)
    source = sources.sources["exports"]
    stores = usecases.open_stores()
    here = str(sample_path("vapi"))
    gone = str(tmp_path / "deleted_vapi_calls.json")
    fresh = usecases.record_objects(stores, "exports", source, [(here, "e1"), (gone, "e2")], via="s3-event")
    assert [(o.location, o.fmt) for o in fresh] == [(here, "vapi"), (gone, "vapi")]
    assert usecases.record_objects(stores, "exports", source, [(here, "e1")], via="s3-event") == []
    (report,) = usecases.import_arrivals(stores, sources, "batch-1")
    assert (report.source, report.arrived, report.imported, report.duplicates, report.rejected) == (
        "exports", 1, 2, 0, 0)
    assert sorted(report.external_ids) == ["0f4d2c1e-8b1a-4c55-9a57-2b8f3c1d7e01",
                                           "7c9e6679-7425-40de-944b-e07fc1f90ae7"]
    (error,) = report.errors
    assert error.startswith(f"{gone}: not imported, still waiting (FileNotFoundError: ")
    ledger = CallObjectLedger(stores.repo.engine)
    assert [o.location for o in ledger.pending("exports")] == [gone]
    assert usecases.import_arrivals(stores, sources, "batch-2")[0].imported == 0
    assert ImportLedger(stores.repo.engine).count("exports") == 2
    markdown = usecases.arrivals_markdown([report], how="s3-event")
    assert "| exports | 1 | 2 | 0 | 0 | 0 |" in markdown and f"- {error}" in markdown
    stores.repo.close()
