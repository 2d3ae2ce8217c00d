"""Agent adapters: turn an AgentConfig into a factory of per-conversation Agents.

`_callable` (a Python `module:attr`) is here today; a model-backed agent (`_model`) and an HTTP agent
(`_http`) plug in through `agent_factory`. `_code` reads a Python agent's source for its version.
"""

from ._callable import AgentConfigError, agent_factory, load_attr
from ._code import CallableCode, callable_code

__all__ = ["AgentConfigError", "CallableCode", "agent_factory", "callable_code", "load_attr"]
