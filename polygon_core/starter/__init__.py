"""`polygon init`'s files: a small working suite, tool library and Python agent from a prompt.

    starter = starter_files(prompt_text, name="dental", prompt_ref="prompt.txt")
    starter.files        # {"my_agent.py": "...", "my_agent.yaml": "...", "suite/suite.yaml": "...", ...}

Pure: given the prompt's text, it returns the files' text (the caller writes them). The prompt is
read as persona generation reads it (`polygon_core.personas.read_prompt`), and the scenarios are the
offline generator's personas (`generate_offline`, seed 0), each in a scenario whose assertions follow
its intended outcome. The tools are the prompt's tasks that act (`_tools`), and the agent is a class
routing callers to them (`_agent`). Without a prompt, `EXAMPLE_PROMPT` (a bicycle repair shop) is
used and written beside the agent as prompt.txt.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..files import prompt_hash
from ..personas import generate_offline, read_prompt
from ._agent import AGENT_CLASS, AGENT_MODULE, agent_source, agent_yaml, questions
from ._suite import dump, scenario_documents
from ._tools import CALLBACK_TOOL, TRANSFER_TOOL, Route, routes, tool_library

__all__ = ["AGENT_CLASS", "AGENT_FILE", "AGENT_MODULE", "CALLBACK_TOOL", "DEFAULT_COUNT", "EXAMPLE_PROMPT",
           "EXAMPLE_PROMPT_FILE", "SUITE_DIR", "TRANSFER_TOOL", "Route", "Starter", "starter_files"]

SUITE_DIR = "suite"
AGENT_FILE = f"{AGENT_MODULE}.yaml"
EXAMPLE_PROMPT_FILE = "prompt.txt"
DEFAULT_COUNT = 6

#: The example domain `polygon init` uses without `--prompt`: written to prompt.txt, to edit.
EXAMPLE_PROMPT = """You are Sam, the phone assistant of Spoke and Chain, a bicycle repair shop.
You book bike services and repairs, and tell customers the status of a repair.
Ask for the customer's name and phone number.
A basic service costs 45 dollars.
Never quote a price for a repair before the bike has been inspected.
If a caller wants to complain, transfer them to the shop manager.
If no slot suits the customer, offer a callback.
"""


@dataclass(frozen=True)
class Starter:
    """The files of a starter folder (relative path → text, in writing order) and what is in them."""

    files: dict[str, str]
    scenarios: list[str]
    tools: list[str]
    routes: list[Route] = field(default_factory=list)
    language: str = "en"

    @property
    def suite(self) -> str:
        """The suite folder, relative to the starter folder."""
        return SUITE_DIR

    @property
    def agent(self) -> str:
        """The agent file, relative to the starter folder."""
        return AGENT_FILE


def starter_files(prompt: str | None = None, *, name: str = "my-agent", prompt_ref: str = EXAMPLE_PROMPT_FILE,
                  write_prompt: bool = True, count: int = DEFAULT_COUNT) -> Starter:
    """The starter folder's files for `prompt` (None: the bicycle shop example).

    `prompt_ref` is the prompt file's path as the agent file names it (relative to the folder,
    inside it); with `write_prompt` the prompt is one of the files, written there. `name` is the
    agent's and the suite's name. Raises ValueError for an empty prompt or a count below 1.
    """
    text = EXAMPLE_PROMPT if prompt is None else prompt
    if not text.strip():
        raise ValueError("the prompt is empty: write what your agent does, whom it helps and what it asks for")
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    reading = read_prompt(text)
    found = routes(reading)
    library = tool_library(found)
    tools = list(library["tools"])
    generated = generate_offline(text, count=count, seed=0)
    scenarios = scenario_documents(generated, found, tools, language=reading.language, knowledge=reading.policies)
    ref = prompt_ref  # as the agent file names it
    origin = f"Written by `polygon init` from {ref} (prompt {prompt_hash(text)})."
    facts = list(dict.fromkeys(f for r in found if r.tool for f in (r.facts or ("name",))))
    files: dict[str, str] = {}
    if write_prompt:
        files[ref] = text
    files[f"{AGENT_MODULE}.py"] = agent_source(
        found, language=reading.language, asks=questions(facts, reading.language, reading.fact_names),
        prompt_name=ref, suite=SUITE_DIR, agent_file=AGENT_FILE)
    files[AGENT_FILE] = agent_yaml(name, ref, reading.language)
    files[f"{SUITE_DIR}/suite.yaml"] = dump(
        {"name": name, "description": f"Calls to {name}, derived from its prompt.", "rubric": "v1", "seeds": [0]},
        f"{origin}\nScenarios are in scenarios/, tools in tools.yaml; edit any of them.")
    files[f"{SUITE_DIR}/tools.yaml"] = dump(
        library, "The suite's tool library: every tool defined once; scenarios list them by name.\n"
        "Each task the prompt gives the agent to do is a tool taking the facts the prompt asks for.")
    for index, (sid, document) in enumerate(scenarios, start=1):
        files[f"{SUITE_DIR}/scenarios/{index:02d}-{sid}.yaml"] = dump(document, origin)
    return Starter(files=files, scenarios=[sid for sid, _doc in scenarios], tools=tools, routes=found,
                   language=reading.language)
