"""Calibration records in the database: keyed, replaced when made again, latest per judge."""

from __future__ import annotations

from pathlib import Path

from polygon_core.adapters.storage import CalibrationStore, ensure_database
from polygon_core.calibration import OVERALL, Calibration, CalibrationRow, Estimate


def _calibration(judge: str = "offline-heuristic", rubric: str = "v2", prompt: str = "h1", rho: float = 0.5,
                 run: str = "run-1") -> Calibration:
    e = Estimate(value=rho, low=rho - 0.1, high=rho + 0.1)
    row = CalibrationRow(criterion=OVERALL, n=30, left_out={"no_judgment": 2}, raters=3, rho=e, tau=e, kappa=e,
                         exact=e, within_one=e, bias=Estimate(value=-0.2), people_alpha=0.7)
    return Calibration(judge_model=judge, rubric_version=rubric, judge_prompt_hash=prompt, run_id=run,
                       labels_hash="abc", conversations=32, raters=3, rows=[row])


def test_save_latest_and_page(tmp_path: Path) -> None:
    repo = ensure_database(f"sqlite:///{tmp_path / 'p.db'}")
    store = CalibrationStore(repo.engine)
    assert store.latest("offline-heuristic", "v2") is None
    first = store.save(_calibration(rho=0.4), created_at="2026-01-01T00:00:00+00:00")
    assert store.latest("offline-heuristic", "v2") == first
    # The same key again replaces the record; another prompt hash adds one, and is the latest.
    again = store.save(_calibration(rho=0.45), created_at="2026-01-02T00:00:00+00:00")
    newer = store.save(_calibration(prompt="h2", rho=0.6), created_at="2026-01-03T00:00:00+00:00")
    store.save(_calibration(rubric="v1", rho=0.1), created_at="2026-01-04T00:00:00+00:00")
    assert store.latest("offline-heuristic", "v2") == newer
    assert store.latest("offline-heuristic", "v2").judge_prompt_hash == "h2"
    assert store.latest("openai:gpt-4o", "v2") is None
    total, items = store.page(rubric_version="v2")
    assert (total, [c.row(OVERALL).rho.value for c in items]) == (2, [0.6, 0.45])
    assert items[1] == again and again.created_at == "2026-01-02T00:00:00+00:00"
    total, items = store.page(offset=1, limit=2)
    assert (total, [c.rubric_version for c in items]) == (3, ["v2", "v2"])
    repo.close()
