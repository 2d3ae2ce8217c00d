"""Held-out agreement of a fitted judge, the offline judge and one rater, on USS dialogues.

docs/calibration.md ("Fitting a judge to the labels") gives the steps before this one: convert a
USS file with benchmarks/uss_convert.py, `polygon import` it, `polygon grade-calls` it. Then:

    python benchmarks/fitted_judge_uss.py LABELS.csv --run RUN [--train 250] [--seed 0]

Prints, for the run's labelled conversations: the fitted judge's own cross-validated rho over all
of them (what `calibrate --fit` reports, 5 folds grouped by conversation), and on a held-out split
(a seeded shuffle; the judge is fitted on the first `--train` conversations, nothing of the rest
is seen) the fitted judge's, the offline judge's, and each rater's rho against the mean of the other
raters, each with a seeded 95% bootstrap interval over the held-out conversations.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

import numpy as np

from polygon import usecases
from polygon_core.calibration import (
    OVERALL,
    FittedJudge,
    LabelledConversation,
    agreement_text,
    fit_judge,
    offline_agreement,
)
from polygon_core.calibration._fit import _fit_params, _rho_interval  # a benchmark may reach inside


def _held_out(train: Sequence[LabelledConversation], test: Sequence[LabelledConversation],
              seed: int) -> dict[str, float | list[float]]:
    judge = FittedJudge("held-out", "", _fit_params(train, [OVERALL]))
    predictions = [judge.predict(e.conversation, e.checks)[OVERALL] for e in test]
    rho, interval = _rho_interval(predictions, [e.labels[OVERALL] for e in test], seed)
    return {"rho": rho, "interval": interval, "distinct": float(len({round(p, 2) for p in predictions}))}


def _raters(test: Sequence[LabelledConversation], seed: int) -> dict[str, dict[str, float | list[float]]]:
    """Each of r1..r3 against the mean of the conversation's other raters, where both exist."""
    out = {}
    for rater in ("r1", "r2", "r3"):
        own, others = [], []
        for e in test:
            scores = {r: s[OVERALL] for r, s in e.raters.items() if OVERALL in s}
            rest = [s for r, s in scores.items() if r != rater]
            if rater in scores and rest:
                own.append(float(scores[rater]))
                others.append(float(np.mean(rest)))
        rho, interval = _rho_interval(own, others, seed)
        out[rater] = {"rho": rho, "interval": interval, "n": float(len(own))}
    return out


def main() -> None:
    """Parse arguments, load the labelled conversations, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels")
    parser.add_argument("--run", required=True)
    parser.add_argument("--train", type=int, default=250)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rubric", default="v1")
    args = parser.parse_args()
    examples = usecases.labelled_conversations(usecases.open_stores(), args.labels, args.run, args.rubric)
    body = fit_judge(examples, name="cv", seed=args.seed, rubric_version=args.rubric)
    print(f"{len(examples)} labelled conversations; 5-fold cross-validated rho of the fitted judge "
          f"{agreement_text(body['cv'][OVERALL])} (distinct out-of-fold predictions {body['distinct']}), "
          f"offline judge on the same {agreement_text(body['offline'][OVERALL])}")
    order = np.random.default_rng(args.seed).permutation(len(examples))
    train = [examples[i] for i in order[:args.train]]
    test = [examples[i] for i in order[args.train:]]
    fitted = _held_out(train, test, args.seed)
    offline = offline_agreement(test, [OVERALL], seed=args.seed, rubric_version=args.rubric)[OVERALL]
    print(f"trained on {len(train)}, held out {len(test)}:")
    print(f"  fitted judge   {agreement_text(fitted)} ({int(fitted['distinct'])} distinct predictions)")
    print(f"  offline judge  {agreement_text(offline)}")
    for rater, figure in _raters(test, args.seed).items():
        rho = figure["rho"]
        print(f"  rater {rater} vs the others' mean  "
              f"{agreement_text(figure) if isinstance(rho, float) and not math.isnan(rho) else 'undefined'}")


if __name__ == "__main__":
    main()
