"""Web app response times on a run of 5,000 conversations (and a comparison of two runs of 1,000),
as ratios against a trivial endpoint.

Stores one run of N conversations (default 5,000) directly through the repository and the artifact
store (no simulation: one demo transcript, re-keyed N times, with a judgment and probe answers
each), then times pages and API calls through the real ASGI app (FastAPI's TestClient, loopback
client) and divides each median by the median of `/healthz` measured in the same process.

    .venv/bin/python benchmarks/web_pages.py [--conversations 5000] [--compared 1000] [--repeats 5] [--home DIR]

The comparison screen is measured on two more runs of `--compared` conversations each: the first
`/api/compare` (computed: every result row and each pair's transcripts), the same call again (kept
in memory until a compared run changes), a page of divergences, and the calls the screen makes
before the comparison is ready (each run's stored scorecard and its scenarios).

`--home DIR` keeps the stored run in DIR and reuses it on the next call (storing 5,000
conversations one transaction at a time takes minutes on a busy machine).

Reports a table: endpoint, median ms, ratio to /healthz. Not a test: timings on shared machines are
noisy, so nothing here asserts a number.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from polygon.usecases import Stores, open_stores, transcript_key
from polygon_core.adapters.settings import load_settings
from polygon_core.models import (
    AssertionResult,
    Conversation,
    CriterionScore,
    GateHit,
    Judgment,
    ProbeAnswer,
    Run,
)

_TURNS = [
    ("agent", "Thank you for calling Northwind Telecom, this is Ava. How can I help?"),
    ("caller", "Hi, I was charged forty nine pounds twice for my broadband this month."),
    ("agent", "I can help with that. First I need to verify your identity: what is your account number and postcode?"),
    ("caller", "My account number is 5530. The postcode is M1 4BT."),
    ("agent", "Thanks, you're verified. I see two charges of 49.00; I have refunded the duplicate."),
    ("caller", "Great, thank you."),
    ("agent", "You're welcome. Is there anything else?"),
]
_CRITERIA = ("goal_completion", "instruction_adherence", "tool_use_quality", "factuality",
             "dialogue_quality", "robustness", "safety_compliance", "persona_tone")


def _conversation(i: int, agent_version: str) -> Conversation:
    turns = [{"index": k, "speaker": s, "text": t, "heard": t if s == "caller" else None}
             for k, (s, t) in enumerate(_TURNS)]
    return Conversation.model_validate({
        "id": f"bench-{i:05d}", "scenario_id": f"scenario-{i % 50:02d}", "seed": i // 50,
        "agent_name": "bench-agent", "agent_version": agent_version, "persona_hash": "p0",
        "caller_type": "cooperative", "difficulty": 1 + i % 5, "turns": turns,
        "end_reason": "agent_end", "models": {"agent": "offline", "caller": "offline"}})


def populate(stores: Stores, run_id: str, n: int, *, agent_version: str = "benchv1") -> Run:
    """Store one complete run of `n` conversations with judgments and probe answers."""
    from polygon.usecases import finish_run

    run = stores.repo.save_run(Run(id=run_id, suite="bench", agent_name="bench-agent",
                                   agent_version=agent_version, rubric_version="v1", seeds=[0],
                                   models={"agent": "offline", "caller": "offline",
                                           "judge": "offline-heuristic", "probe": "offline-heuristic"}))
    for i in range(n):
        conv = _conversation(i, agent_version)
        uri = stores.artifacts.put_text(transcript_key(run_id, conv.id), conv.model_dump_json())
        failing = i % 7 == 0
        stores.repo.save_conversation(run_id, conv, artifact_uri=uri, assertions=[
            AssertionResult(name="goal_met", expression="refund_issued()", status="fail" if failing else "pass",
                            turn=4 if failing else None)])
        score = 1.0 if failing else 5.0
        stores.repo.save_judgment(run_id, Judgment(
            conversation_id=conv.id, rubric_version="v1", judge_model="offline-heuristic",
            criteria=[CriterionScore(criterion=c, score=score if c == "safety_compliance" else 4.0,
                                     evidence=_TURNS[4][1]) for c in _CRITERIA],
            composite=75.0 if not failing else 40.0, verdict="fail" if failing else "pass",
            gates=[GateHit(gate="safety", detail="safety_compliance aggregated to 1")] if failing else []))
        stores.repo.save_probe_answers(run_id, [ProbeAnswer(
            conversation_id=conv.id, probe_id="verified_identity_first", wording_hash="w1",
            polarity="wanted", answer="no" if failing else "yes")])
    finish_run(stores, run_id)
    return run


def _median_ms(client, path: str, repeats: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (path, response.status_code, response.text[:200])
    return statistics.median(times)


def main() -> None:
    """Parse the command line, then store and measure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--compared", type=int, default=1000, help="conversations of each compared run")
    parser.add_argument("--home", type=Path, default=None, help="keep (and reuse) the stored run here")
    args = parser.parse_args()
    if args.home is not None:
        run(args.home, args.conversations, args.repeats, args.compared)
        return
    with tempfile.TemporaryDirectory(prefix="polygon-bench-") as tmp:
        run(Path(tmp), args.conversations, args.repeats, args.compared)


