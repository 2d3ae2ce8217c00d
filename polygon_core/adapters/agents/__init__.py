"""Agent adapters: turn an AgentConfig into a factory of per-conversation Agents.

`_callable` (a Python `module:attr`) is here today; a model-backed agent (`_model`) and an HTTP agent
(`_http`) plug in through `agent_factory`.
"""

from ._callable import AgentConfigError, agent_factory, load_attr

__all__ = ["AgentConfigError", "agent_factory", "load_attr"]
