"""The demo agent's parsing hears a recogniser's ways of writing correct speech, and no more.

The transcripts below are the forms Whisper tiny.en wrote for eSpeak's voice through an 8 kHz
mu-law line (a few of them verbatim), and the ways a recogniser may write the same words. A
misheard digit or word must stay what was heard: the agent may not guess.
"""

from __future__ import annotations

import asyncio

import pytest

from polygon_core.conversation import AgentAction, AgentRequest
from polygon_core.demo import DemoAgentV1, DemoAgentV2
from polygon_core.demo._parse import (
    find_account_id,
    find_amount,
    find_postcode,
    has_any,
    is_no,
    is_yes,
    spoken_digits,
    street_before_postcode,
)
from polygon_core.models import ToolCall


@pytest.mark.parametrize(("heard", "expected"), [
    ("My account number is 4821.", "4821"),
    ("my count number is 4,821.", "4821"),                       # thousands separator
    ("My count number is 5500, 30, the post calling", "5530"),   # "five thousand five hundred, thirty"
    ("My countdown was 6,400, 2, The post-covid", "6402"),
    ("four thousand eight hundred and twenty-one", "4821"),
    ("4 thousand 821", "4821"),
    ("fifty-five hundred and thirty", "5530"),
    ("two thousand and ninety-three", "2093"),
    ("four eight two one", "4821"),                              # digits read one by one
    ("forty-eight twenty-one", "4821"),                          # read in pairs
    ("48 21", "4821"),
    ("482 1", "4821"),
    ("4 8 2 1", "4821"),
    ("4-8-2-1", "4821"),
    ("4, 8, 2, 1", "4821"),
    ("My count number is 5,5,3,0.", "5530"),
    ("two oh nine three", "2093"),
    ("double five three oh", "5530"),
    ("double 5 3 0", "5530"),
    ("My account number is 0421.", "0421"),                      # leading zero kept
    ("My account number is 4821, it was 49 pounds.", "4821"),    # a second number is not appended
])
def test_account_numbers_in_the_recognisers_forms(heard: str, expected: str) -> None:
    assert find_account_id(heard) == expected


@pytest.mark.parametrize(("heard", "expected"), [
    ("My account number is 4,812.", "4812"),         # a wrong digit stays wrong, never 4821
    ("My count number is 3,380.", "3380"),           # 3318 misheard
    ("My account number is 6,400 to the post", "6400"),  # "two" heard as "to": not 6402
    ("My account number is 2,93.", None),            # not a thousands group: unreadable, not 2093
    ("My count number in 7,1664, the post", None),   # nor 1664 or 71664
    ("My account number in 6,4002,", None),
    ("My account number is 6,400,2.", None),
    ("My count number is free free one eight.", None),  # "three" heard as "free"
    ("My count number is 4 or 8 to 1.", None),       # "four", "two" heard as "or", "to"
    ("four 8 two 1", None),                          # words and digits mixed: not one number
    ("Oh, hello.", None),
    ("It was 4821.50 in total", None),               # a decimal is not an account number
    ("123456789", None),                             # nine digits
])
def test_misheard_or_garbled_account_numbers_are_not_repaired(heard: str, expected: str | None) -> None:
    assert find_account_id(heard) == expected


@pytest.mark.parametrize(("heard", "expected"), [
    ("It was 49 pounds.", 49.0),
    ("It was £49.", 49.0),
    ("$49", 49.0),
    ("£ 49", 49.0),
    ("£49.00", 49.0),
    ("It was 49 quid.", 49.0),
    ("forty-nine pounds", 49.0),
    ("forty nine dollars", 49.0),
    ("It was four nine pounds.", 49.0),
    ("It was four nine point zero zero pounds.", 49.0),
    ("£1,049", 1049.0),
    ("1,049.50 pounds", 1049.5),
    ("a hundred and twenty pounds", 120.0),
    ("49 pounds and 50 pence", 49.5),
    ("12.50", 12.5),                                  # two decimals: an amount without a currency
    ("My account is 4821 and I paid 49 pounds", 49.0),  # the number said with the currency
])
def test_amounts_in_the_recognisers_forms(heard: str, expected: float) -> None:
    assert find_amount(heard) == expected


@pytest.mark.parametrize(("heard", "expected"), [
    ("It was already £9.", 9.0),          # "forty-nine" misheard: 9, not 49
    ("It's 150 pounds.", 150.0),          # "fifteen" heard as "150"
    ("It's one 15 pounds.", 15.0),        # a misheard "was" is not a digit of the amount
    ("It was 49.", None),                 # a bare number is not an amount
    ("My account number is 4821, the pounds are gone", None),
    ("12,000 pounds", None),              # out of range, as before
])
def test_misheard_amounts_are_not_repaired(heard: str, expected: float | None) -> None:
    assert find_amount(heard) == expected


