"""A small suite written in a test's tmp_path, for the run's line (channel, conditions, recogniser)."""

from __future__ import annotations

import io
import shutil
import wave
from pathlib import Path

from polygon_core.demo import demo_dir

SCENARIO = (demo_dir() / "suite" / "scenarios" / "01_billing_dispute.yaml").read_text(encoding="utf-8")
AGENT = demo_dir() / "agents" / "agent_v1.yaml"


def write_suite(root: Path, suite_yaml: str = "", scenarios: dict[str, str] | None = None) -> Path:
    """A suite folder at `root`: the demo tools, `suite.yaml` (`suite_yaml` added to a name and one
    seed), and per id in `scenarios` the demo billing scenario under that id with the given YAML
    lines added at the end (its own `channel:` / `conditions:`)."""
    (root / "scenarios").mkdir(parents=True)
    shutil.copy(demo_dir() / "suite" / "tools.yaml", root / "tools.yaml")
    (root / "suite.yaml").write_text(f"name: line-test\nseeds: [0]\n{suite_yaml}", encoding="utf-8")
    for sid, extra in (scenarios or {"plain": ""}).items():
        text = SCENARIO.replace("id: billing-dispute-v3", f"id: {sid}").replace("max_turns: 18", "max_turns: 4")
        (root / "scenarios" / f"{sid}.yaml").write_text(text + extra, encoding="utf-8")
    return root


def wav_bytes(rate: int = 16_000, width: int = 2, frames: int = 1600) -> bytes:
    """A silent mono PCM WAV file's bytes."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(width)
        wav.setframerate(rate)
        wav.writeframes(b"\x00" * width * frames)
    return out.getvalue()
