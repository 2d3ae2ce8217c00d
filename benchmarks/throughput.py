"""Throughput of `polygon run`, end to end: N conversations at concurrency C against a fake model server.

Both model roles (the agent and the simulated caller) are on a local OpenAI-compatible server
(`benchmarks/_fake_llm.py`, its own process) that answers every request after a fixed latency;
the judge and the probe answerer are the offline ones; results go to SQLite (or `--database`).
Each conversation is exactly `1 + 2 × turns` model calls (the agent opens, then caller and agent
take `turns` turns each), so the ideal wall time is

    ideal = calls per conversation × latency × ceil(N / C)

and the whole `polygon run --json` process (start-up, simulation, judging, probes, the scorecard
and the report) is measured against it. A Prefect server is started once before the clock starts
(or `--prefect-api URL` names a running one), as a long-lived local server would be.

    .venv/bin/python benchmarks/throughput.py [--conversations 1000] [--concurrency 200]
        [--latency 0.25] [--turns 4] [--database URL] [--prefect-api URL] [--out FILE] [--floor]

Prints one JSON object: wall/ideal, conversations per hour, CPU per conversation (the polygon
process, all in; the Prefect server's and the fake server's beside it), peak in flight (at the
model server and as the run recorded it), peak memory, conversations simulated twice (model
server starts beyond N) and the machine's load while it ran.

`--floor` also measures, against the same two servers after the run, the floor of the stack the
run stands on (`_stack_floor.py`): the same calls through the `openai` SDK on one asyncio loop
with nothing else, plus one empty Prefect flow run in its own process (their sum is a lower bound
on any run of these conversations on this machine), and a process running them as one Prefect
task per conversation with none of Polygon's own work. The JSON gives each over the ideal, and
the run over each.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXE = str(Path(sys.executable).with_name("polygon"))

SCENARIO = """\
id: bench-billing
max_turns: {turns}
persona:
  name: bench_caller
  temperament: calm
  goal: ask why the last bill is higher than usual
  difficulty: 1
  ground_truth: {{account_id: "4821"}}