@pytest.mark.parametrize(("heard", "expected"), [
    ("The postcode is SW1A 2AA.", "SW1A 2AA"),
    ("the postcode is sw1a2aa", "SW1A 2AA"),
    ("The post called in L.S. 6 2QT.", "LS6 2QT"),    # spelled with dots
    ("The postcode is S W 1 A, 2 A A.", "SW1A 2AA"),  # spelled letter by letter
    ("M one 4 B T", "M1 4BT"),                        # a digit as a word
    ("C F ten 3 A T", "CF10 3AT"),
    ("EH1, 1YZ", "EH1 1YZ"),
    ("My account number is 4821 M 1 4 B T", "M1 4BT"),
])
def test_postcodes_in_the_recognisers_forms(heard: str, expected: str) -> None:
    assert find_postcode(heard) == expected


@pytest.mark.parametrize(("heard", "expected"), [
    ("The post calling M14VD.", "M1 4VD"),            # B and T misheard: the wrong postcode, as heard
    ("M1 for BT", None),                              # "four" heard as "for"
    ("The post called in L.S. 6 to Q.D.", None),
    ("The post called the NLS6 to QT.", None),
    ("The post called NLS62QP.", None),
    ("M-1 3-2.", None),
    ("It is a dog", None),                            # ordinary words never spell a postcode
])
def test_misheard_postcodes_are_not_repaired(heard: str, expected: str | None) -> None:
    assert find_postcode(heard) == expected


@pytest.mark.parametrize(("heard", "expected"), [
    ("It's 12 Canal Street, M1 3HU.", "12 Canal Street"),
    ("It's 12 Canal Street. M1 3HU.", "12 Canal Street"),
    ("it is 12 Canal Street M1 3HU", "12 Canal Street"),
    ("12 Canal Street, M-1 3HU", "12 Canal Street"),
    ("It's 12 canal trees, M13.", None),              # no postcode heard: no address
])
def test_the_new_street_is_the_words_before_the_postcode(heard: str, expected: str | None) -> None:
    assert street_before_postcode(heard) == expected


def test_yes_no_and_cues_ignore_case_punctuation_and_apostrophe_style() -> None:
    assert [is_yes(t) for t in ("Yes, go on.", "YES PLEASE", "Yup.", "O.K.", "Fine, lovely crew.")] == [
        True, True, True, True, True]
    assert [is_yes(t) for t in ("know everything and bye.", "I'd rather not.")] == [False, False]
    assert [is_no(t) for t in ("No. Thank you.", "I don\u2019t need anything", "know everything")] == [
        True, True, False]
    assert has_any("Sorry, I don\u2019t follow. What do you mean?", ("don't follow",))
    assert has_any("My WI-FI is down", ("wi-fi",)) and has_any("my wi fi is down", ("wi-fi",))
    assert has_any("Tomorrow-morning would be best.", ("tomorrow morning",))
    assert not has_any("I remember to duplicate the challenge", ("charge",))


def test_spoken_digits_writes_every_number_in_digits() -> None:
    assert spoken_digits("It was forty-nine pounds, account four eight two one.") == (
        "It was 49 pounds , account 4821 .")


def _heard(agent: DemoAgentV1 | DemoAgentV2, *lines: str) -> list[AgentAction]:
    async def run() -> list[AgentAction]:
        actions = [await agent.act(AgentRequest(conversation_id="c", turn=0, step=0, heard=None))]
        for turn, line in enumerate(lines, start=1):
            actions.append(await agent.act(AgentRequest(conversation_id="c", turn=turn * 2, step=0, heard=line)))
        return actions
    return asyncio.run(run())


def test_the_agent_looks_up_what_the_recogniser_wrote_of_correct_speech() -> None:
    actions = _heard(DemoAgentV1(), "Hello, I need to update my mailing address after moving house.",
                     "My count number is 5,500, 30. The post called in M 1, 4 B T.")
    call = actions[-1].tool_calls[0]
    assert (call.name, call.arguments) == ("lookup_account", {"account_id": "5530", "postcode": "M1 4BT"})


def test_the_agent_asks_again_rather_than_guess_a_garbled_number() -> None:
    actions = _heard(DemoAgentV1(), "I want to get a refund for a charge that appears twice.",
                     "My account number is 2,93. The post code is BS8 1TH.")
    assert actions[-1].tool_calls == []
    assert actions[-1].say == "Thanks. And your account number?"


def test_a_wrong_digit_is_looked_up_as_heard_and_fails() -> None:
    agent = DemoAgentV1()
    actions = _heard(agent, "I need to get a refund for a charge that appears twice.",
                     "My account number is 7,146. The postcode is LS6 2QT.")
    call = actions[-1].tool_calls[0]
    assert call.arguments == {"account_id": "7146", "postcode": "LS6 2QT"}
    failed = ToolCall(id="t1", name="lookup_account", arguments=call.arguments, result={"verified": False}, valid=True)
    answer = asyncio.run(agent.act(AgentRequest(conversation_id="c", turn=4, step=1, tool_results=[failed])))
    assert answer.say.startswith("Those details don't match our records.")
    assert agent.s.verified is False


def test_the_hasty_agent_refunds_the_amount_it_heard_not_the_account_number() -> None:
    actions = _heard(DemoAgentV2(), "Yes, I need to reverse a duplicate charge from last month.",
                     "My count number is 4,821 and it was £49.")
    call = actions[-1].tool_calls[0]
    assert (call.name, call.arguments) == ("issue_refund", {"amount": 49.0, "reason": "customer request"})
