"""The sweep page's curves: per swept parameter, its points' means against the values they set."""

from __future__ import annotations

from polygon.web._views import sweep_curves
from polygon_core.compare import ResultRow
from polygon_core.sweeps import summarise_point


def _row(composite: float) -> ResultRow:
    return ResultRow(conversation_id="c", scenario_id="s", seed=0, caller_type="cooperative", difficulty=1,
                     end_reason="goal_reached", composite=composite)


def test_sweep_curves_use_the_values_each_point_carries() -> None:
    # A value with ", " and "=" in it: its label ("greeting=Hi, I am Ann=host, noise=0.4") cannot be
    # split back into values, the point's own values can.
    points = [summarise_point("p0", "base", "r0", [_row(70.0)], [], 1),
              summarise_point("p1", "greeting=Hi, I am Ann=host, noise=0.4", "r1", [_row(60.0)], [], 1,
                              values={"greeting": "Hi, I am Ann=host", "noise": 0.4}),
              summarise_point("p2", "noise=0.8", "r2", [_row(40.0)], [], 1, values={"noise": 0.8})]
    board = [p.model_dump() for p in points]
    greeting, noise = sweep_curves(board)
    assert (greeting["parameter"], greeting["numeric"]) == ("greeting", False)
    assert [(p["value"], p["others"], p["run_id"]) for p in greeting["points"]] == [
        ("Hi, I am Ann=host", "noise=0.4", "r1")]
    assert (noise["parameter"], noise["numeric"]) == ("noise", True)
    assert [(p["value"], p["others"], p["mean_composite"]) for p in noise["points"]] == [
        (0.8, "", 40.0), (0.4, "greeting=Hi, I am Ann=host", 60.0)]  # by the other values, then value
    assert (noise["base"]["run_id"], noise["base"]["mean_composite"]) == ("r0", 70.0)


def test_a_leaderboard_stored_before_points_carried_values_is_read_from_its_labels() -> None:
    board = [{"label": "base", "run_id": "r0", "mean_composite": 70.0, "ci_low": 60.0, "ci_high": 80.0},
             {"label": "model=b, noise=0.8", "run_id": "r2", "mean_composite": 40.0, "ci_low": 30.0, "ci_high": 50.0},
             {"label": "noise=0.4", "run_id": "r1", "mean_composite": 60.0, "ci_low": 50.0, "ci_high": 70.0}]
    model, noise = sweep_curves(board)
    assert (model["parameter"], model["numeric"], [p["value"] for p in model["points"]]) == ("model", False, ["b"])
    assert [(p["value"], p["others"]) for p in noise["points"]] == [(0.4, ""), (0.8, "model=b")]
    assert noise["base"]["run_id"] == "r0" and noise["base"]["mean_composite"] == 70.0
