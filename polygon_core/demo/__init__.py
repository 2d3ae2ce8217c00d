"""The bundled demo: a suite of six scenarios and Northwind's billing agent in two versions."""

from importlib import resources
from pathlib import Path

from ._agent import PROMPT_V1, PROMPT_V2, DemoAgent, DemoAgentV1, DemoAgentV2


def demo_dir() -> Path:
    """The folder holding the demo suite and agent files."""
    return Path(str(resources.files(__package__)))


__all__ = ["PROMPT_V1", "PROMPT_V2", "DemoAgent", "DemoAgentV1", "DemoAgentV2", "demo_dir"]
