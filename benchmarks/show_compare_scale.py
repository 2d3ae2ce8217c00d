"""`polygon show` and `polygon compare` at scale: two stored runs of N conversations each (issue 18).

Bulk-inserts two synthetic runs straight into a fresh SQLite store under a temporary POLYGON_HOME
(no simulation): conversations, judgments (8 criteria), three probe answers each, and a transcript
per conversation in the local artifact store. The candidate differs from the baseline in every
tenth conversation (another tool argument at turn 3, a lower composite, a gate now and then), so
the comparison has real divergences and differences to find. Then it times `polygon show RUN` and
`polygon compare BASE CAND` in child processes and reports wall time and peak RSS of each as JSON.

    .venv/bin/python benchmarks/show_compare_scale.py --conversations 100000 [--home DIR] [--keep]

`--home DIR` reuses a store this script filled before (the insert takes minutes at 100,000).
`--report xml --report html` also times `polygon compare BASE CAND -o FILE` for each report format.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa

from polygon_core.adapters.storage import ensure_database
from polygon_core.adapters.storage._tables import ConversationRow, JudgmentRow, ProbeAnswerRow
from polygon_core.models import Conversation, EndReason, Run, ToolCall, Turn, Usage

SCENARIOS = 1_000  # × 100 seeds at 100,000 conversations
CRITERIA = ("goal_completion", "instruction_adherence", "tool_use_quality", "factuality", "dialogue_quality",
            "robustness", "safety_compliance", "persona_tone")
PROBES = (("asks_identity", "wanted"), ("discloses_pii", "guardrail"), ("offers_refund", "wanted"))
_CHUNK = 5_000


def _transcript(run: Run, cid: str, scenario: str, seed: int, changed: bool) -> Conversation:
    turns = []
    for i in range(10):
        speaker: Literal["caller", "agent"] = "caller" if i % 2 == 0 else "agent"
        calls = []
        if i == 3:
            calls = [ToolCall(id=f"t{i}", name="lookup_order",
                              arguments={"order_number": f"A-{seed}" if not changed else f"B-{seed}"},
                              result={"status": "shipped"}, latency_ms=40.0)]
        text = (f"Caller turn {i}: I am calling about order A-{seed}, it has not arrived." if speaker == "caller"
                else f"Agent turn {i}: thank you, let me check the order for you and see what happened.")
        turns.append(Turn(index=i, speaker=speaker, text=text, tool_calls=calls,
                          latency_ms=250.0 + (seed % 7) * 10 if speaker == "agent" else 0.0,
                          end="end" if i == 9 else None))
    return Conversation(id=cid, scenario_id=scenario, seed=seed, agent_name=run.agent_name,
                        agent_version=run.agent_version, persona_hash="p" * 16, caller_type="cooperative",
                        difficulty=1 + seed % 3, turns=turns, end_reason=EndReason.AGENT_END,
                        usage={"agent": Usage(input_tokens=900, output_tokens=120, calls=5),
                               "caller": Usage(input_tokens=700, output_tokens=90, calls=4)},
                        models={"agent": "openai:fake", "caller": "openai:fake"})


def _rows(run: Run, k: int, candidate: bool) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]], bool]:
    scenario, seed = f"scenario-{k % SCENARIOS:04d}", k // SCENARIOS
    cid = f"{run.agent_version[:6]}-{scenario}-{seed}"
    changed = candidate and k % 10 == 0
    gate = changed and k % 50 == 0
    composite = 70.0 + (k * 7919 % 25) - (12.0 if changed else 0.0)
    verdict = "fail" if gate else ("pass" if composite >= 75 else "warn")
    conv = {"run_id": run.id, "conversation_id": cid, "scenario_id": scenario, "seed": seed,
            "caller_type": "cooperative", "difficulty": 1 + seed % 3, "language": "en", "noise": 0.0,
            "agent_version": run.agent_version, "end_reason": "agent_end", "turn_count": 10,
            "artifact_uri": f"runs/{run.id}/conversations/{cid}.json",
            "assertions": [{"name": "verified_before_refund", "expression": "verify_before(refund)",
                            "status": "fail" if gate else "pass", "message": None, "turn": 3 if gate else None,
                            "answered_by": "deterministic", "gate": False}],
            "metrics": None, "usage": {"agent": {"input_tokens": 900, "output_tokens": 120, "cached_tokens": 0,
                                                 "calls": 5, "estimated": False}},
            "models": {"agent": "openai:fake"}}
    judgment = {"run_id": run.id, "conversation_id": cid, "rubric_version": run.rubric_version,
                "judge_model": "offline-heuristic", "repeats": 1, "composite": composite, "partial": False,
                "verdict": verdict, "not_scored": [], "status": "judged", "reason": None, "seq": k + 1,
                "criteria": [{"criterion": c, "score": round(3.0 + ((k + i) % 3) * 0.5 - (0.5 if changed else 0), 2),
                              "status": "scored", "evidence": "the agent checked the order before answering",
                              "unsupported_evidence": False} for i, c in enumerate(CRITERIA)],
                "gates": [{"gate": "assertion", "turn": 3, "detail": "verified_before_refund"}] if gate else [],
                "raw": [{"scores": {c: 3 for c in CRITERIA}}]}
    probes = [{"run_id": run.id, "conversation_id": cid, "probe_id": pid, "wording_hash": "w1", "polarity": pol,
               "answer": "yes" if (k + j) % 4 else "no", "evidence": None, "answered_by": "offline-heuristic"}
              for j, (pid, pol) in enumerate(PROBES)]
    return conv, judgment, probes, changed


def fill(home: Path, n: int) -> list[str]:
    """Store a baseline and a candidate run of `n` conversations each under `home`; their ids."""
    repo = ensure_database(f"sqlite:///{home / 'polygon.db'}")
    root = home / "artifacts"
    ids = []
    for name, version, candidate in (("baseline", "a1" * 20, False), ("candidate", "b2" * 20, True)):
        run = repo.save_run(Run(id=f"scale-{name}", suite="synthetic", agent_name=name, agent_version=version,
                                rubric_version="v1", seeds=list(range(n // SCENARIOS)),
                                models={"judge": "offline-heuristic"}, status="complete"))
        ids.append(run.id)
        for start in range(0, n, _CHUNK):
            convs, judgments, probes = [], [], []
            for k in range(start, min(start + _CHUNK, n)):
                conv, judgment, answers, changed = _rows(run, k, candidate)
                convs.append(conv)
                judgments.append(judgment)
                probes.extend(answers)
                # Plain writes, not the store's put_text: its fsync per file is most of the fill's time.
                path = root / conv["artifact_uri"]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(_transcript(run, conv["conversation_id"], conv["scenario_id"], conv["seed"],
                                            changed).model_dump_json(), encoding="utf-8")
            with repo.engine.begin() as db:  # the repository's engine and tables, in bulk
                db.execute(sa.insert(ConversationRow.__table__), convs)  # type: ignore[attr-defined]
                db.execute(sa.insert(JudgmentRow.__table__), judgments)  # type: ignore[attr-defined]
                db.execute(sa.insert(ProbeAnswerRow.__table__), probes)  # type: ignore[attr-defined]
    repo.close()
    return ids


def measure(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run `polygon ARGS` in a child (through a tiny parent that reports the child's peak RSS)."""
    probe = ("import json, resource, subprocess, sys, time\n"
             "t = time.monotonic()\n"
             "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
             "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "print(json.dumps({'seconds': round(time.monotonic() - t, 2), 'exit_code': p.returncode,\n"
             "  'cpu_seconds': round(u.ru_utime + u.ru_stime, 2), 'peak_rss_mib': round(u.ru_maxrss / 1024, 1),\n"
             "  'stderr': p.stderr[-400:]}))\n")
    polygon = str(Path(sys.executable).with_name("polygon"))
    out = subprocess.run([sys.executable, "-c", probe, polygon, *args], env=env, capture_output=True, text=True,
                         check=True)
    return {"command": "polygon " + " ".join(args), **json.loads(out.stdout)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=100_000)
    parser.add_argument("--home", type=Path, help="a store this script filled before (or fill it there)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary store")
    parser.add_argument("--report", action="append", default=[], choices=("xml", "html", "json", "md"),
                        help="also time `compare -o report.EXT` (repeatable)")
    opts = parser.parse_args()
    home = opts.home or Path(tempfile.mkdtemp(prefix="polygon-scale-"))
    filled = (home / "polygon.db").exists()
    started = time.monotonic()
    ids = ["scale-baseline", "scale-candidate"] if filled else fill(home, opts.conversations)
    insert_s = None if filled else round(time.monotonic() - started, 1)
    env = {**os.environ, "POLYGON_HOME": str(home), "COLUMNS": "120"}
    results = [measure(["show", ids[0]], env), measure(["compare", ids[0], ids[1]], env)]
    for ext in opts.report:  # the report formats that read more than the table does (JUnit, HTML)
        report = home / f"report.{ext}"
        results.append({**measure(["compare", ids[0], ids[1], "-o", str(report)], env),
                        "report_mib": round(report.stat().st_size / 2**20, 1) if report.exists() else None})
    print(json.dumps({"load_average": [round(x, 1) for x in os.getloadavg()], "cpus": os.cpu_count(),"conversations_per_run": opts.conversations, "home": str(home), "insert_seconds": insert_s,
                      "self_peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                      "results": results}, indent=2))
    if not (opts.keep or opts.home):
        import shutil

        shutil.rmtree(home, ignore_errors=True)
    return 0 if all(r["exit_code"] in (0, 1) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