tools: []
"""


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _machine_busy() -> tuple[int, int]:
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return json.loads(reply.read())


def _start_fake(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "_fake_llm.py"), "--latency", str(latency)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline().split()[1])
    return proc, f"http://127.0.0.1:{port}"


def _start_prefect(home: Path) -> tuple[subprocess.Popen[bytes], str, float]:
    import prefect

    from polygon.cli._prefect import SERVER_TUNING  # the settings `polygon server start` runs its server with

    port, started = _free_port(), time.perf_counter()
    env = {**SERVER_TUNING, **os.environ, "PREFECT_HOME": str(home / "prefect"), "PREFECT_UI_ENABLED": "0",
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_SERVER_LOGGING_LEVEL": "CRITICAL"}
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--app-dir", str(prefect.__module_path__.parent),
                             "--factory", "prefect.server.api.server:create_app", "--host", "127.0.0.1",
                             "--port", str(port), "--log-level", "error"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    api = f"http://127.0.0.1:{port}/api"
    while time.perf_counter() - started < 300:
        try:
            if _get_json(f"{api}/health") is True:
                return proc, api, time.perf_counter() - started
        except OSError:
            pass
        time.sleep(0.25)
    proc.kill()
    raise SystemExit("the Prefect server did not start within 300 s")


def _write_inputs(home: Path, model_url: str, turns: int) -> tuple[Path, Path]:
    suite = home / "suite"
    (suite / "scenarios").mkdir(parents=True)
    (suite / "suite.yaml").write_text("name: bench\nrubric: v1\nseeds: [0]\n", encoding="utf-8")
    (suite / "scenarios" / "bench.yaml").write_text(SCENARIO.format(turns=turns), encoding="utf-8")
    agent = home / "agent.yaml"
    agent.write_text(f"name: bench-agent\nprompt: You are Northwind's billing agent.\n"
                     f"model: openai:bench-agent@{model_url}/v1\n", encoding="utf-8")
    return suite, agent


def _run(args: argparse.Namespace, home: Path, api: str, model_url: str) -> dict[str, Any]:
    suite, agent = _write_inputs(home, model_url, args.turns)
    env = {**os.environ, "POLYGON_HOME": str(home / "polygon"), "PREFECT_API_URL": api,
           "POLYGON_CONCURRENCY": str(args.concurrency), "POLYGON_MODEL_CACHE": "off",
           "POLYGON_CALLER_MODEL": f"openai:bench-caller@{model_url}/v1", "PREFECT_LOGGING_LEVEL": "WARNING"}
    if args.database:
        env["POLYGON_DATABASE_URL"] = args.database
    cmd = [EXE, "run", str(suite), "--agent", str(agent), "--seeds", str(args.conversations),
           "--run-id", "bench", "--json"]
    busy0, load0 = _machine_busy(), os.getloadavg()
    start = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    busy1, load1 = _machine_busy(), os.getloadavg()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"polygon run failed ({out.returncode}):\n{out.stderr[-4000:]}")
    (run,) = json.loads(out.stdout)["runs"]
    execution = json.loads((home / "polygon" / "artifacts" / "runs" / "bench" / "execution.json").read_text())
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mib": usage.ru_maxrss / 1024,
            "run": run, "execution": execution,
            "machine_busy": (busy1[0] - busy0[0]) / max(busy1[1] - busy0[1], 1), "load": [load0, load1]}


def _ideal(args: argparse.Namespace) -> float:
    return (1 + 2 * args.turns) * args.latency * math.ceil(args.conversations / args.concurrency)


def _floor(args: argparse.Namespace, api: str, model_url: str, calls: int, ideal: float, wall: float) -> dict[str, Any]:
    script, env = str(ROOT / "benchmarks" / "_stack_floor.py"), {**os.environ, "PREFECT_API_URL": api,
                                                                  "PREFECT_LOGGING_LEVEL": "WARNING"}
    sdk = subprocess.run([sys.executable, script, "sdk", str(args.conversations), str(args.concurrency), str(calls),
                          f"{model_url}/v1"], env=env, capture_output=True, text=True, check=True)
    loop_s = float(json.loads(sdk.stdout)["loop_s"])
    flow_s, _ = _timed([sys.executable, script, "flow"], env)
    tasks_s, tasks_cpu = _timed([sys.executable, script, "tasks", str(args.conversations), str(args.concurrency), str(calls),
                      f"{model_url}/v1"], env)
    floor = loop_s + flow_s
    return {"sdk_calls_only_loop_s": round(loop_s, 3), "empty_flow_process_s": round(flow_s, 3),
            "floor_s": round(floor, 3), "floor_over_ideal": round(floor / ideal, 3),
            "run_over_floor": round(wall / floor, 3),
            "task_per_conversation_process_s": round(tasks_s, 3),
            "task_per_conversation_over_ideal": round(tasks_s / ideal, 3),
            "task_per_conversation_cpu_ms_per_conversation": round(1000 * tasks_cpu / args.conversations, 1),
            "run_over_task_per_conversation": round(wall / tasks_s, 3)}


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU (user + system) of one child process."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, env=env, capture_output=True, check=True)
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.25)
    parser.add_argument("--turns", type=int, default=4, help="caller turns (calls = 1 + 2 × turns)")
    parser.add_argument("--database", help="database URL (default: SQLite in a temporary home)")
    parser.add_argument("--prefect-api", help="a running Prefect server's API URL (default: start one)")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    parser.add_argument("--floor", action="store_true",
                        help="also measure the stack's floor (the SDK calls alone, an empty flow run)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="polygon-bench-") as tmp:
        home = Path(tmp)
        fake, model_url = _start_fake(args.latency)
        prefect_proc, api, prefect_start = (None, args.prefect_api, 0.0) if args.prefect_api else _start_prefect(home)
        try:
            prefect_cpu0 = _cpu_seconds(prefect_proc.pid) if prefect_proc else 0.0
            result = _run(args, home, api, model_url)
            stats = _get_json(f"{model_url}/stats")
            prefect_cpu = (_cpu_seconds(prefect_proc.pid) - prefect_cpu0) if prefect_proc else None
            fake_cpu = _cpu_seconds(fake.pid)
            floor = _floor(args, api, model_url, 1 + 2 * args.turns, _ideal(args), result["wall_s"]) if args.floor else None
        finally:
            fake.terminate()
            if prefect_proc is not None:
                prefect_proc.terminate()
                prefect_proc.wait(timeout=30)
            fake.wait(timeout=30)
    calls, ideal = 1 + 2 * args.turns, _ideal(args)
    n = args.conversations
    report = {
        "conversations": n, "concurrency": args.concurrency, "latency_s": args.latency,
        "model_calls_per_conversation": calls, "ideal_s": round(ideal, 3), "wall_s": round(result["wall_s"], 3),
        "wall_over_ideal": round(result["wall_s"] / ideal, 3),
        "conversations_per_hour": round(n / result["wall_s"] * 3600),
        "cpu_ms_per_conversation": round(1000 * result["cpu_s"] / n, 1),
        "prefect_server_cpu_ms_per_conversation": round(1000 * prefect_cpu / n, 1) if prefect_cpu is not None else None,
        "model_server_cpu_ms_per_conversation": round(1000 * fake_cpu / n, 1),
        "peak_in_flight_at_model_server": stats["max_in_flight"],
        "peak_conversations_in_flight": result["execution"]["peak_in_flight"],
        "peak_memory_mib": round(result["peak_rss_mib"], 1),
        # Where the wall time went: the conversations' loop (simulate, judge, probe) as the run
        # recorded it, and everything else (start-up, creating the run, scorecard, report).
        "conversation_phase_s": result["execution"]["seconds"],
        "conversation_phase_over_ideal": round(result["execution"]["seconds"] / ideal, 3),
        "rest_of_process_s": round(result["wall_s"] - result["execution"]["seconds"], 3),
        "model_requests": stats["requests"], "model_requests_expected": calls * n,
        "simulated_twice": stats["starts"] - n,
        "conversations_stored": result["run"]["conversations"], "verdicts": result["run"]["verdicts"],
        "prefect_server_startup_s": round(prefect_start, 2) if not args.prefect_api else "already running",
        "database": args.database or "sqlite (temporary home)",
        "stack_floor": floor,
        "machine": {"cores": os.cpu_count(), "busy_fraction_during_run": round(result["machine_busy"], 3),
                    "loadavg_before": [round(x, 2) for x in result["load"][0]],
                    "loadavg_after": [round(x, 2) for x in result["load"][1]]},
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
