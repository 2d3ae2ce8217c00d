"""Errors raised by the stubs."""

from __future__ import annotations


class StubError(ValueError):
    """A stub definition is broken (bad template, bad rule expression, bad schema or state path).

    This is a fault in the scenario's tool library, never in the agent under test: an agent's bad
    call is answered with an error result, not with this exception.
    """
