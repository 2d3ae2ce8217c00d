"""Convert the User Satisfaction Simulation (USS) dialogues into Polygon's import format + labels.

USS (Sun et al., SIGIR 2021, https://github.com/sunnweiwei/user-satisfaction-simulation) rates
task-oriented dialogues 1-5 for the user's satisfaction; each dialogue's last line, `USER OVERALL`,
holds the dialogue-level ratings of its annotators (three, sometimes four or five), comma-separated.
Its files are tab-separated lines `ROLE<TAB>TEXT<TAB>ACTION<TAB>SAT1,SAT2,...`, sessions separated by
blank lines.

    python benchmarks/uss_convert.py MWOZ.txt --prefix mwoz --out-calls mwoz.jsonl --out-labels mwoz.csv
    python benchmarks/uss_convert.py SGD.txt --prefix sgd --limit 100 --every 10 ...

Writes (a) `calls.jsonl`: one conversation per line, id `<prefix>-<NNNN>` (the dialogue's position
in the file, from 0001), `USER` turns as `caller`, `SYSTEM` as `agent`; (b) `labels.csv`:
`external_id,rater,criterion,score` with criterion `overall` and raters `r1`, `r2`, ... by their
position on the OVERALL line (USS does not name its annotators, so `r1` is a position, not a person).
USS rates only the dialogue as a whole, so there are no per-criterion labels. docs/calibration.md
("Fitting a judge to the labels") says how the figures there were measured with these files.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_SPEAKERS = {"USER": "caller", "SYSTEM": "agent"}


@dataclass(frozen=True)
class Dialogue:
    """One USS session: its turns (speaker, text) and the annotators' overall ratings."""

    turns: list[tuple[str, str]]
    overall: list[int]


def read_uss(path: Path) -> Iterator[Dialogue]:
    """The dialogues of one USS file, in file order; a session without an OVERALL line is skipped."""
    turns: list[tuple[str, str]] = []
    overall: list[int] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            fields = line.rstrip("\n").split("\t")
            if not line.strip():
                if turns and overall:
                    yield Dialogue(turns, overall)
                turns, overall = [], []
                continue
            role, text = fields[0].strip(), fields[1].strip() if len(fields) > 1 else ""
            if role == "USER" and text == "OVERALL":
                try:
                    overall = [int(s) for s in fields[3].split(",") if s.strip()]
                except (IndexError, ValueError):
                    raise ValueError(f"{path}:{number}: OVERALL line without comma-separated 1-5 ratings") from None
                continue
            if role not in _SPEAKERS:
                raise ValueError(f"{path}:{number}: role {role!r}, expected USER or SYSTEM")
            if text:
                turns.append((_SPEAKERS[role], text))
    if turns and overall:
        yield Dialogue(turns, overall)


def to_call(dialogue: Dialogue, call_id: str) -> dict[str, object]:
    """A conversation in Polygon's import format (docs/import-formats.md)."""
    return {"id": call_id, "started_at": "2021-07-11T00:00:00Z", "end_reason": "caller_hangup", "language": "en",
            "metadata": {"dataset": "uss"},
            "turns": [{"speaker": speaker, "text": text} for speaker, text in dialogue.turns]}


def main() -> None:
    """Parse arguments, convert, write both files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("uss_file", type=Path, help="a USS dataset file such as MWOZ.txt or SGD.txt")
    parser.add_argument("--prefix", required=True, help="conversation id prefix, e.g. mwoz")
    parser.add_argument("--out-calls", type=Path, required=True)
    parser.add_argument("--out-labels", type=Path, required=True)
    parser.add_argument("--every", type=int, default=1, help="keep every Nth dialogue (a spread-out slice)")
    parser.add_argument("--limit", type=int, default=0, help="keep at most this many (0: all)")
    args = parser.parse_args()
    kept = 0
    with args.out_calls.open("w", encoding="utf-8") as calls, args.out_labels.open("w", newline="") as out:
        labels = csv.writer(out, lineterminator="\n")
        labels.writerow(["external_id", "rater", "criterion", "score"])
        for position, dialogue in enumerate(read_uss(args.uss_file), 1):
            if (position - 1) % args.every or (args.limit and kept >= args.limit):
                continue
            call_id = f"{args.prefix}-{position:04d}"
            calls.write(json.dumps(to_call(dialogue, call_id), ensure_ascii=False) + "\n")
            for rater, score in enumerate(dialogue.overall, 1):
                labels.writerow([call_id, f"r{rater}", "overall", score])
            kept += 1
    print(f"{kept} dialogues -> {args.out_calls}, {args.out_labels}")


if __name__ == "__main__":
    main()
