"""One example per command, shown at the foot of its help page (`polygon COMMAND -h`).

Each is a command line as a user types it, with placeholders in capitals (RUN, CONVERSATION), short
enough for an 80-column help page; tests/cli/test_help_pages.py checks every command has one, that
it names that command and that its options are the command's.
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "epilog"]

#: the command's full name (a group's subcommand as "group sub") → its example command line(s).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "demo": ("polygon demo", "polygon demo --voice"),
    "init": ("polygon init my-agent --prompt my_prompt.txt",),
    "run": ("polygon run my-suite/ --agent agents/v1.yaml --agent agents/v2.yaml",),
    "runs": ("polygon runs --json",),
    "show": ("polygon show RUN", "polygon show RUN CONVERSATION   # its transcript, turn by turn"),
    "compare": ("polygon compare RUN_A RUN_B",),
    "rescore": ("polygon rescore RUN --rubric v2",),
    "probe": ("polygon probe RUN --probes probes.yaml",),
    "replay": ("polygon replay CONVERSATION --run RUN",),
    "sweep": ("polygon sweep polygon_core/demo/sweeps/noise.yaml",),
    "calibrate": ("polygon calibrate labels.csv --run RUN",),
    "import": ("polygon import calls.jsonl --format polygon --source support",),
    "grade-calls": ("polygon grade-calls support --since 2024-05-06 --until 2024-05-12",),
    "analyze-prompt": ("polygon analyze-prompt agents/prompt.txt",),
    "validate": ("polygon validate my-suite/ agents/v1.yaml",),
    "schema": ("polygon schema agent",),
    "serve": ("polygon serve",),
    "deploy": ("polygon deploy --suite suites/support --production-source s3://acme/calls",),
    "personas generate": ("polygon personas generate --agent agents/v1.yaml --count 12",),
    "personas list": ("polygon personas list --agent agents/v1.yaml",),
    "personas export": ("polygon personas export reviewed/",),
    "personas import": ("polygon personas import reviewed/*.yaml --pin",),
    "personas pin": ("polygon personas pin PERSONA",),
    "prompt commit": ("polygon prompt commit prompts/support.md --agent agents/support.yaml",),
    "db upgrade": ("polygon db upgrade",),
    "sources validate": ("polygon sources validate sources.yaml",),
    "server start": ("polygon server start",),
    "server stop": ("polygon server stop",),
    "server status": ("polygon server status",),
}


def epilog(command: str) -> str:
    """The help page's foot for `command`: its example lines (blank-line separated, so each stays
    on a line of its own in the rich help)."""
    lines = EXAMPLES[command]
    head = "Example:" if len(lines) == 1 else "Examples:"
    return "\n\n".join([head, *(f"  {line}" for line in lines)])
