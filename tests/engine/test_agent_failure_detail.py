"""An agent's failure as `end_detail` reads it: a failure that names its reason (a voice bot gone
silent, a line closed) says the reason plainly, not the exception's class; any other says its class."""

from __future__ import annotations

import asyncio

import pytest

from polygon_core.callers import OfflineCaller
from polygon_core.conversation import conversation_key, run_conversation
from polygon_core.conversation._engine import agent_failure_detail
from polygon_core.demo import demo_dir
from polygon_core.files import load_suite
from polygon_core.voice import WireError

SUITE = load_suite(demo_dir() / "suite")


class NamedFailure(RuntimeError):
    """Shaped as a voice bot's failure: a `reason` code, and a message that starts with it."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


class CertificateError(OSError):
    """Has a `reason` (as `ssl.SSLError` has), but its message is not `<reason>: ...`."""

    reason = "CERTIFICATE_VERIFY_FAILED"


class FailingAgent:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    async def act(self, request: object) -> object:
        raise self.exc


@pytest.mark.parametrize(("exc", "detail"), [
    (NamedFailure("silent", "the bot said nothing for 15 s"), "silent: the bot said nothing for 15 s"),
    # A failure wrapping the line's fault of the same reason says it once.
    (NamedFailure("closed", str(WireError("closed", "the bot closed the socket mid-call (code 1011)"))),
     "closed: the bot closed the socket mid-call (code 1011)"),
    (WireError("refused", "nothing listens at ws://127.0.0.1:9/ws"), "refused: nothing listens at ws://127.0.0.1:9/ws"),
    (ValueError("bad reply"), "ValueError: bad reply"),
    # A `reason` that the message does not start with is no named failure (an SSL error's, say).
    (CertificateError("[SSL] certificate verify failed"), "CertificateError: [SSL] certificate verify failed"),
])
def test_a_named_failure_reads_as_its_reason(exc: Exception, detail: str) -> None:
    assert agent_failure_detail(exc) == detail


def test_a_bot_that_goes_silent_ends_the_conversation_with_its_reason() -> None:
    scenario = SUITE.scenario("address-change")
    cid = conversation_key(scenario, 0)
    conv = asyncio.run(run_conversation(
        scenario, FailingAgent(NamedFailure("silent", "the bot said nothing for 15 s")),  # type: ignore[arg-type]
        OfflineCaller(scenario.persona, conversation_id=cid, seed=0), SUITE.tools, seed=0, agent_name="bot",
        agent_version="v"))
    assert (conv.end_reason.value, conv.end_detail) == ("agent_error", "silent: the bot said nothing for 15 s")
