"""Import throughput and peak memory: 10,000 and 100,000 conversations (10 turns each).

For each database (SQLite file, and Postgres on 127.0.0.1:5432 when reachable) and each size, a
fresh child process imports a generated JSON Lines file through the real pipeline (parse → redact →
artifact → ledger) and reports conversations per second and its peak resident memory. Memory must
stay flat: peak RSS at 100,000 no more than 1.5× that at 10,000 (the script exits 1 otherwise).

    .venv/bin/python benchmarks/import_throughput.py            # 10k and 100k, SQLite + Postgres
    .venv/bin/python benchmarks/import_throughput.py --sizes 1000 5000 --no-postgres

Figures are ratios and rates measured on the machine at hand; they are not asserted in tests.
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
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
TURNS = 10


def _conversation(i: int) -> str:
    turns = []
    for t in range(TURNS):
        speaker = "caller" if t % 2 else "agent"
        text = (f"Thanks for calling, this is turn {t} of call {i}. How can I help you today?"
                if speaker == "agent" else f"I have a question about my bill number {i % 977}, please.")
        turns.append({"speaker": speaker, "text": text})
    day = 1 + i % 28
    return json.dumps({"id": f"c{i}", "started_at": f"2024-05-{day:02d}T10:00:00Z", "turns": turns})


def _write(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            out.write(_conversation(i) + "\n")


def _child(file: str, url: str, artifacts: str) -> None:
    # Runs in a fresh process so ru_maxrss is this import's peak alone.
    os.environ["POLYGON_DATABASE_URL"] = url
    os.environ["POLYGON_ARTIFACTS_URL"] = artifacts
    from polygon import usecases
    from polygon_core.adapters.storage import Repository

    Repository(url).upgrade()
    stores = usecases.open_stores()
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    summary = usecases.import_calls(stores, [file], "polygon", source="bench")
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"imported": summary.imported, "rejected": summary.rejected,
                      "seconds": elapsed, "baseline_kb": baseline, "peak_kb": peak}))


def _postgres_db() -> str | None:
    try:
        import psycopg

        name = f"polygon_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name
    except Exception:
        return None


def _drop(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> int:
    """Run the benchmark and print a markdown table; exit 1 if memory is not flat."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return 0
    rows = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="polygon-bench-") as tmp:
        base = Path(tmp)
        files = {}
        for n in args.sizes:
            files[n] = base / f"calls-{n}.jsonl"
            _write(files[n], n)
        backends = ["sqlite"] + ([] if args.no_postgres else ["postgres"])
        for backend in backends:
            peaks = {}
            for n in args.sizes:
                pg = None
                if backend == "sqlite":
                    url = f"sqlite:///{base}/{backend}-{n}.db"
                else:
                    pg = _postgres_db()
                    if pg is None:
                        print("postgres not reachable: skipped", file=sys.stderr)
                        break
                    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{pg}"
                artifacts = str(base / f"artifacts-{backend}-{n}")
                try:
                    out = subprocess.run([sys.executable, __file__, "--child", str(files[n]), url, artifacts],
                                         cwd=REPO, capture_output=True, text=True, check=True)
                finally:
                    if pg:
                        _drop(pg)
                res = json.loads(out.stdout.strip().splitlines()[-1])
                assert res["imported"] == n, res
                peaks[n] = res["peak_kb"]
                rows.append((backend, n, n / res["seconds"], res["baseline_kb"] / 1024, res["peak_kb"] / 1024))
            if len(peaks) >= 2:
                small, large = min(peaks), max(peaks)
                ratio = peaks[large] / peaks[small]
                ok &= ratio <= 1.5
                rows.append((backend, f"ratio {large}/{small}", None, None, ratio))
    print("| database | conversations | conversations/s | RSS before import (MiB) | peak RSS (MiB) |")
    print("|---|---|---|---|---|")
    for backend, n, rate, before, peak in rows:
        if rate is None:
            print(f"| {backend} | {n} | | | peak ratio {peak:.2f}× |")
        else:
            print(f"| {backend} | {n:,} | {rate:,.0f} | {before:.0f} | {peak:.0f} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
