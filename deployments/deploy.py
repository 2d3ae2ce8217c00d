"""Declare Polygon's Prefect deployments on a work pool, from this checkout (the Python twin of
prefect.yaml). The deployments themselves are declared once, in `polygon/deployments/_declared.py`
(shipped in the package: `polygon deploy` creates them from an installed wheel, no checkout needed).

    PREFECT_API_URL=http://prefect:4200/api python deployments/deploy.py \
        --source /srv/polygon --pool polygon --suite polygon_core/demo/suite

`--source` is where workers find the code: a local checkout (process workers on this machine; the
default is the checkout this script is in) or a git URL (`flow.from_source` clones it per run).
Flow runs start in that checkout, so relative paths (the suite, an event's agent_path) resolve
against it. docs/deployments.md walks through every step.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from polygon.deployments import PULL_CRON, WEEKLY_CRON, Declared, declared, deploy

__all__ = ["REPO", "Declared", "declared", "deploy", "main"]

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    """Command line: deploy everything, print name → id."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--source", default=str(REPO), help="local checkout or git URL (default: this one)")
    parser.add_argument("--pool", required=True, help="work pool name (create it first)")
    parser.add_argument("--suite", required=True, help="default suite folder, relative to the source")
    parser.add_argument("--cron", default=WEEKLY_CRON, help="weekly grading schedule (default: Monday 06:00)")
    parser.add_argument("--timezone", default="UTC", help="timezone of the cron schedule")
    parser.add_argument("--production-source", default=None, help="where production calls come from")
    parser.add_argument("--seeds", default=None, help="comma-separated seeds for re-evaluations")
    parser.add_argument("--pull-cron", default=PULL_CRON, help="S3 pull schedule (default: every 15 minutes)")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else None
    for name, dep_id in deploy(args.source, work_pool=args.pool, suite_path=args.suite, cron=args.cron,
                               timezone=args.timezone, production_source=args.production_source,
                               seeds=seeds, pull_cron=args.pull_cron).items():
        print(f"{name}\t{dep_id}")


if __name__ == "__main__":
    main()