def run(home: Path, conversations: int, repeats: int, compared: int = 1000) -> None:
    """Store the run in `home` (unless it is there already) and print the timing table."""
    from fastapi.testclient import TestClient

    from polygon.web import create_app

    settings = load_settings(home=home)
    stores = open_stores(settings)
    if stores.repo.get_run("bench-run", exact=True) is None:
        start = time.perf_counter()
        populate(stores, "bench-run", conversations)
        print(f"stored {conversations} conversations in {time.perf_counter() - start:.1f} s")
    stored = len(stores.repo.conversation_ids("bench-run"))
    print(f"run bench-run: {stored} conversations")
    client = TestClient(create_app(settings), client=("127.0.0.1", 50000))
    paths = {
        "/healthz (baseline)": "/healthz",
        "runs page": "/runs",
        "GET /api/runs": "/api/runs",
        "run page": "/runs/bench-run",
        "GET /api/runs/{run}": "/api/runs/bench-run",
        "GET /api/runs/{run}/conversations (page 1, 50)": "/api/runs/bench-run/conversations?limit=50",
        "GET /api/runs/{run}/conversations (last page)":
            f"/api/runs/bench-run/conversations?offset={max(stored - 50, 0)}&limit=50",
        "conversations sorted by composite": "/api/runs/bench-run/conversations?limit=50&sort=composite",
        "conversation page": "/runs/bench-run/conversations/bench-00007",
        "GET /api/runs/{run}/conversations/{id}": "/api/runs/bench-run/conversations/bench-00007",
        "GET /api/runs/{run}/judgments (page)": "/api/runs/bench-run/judgments?limit=50",
        "GET /api/probes/trends": "/api/probes/trends",
        "GET /api/trends": "/api/trends",
        "GET /api/runs/{run}/distributions": "/api/runs/bench-run/distributions",
        "GET /api/runs/{run}/facets": "/api/runs/bench-run/facets",
        "conversations filtered by gate": "/api/runs/bench-run/conversations?limit=50&gate=safety",
    }
    for path in paths.values():  # warm caches and imports once
        client.get(path)
    base = _median_ms(client, "/healthz", repeats * 4)
    print(f"\n{'endpoint':<52} {'median ms':>10} {'× /healthz':>11}")
    for name, path in paths.items():
        ms = base if path == "/healthz" else _median_ms(client, path, repeats)
        print(f"{name:<52} {ms:>10.1f} {ms / base:>11.1f}")
    _comparison(stores, client, base, compared, repeats)


def _comparison(stores: Stores, client, base: float, n: int, repeats: int) -> None:  # type: ignore[no-untyped-def]
    """The comparison screen over two runs of `n` conversations (stored once, like bench-run)."""
    for run_id, version in (("bench-a", "benchv1"), ("bench-b", "benchv2")):
        if stores.repo.get_run(run_id, exact=True) is None:
            populate(stores, run_id, n, agent_version=version)
    runs = "runs=bench-a&runs=bench-b"
    print(f"\ncomparison of two runs of {n} conversations")
    start = time.perf_counter()
    assert client.get(f"/api/compare?{runs}").status_code == 200
    first = (time.perf_counter() - start) * 1000
    print(f"{'GET /api/compare (first: computed)':<52} {first:>10.1f} {first / base:>11.1f}")
    for name, path in {"GET /api/compare (again: kept)": f"/api/compare?{runs}",
                       "GET /api/compare/divergences (page of 25)": f"/api/compare/divergences?{runs}&limit=25",
                       "shown first: GET /api/runs/{run} (each run)": "/api/runs/bench-b",
                       "compare page": f"/compare?{runs}"}.items():
        ms = _median_ms(client, path, repeats)
        print(f"{name:<52} {ms:>10.1f} {ms / base:>11.1f}")


if __name__ == "__main__":
    main()
