"""A model judge on a local server, in the full and the compact format (issue 33, item 2).

Imports the first N calls of the packaged labelled sample (`polygon_core/calibration/samples`,
hand-written: readability and speed are what it measures, not a judge's quality on real calls),
grades them once with the offline judge (the production run), then has each format of the named
judge rescore them and the compact one answer the probes, and calibrates each format against the
sample's three raters. Prints one JSON object per format:

- judgments `judged` / `judge_error`, and the first error reasons;
- evidence quotes in the transcript (in the turn named, for compact) out of those given;
- how many distinct scores the judge gave (a judge giving 5 everywhere reads nothing);
- seconds per judgment (wall, one at a time) and, for compact, per probe pass and probe answers read;
- Spearman rho per labelled criterion against the raters' mean: [rho, low, high, n] (bootstrap 95%);
  `polygon calibrate` first judges again the calls the judge failed on (so this step can be long), and
  is skipped when the judge read none.

    # a llama.cpp server on 127.0.0.1:8088 (docs/local-models.md)
    .venv/bin/python benchmarks/local_judge.py --model "openai:qwen@http://127.0.0.1:8088/v1" --calls 10
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "polygon_core" / "calibration" / "samples"
POLYGON = str(Path(sys.executable).parent / "polygon")
# A slow local model: long timeouts, one attempt, one request at a time (docs/local-models.md).
LOCAL = {"POLYGON_JUDGE_TIMEOUT": "900", "POLYGON_PROBE_TIMEOUT": "900", "POLYGON_MODEL_MAX_ATTEMPTS": "1",
         "POLYGON_MODEL_RETRY_SECONDS": "1800", "POLYGON_CONCURRENCY": "1", "POLYGON_MODEL_CONCURRENCY": "1"}


def _polygon(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run([POLYGON, *args, "--json"], env=env, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):  # 1: a run with failures still prints its JSON
        raise SystemExit(f"polygon {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-800:]}")
    return dict(json.loads(done.stdout))


def _subset(folder: Path, calls: int) -> tuple[Path, Path]:
    lines = (SAMPLE / "calls.jsonl").read_text(encoding="utf-8").splitlines()[:calls]
    ids = {json.loads(line)["id"] for line in lines}
    (folder / "calls.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with (SAMPLE / "labels.csv").open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["external_id"] in ids]
    with (folder / "labels.csv").open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return folder / "calls.jsonl", folder / "labels.csv"


def _judge(env: dict[str, str], run_id: str, name: str) -> dict[str, Any]:
    from polygon import usecases
    from polygon_core.adapters.settings import load_settings

    os.environ.update(env)
    stores = usecases.open_stores(load_settings())
    stamps: list[float] = [time.monotonic()]
    usecases.rescore_run(stores, run_id, rubric_version="v1", judge_model=name,
                         progress=lambda done, total: stamps.append(time.monotonic()))
    judgments = [j for j in stores.repo.judgments(run_id, "v1") if j.judge_model == name]
    quotes = [c for j in judgments for c in j.criteria if c.evidence]
    scores = {c.score for j in judgments for c in j.criteria if c.score is not None}
    seconds = [b - a for a, b in itertools.pairwise(stamps)]
    return {
        "judge": name, "judgments": len(judgments),
        "judged": sum(j.status == "judged" for j in judgments),
        "judge_error": sum(j.status == "judge_error" for j in judgments),
        "errors": sorted({(j.reason or "")[:160] for j in judgments if j.status == "judge_error"})[:3],
        "quotes_supported": f"{sum(not c.unsupported_evidence for c in quotes)}/{len(quotes)}",
        "distinct_scores": sorted(scores),
        "seconds_per_judgment": round(sum(seconds) / len(seconds), 1) if seconds else None,
    }


def _probes(env: dict[str, str], run_id: str, name: str) -> dict[str, Any]:
    from polygon import usecases
    from polygon_core.adapters.settings import load_settings

    stores = usecases.open_stores(load_settings())
    started = time.monotonic()
    usecases.probe_run(stores, run_id, probe_model=name)
    took = time.monotonic() - started
    answers = [a for a in stores.repo.probe_answers(run_id) if a.answered_by == name]
    counts: dict[str, int] = {}
    for a in answers:
        counts[a.answer] = counts.get(a.answer, 0) + 1
    conversations = len({a.conversation_id for a in answers}) or 1
    return {"probe_answers": counts, "seconds_per_probe_pass": round(took / conversations, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a model judge, e.g. openai:qwen@http://127.0.0.1:8088/v1")
    parser.add_argument("--calls", type=int, default=10, help="first N calls of the sample (default 10)")
    parser.add_argument("--formats", default="full,compact")
    parser.add_argument("--home", type=Path, default=None, help="a folder kept for a later look (default: temporary)")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="polygon-local-judge-"))
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **LOCAL, "POLYGON_HOME": str(home / "polygon")}
    calls, labels = _subset(home, args.calls)
    _polygon(env, "import", str(calls), "--format", "polygon", "--source", "sample")
    run_id = _polygon(env, "grade-calls", "sample")["runs"][0]["run_id"]
    for style in args.formats.split(","):
        name = args.model if style == "full" else f"compact:{args.model}"
        result = _judge(env, run_id, name)
        if style == "compact":
            result.update(_probes(env, run_id, name))
        if not result["judged"]:  # calibrate would judge every failed call again, for nothing
            print(json.dumps({"run": run_id, "calls": args.calls, **result}), flush=True)
            continue
        calibration = _polygon(env, "calibrate", str(labels), "--run", run_id, "--judge", name)
        result["rho"] = {r["criterion"]: [round(r["rho"][k], 2) if r["rho"][k] is not None else None
                                          for k in ("value", "low", "high")] + [r["n"]]
                         for r in calibration.get("rows", []) if r.get("rho")}
        print(json.dumps({"run": run_id, "calls": args.calls, **result}), flush=True)


if __name__ == "__main__":
    main()
