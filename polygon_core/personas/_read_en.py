"""Reading an English prompt: the tasks it lists, the facts it asks for, refusals, handovers, prices.

Patterns, not understanding: a task is a service verb the agent is said to do (``help callers book,
reschedule or cancel appointments``: coordinated verbs share the object), something it offers
(``offer the first emergency slot``, asked for as ``get …``), a passive permission (``duplicate
charges can be refunded``) or a price it may quote (``the price of a dental implant consultation``).
What it must not do (``never give medical advice``, ``late fees are not refundable``, ``cannot book
technicians``) and fees it charges become refusal goals; ``transfer to the on-call dentist`` is a
handover.
"""

from __future__ import annotations

import re

from ._ask_en import english_asks
from ._facts import stem
from ._readingtypes import Parts, TaskSpec, slug
from ._tasks_en import caller_object, cue_stems, mine, stated_tasks, trigger_task
from ._verbs_en import framed_verb, listed_verb

_SERVICE_VERBS = ("book", "reschedule", "cancel", "schedule", "arrange", "order", "reserve", "refund",
                  "track", "renew", "change", "update", "pay", "return", "exchange", "replace",
                  "deliver", "report", "buy", "request", "open", "close", "register", "move",
                  "check", "find out", "look up", "collect", "get", "answer", "take", "place", "dispute",
                  "block", "tell", "explain", "quote", "activate", "sell", "describe")
_OFFER_VERBS = ("offer", "arrange", "send", "provide", "schedule", "give")
_GIVE_VERBS = ("give", "provide", "share", "tell", "quote", "disclose", "promise", "offer",
               "recommend", "prescribe", "reveal", "confirm")
_FRAME = frozenset({"help", "helps", "can", "callers", "customers", "patients", "clients", "people",
                    "them", "to", "or", "and", "you", "also", "handle", "may"})
_NEGATIONS = re.compile(r"\b(?:never|do not|don't|don’t|cannot|can't|can’t|must not|may not|not allowed to)\s+$",
                        re.IGNORECASE)
_NEGATION_SPAN = 4  # tokens: the longest negation above, "not allowed to", is three
_OBJECT_STOP = frozenset({"and", "or", "but", "if", "when", "unless", "before", "after", "while",
                          "so", "then", "because", "until", "instead", "only"})
_PRONOUNS = frozenset({"anything", "it", "them", "that", "this", "what", "something", "everything",
                       "one", "yourself", "those", "these"})
_NAME_STOP = frozenset({"a", "an", "the", "my", "your", "their", "first", "same", "new", "any", "some",
                        "for", "of", "from", "to", "with", "on", "in", "at", "by"})
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+(?:[.,]\d+)?|[,:;()]")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_TRANSFER = re.compile(r"\b(?:transfer|refer|put (?:them|the caller) through|hand (?:over|the call))\s+"
                       r"(?:[a-z]+\s+){0,2}?to\s+((?:(?:the|a|an|our)\s+)?[a-z][a-z -]{1,40}?)"
                       r"(?=\s+(?:for|if|when|who|about|immediately|right away|now|at once|straight away)\b|[.,;:]|$)",
                       re.IGNORECASE)
_PRICE = re.compile(r"\b(?:price|cost|fee) of\s+((?:a|an|the)\s+[a-z][a-z -]{2,50}?)(?=[.,;:]|\s+is\b|$)",
                    re.IGNORECASE)
_COSTS = re.compile(r"\b(?:a |an |the )?((?:[a-z]+ ){0,3}?[a-z]+)\s+costs?\s+(?=[$£€]\s?\d|\d)", re.IGNORECASE)
# Agent work named from the agent's side, in the caller's words: "answer questions about X" is
# "ask about X", "take refill requests" is "request a refill".
_CALLER_SIDE = ((re.compile(r"^answer (?:any |all |simple )?questions? (about|on) ", re.I), r"ask \1 "),
                (re.compile(r"^take (?:an? |the )?(.+?) requests?$", re.I), r"request a \1"),
                (re.compile(r"^take (?:an? |the )?([a-z]+) bookings?$", re.I), r"book a \1"),
                (re.compile(r"^take (?:an? |the )?([a-z]+) reservations?$", re.I), r"reserve a \1"),
                (re.compile(r"^take (?:an? |the )?([a-z]+) orders?$", re.I), r"order a \1"),
                (re.compile(r"^take (?:an? |the )?(?:bookings?|reservations?)\b", re.I), "make a booking"),
                (re.compile(r"^take (?:an? |the )?orders?\b", re.I), "place an order"),
                (re.compile(r"^(?:tell|quote|give) (?:callers?|customers?|patients?|clients?|guests?|people|them) ", re.I),
                 "find out "),
                (re.compile(r"^(?:tell|quote) ", re.I), "find out "),
                (re.compile(r"^(?:explain|describe) ", re.I), "ask about "),
                (re.compile(r"^sell ", re.I), "buy "))
# "tell the owner to come in": an instruction to pass on, not something a caller asks for.
_INSTRUCTION = re.compile(r"^(?:tell|give|explain)\s+(?:the\s+)?(?:owner|caller|customer|patient|guest|client|them|him|her)s?"
                          r"\s+(?:to|that|how)\b", re.IGNORECASE)
# "the available flights", "two open slots": options an agent offers, which a caller picks from.
_OPTIONS = re.compile(r"^(?:the\s+|some\s+|\d+\s+|two\s+|three\s+|a few\s+)?(?:available|free|open)\s+[a-z]+s\b",
                      re.IGNORECASE)
_PASSIVE = re.compile(r"\b([a-z][a-z ]{2,40}?)\s+can be\s+([a-z]+ed)\b", re.IGNORECASE)
_CANNOT_BE = re.compile(r"^((?:the|a|an|your|our)\s+[a-z][a-z -]{2,40}?)\s+(?:(?:is|are)\b[^.;]*?\band\s+)?"
                        r"(?:cannot|can't|can not|may not)\s+be\s+([a-z]+ed)\b", re.IGNORECASE)
_NOT_ABLE = re.compile(r"\b([a-z][a-z ]{2,40}?)\s+(?:are|is)\s+not\s+([a-z]+)able\b", re.IGNORECASE)
_FEE = re.compile(r"(?:[$£€]\s?\d+(?:[.,]\d+)?|\d+(?:[.,]\d+)?\s?(?:dollars?|pounds?|euros?))\s+"
                  r"(?:cancellation |late |no-show |booking )?(?:fee|charge|penalty)", re.IGNORECASE)
# An amount may group its thousands with commas ("$1,500"); they are dropped before it is read.
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_MONEY = re.compile(rf"[$£€]\s?({_NUMBER})|({_NUMBER})\s?(?:dollars?|pounds?|euros?)\b", re.IGNORECASE)
_ONLY_IF = re.compile(r"\b(?:only|just)\s+(?:if|when|with)\s+(?:the caller |they |a caller )?(?:has |have |shows? )?"
                      r"((?:a|an|the|their)\s+[a-z][a-z ]{2,30}?)(?=[.,;:]|$)", re.IGNORECASE)
_CALLBACK = re.compile(r"\b(?:callbacks?|call-backs?|call (?:them |the caller |you )?back)\b", re.IGNORECASE)
_HANDOVER = re.compile(r"\b(?:transfer|human|supervisor|colleague|escalate|on-call|refer)\b", re.IGNORECASE)
# The agent's words for the caller's own things become the caller's: "their repair" → "my repair".
_OWNER = re.compile(r"\b(?:their|his or her|the (?:caller|patient|customer|client)['’]s)\b", re.IGNORECASE)

def _singular(phrase: str) -> str:
    """`appointments for check-ups` → `an appointment for check-ups` (the head noun only)."""
    words = phrase.split()
    if not words:
        return phrase
    if words[0].lower() in ("a", "an", "the", "my", "your", "their", "our"):
        return phrase
    head = words[0]
    if head.endswith("ies"):
        head = head[:-3] + "y"
    elif head.endswith("s") and not head.endswith("ss"):
        head = head[:-1]
    else:
        return phrase
    article = "an" if head[:1].lower() in "aeiou" else "a"
    return " ".join([article, head, *words[1:]])


_IN_PHRASE = frozenset({"for", "of", "on", "in", "at", "with", "from", "about"})


def _object_after(tokens: list[str], start: int) -> str:
    out: list[str] = []
    limit = 8
    for k, tok in enumerate(tokens[start:], start):
        low = tok.lower()
        if tok in ",:;()" or len(out) >= limit:
            break
        if low in _OBJECT_STOP:
            if not _inner_and(tokens, k, out):
                break
            limit = len(out) + 4  # the joined nouns run to the end of the clause
        out.append(tok)
    while out and out[-1].lower() in _NAME_STOP:
        out.pop()
    return _OWNER.sub("my", " ".join(out))


def _inner_and(tokens: list[str], k: int, out: list[str]) -> bool:
    """Whether the "and"/"or" at `k` joins two nouns inside the object's own prepositional phrase
    ("the class timetable for the Leeds and York clubs"): a short run of words to the end of the
    clause, none of them a verb or a clause of its own."""
    if tokens[k].lower() not in ("and", "or") or not any(w.lower() in _IN_PHRASE for w in out[1:]):
        return False
    rest: list[str] = []
    for tok in tokens[k + 1:]:
        if tok in ",:;()" or tok.lower() in _OBJECT_STOP:
            break
        rest.append(tok.lower())
    verbs = _SERVICE_VERBS + _OFFER_VERBS + _GIVE_VERBS
    return (0 < len(rest) <= 3 and rest[0].isalpha()
            and not any(w in verbs or w in _NOT_OBJECT or w in _PRONOUNS or w in _IN_PHRASE for w in rest))


def _task_name(verb: str, obj: str) -> str:
    words: list[str] = []
    for w in obj.lower().split():
        if w in ("or", "and"):
            continue
        if w in ("for", "of", "from", "to", "with", "on", "in", "at", "by", "the", "same", "about"):
            if words:
                break
            continue
        if w not in _NAME_STOP:
            words.append(w[:-1] if w.endswith("s") and not w.endswith(("ss", "us")) else w)
        if len(words) == 2:
            break
    return slug("_".join([verb, *words]) if verb != "get" else "_".join(words))


_NOT_VERB = _NAME_STOP | _OBJECT_STOP | _PRONOUNS


def _service_tasks(sentence: str) -> list[TaskSpec]:
    tokens = _WORD.findall(sentence)
    low = [t.lower() for t in tokens]
    tasks: list[TaskSpec] = []
    pending: list[str] = []  # coordinated verbs waiting for their shared object
    i = 0
    while i < len(tokens):
        two = " ".join(low[i:i + 2])
        placed = framed_verb(low, i, _NOT_VERB) or bool(tasks and listed_verb(low, i, _NOT_VERB))
        verb = two if two in _SERVICE_VERBS else low[i] if low[i] in _SERVICE_VERBS or placed else None
        framed = not i or low[i - 1] in _FRAME or low[i - 1] == "," or placed
        # A negation stands right before the verb ("must not book"), so only the last few tokens
        # are read: joining every earlier token at every verb made a long sentence quadratic.
        if verb is None or not framed or _NEGATIONS.search(" ".join(tokens[max(0, i - _NEGATION_SPAN):i]) + " "):
            pending, i = [], i + 1
            continue
        size = len(verb.split())
        nxt = low[i + size] if i + size < len(low) else ""
        if nxt in (",", "or", "and") and any(low[k] in _SERVICE_VERBS for k in range(i + size + 1, min(len(low), i + size + 3))):
            pending.append(verb)
            i += size + 1
            continue
        obj = _modifiers(tokens, i + size, _object_after(tokens, i + size))
        if obj and obj.split()[0][:1].isdigit():
            obj = ""  # "Refunds can take 7 to 10 business days": a quantity is no service's object
        if obj and obj.split()[0].lower() not in _PRONOUNS and not _INSTRUCTION.match(f"{verb} {obj}"):
            for o in [obj, *_conjunct(tokens, i + size, obj)]:
                tasks += [_service_task(v, o) for v in [*pending, verb]]
        pending, i = [], i + size
    return tasks


# Words after "and" that start a clause of their own, not a second object.
_NOT_OBJECT = frozenset({"then", "also", "you", "they", "if", "when", "help", "ask", "make", "let", "always",
                         "never", "do", "don't", "please", "we", "i", "it", "not"})


def _conjunct(tokens: list[str], start: int, obj: str) -> list[str]:
    """A second object sharing the verb: "schedule vaccinations and check-ups" (not "appointments
    for check-ups and cleanings", whose "and" is inside the first object's phrase)."""
    if any(w.lower() in ("for", "of", "on", "in", "at", "with", "from", "to", "about") for w in obj.split()):
        return []
    end = start + len(obj.split())
    if end + 1 >= len(tokens) or tokens[end].lower() not in ("and", "or"):
        return []
    nxt = tokens[end + 1].lower()
    if nxt in _SERVICE_VERBS or nxt in _OFFER_VERBS or nxt in _GIVE_VERBS or nxt in _NOT_OBJECT:
        return []
    second = _object_after(tokens, end + 1)
    if not second or len(second.split()) > 4 or second.split()[0].lower() in _PRONOUNS:
        return []
    return [second]


def _modifiers(tokens: list[str], start: int, obj: str) -> str:
    """ "a lost or stolen card": an article and one word before "or" are the noun's modifiers, so
    the object runs on to the noun."""
    words = obj.split()
    end = start + len(words)
    if (len(words) == 2 and words[0].lower() in ("a", "an") and end + 1 < len(tokens)
            and tokens[end].lower() in ("or", "and") and tokens[end + 1].lower() not in _NAME_STOP):
        rest = _object_after(tokens, end + 1)
        if rest and len(rest.split()) >= 2:
            return f"{obj} {tokens[end].lower()} {rest}"
    return obj


def _service_task(verb: str, obj: str) -> TaskSpec:
    obj = re.sub(r"\bour\b", "your", obj)  # the company's things, as the caller says them
    if obj.split()[0].lower() in _WH:  # "explain … and how the summer rates work": a question
        return TaskSpec(_task_name("ask", obj), (stem(verb), *cue_stems(obj)), (f"find out {obj}",))
    said = _caller_side(f"{verb} {obj}")
    goal = said or f"{verb} {caller_object(verb, obj)}"
    if said:
        said_verb, _, rest = goal.partition(" ")
        if said.startswith("find out ") or said.startswith("ask about "):
            said_verb, rest = "ask", rest.partition(" ")[2]
        name, goal = _task_name(said_verb, rest), mine(goal)
    else:
        name = _task_name(verb, obj)
    return TaskSpec(name, (stem(verb), *cue_stems(goal)[1:]), (goal,))


def _caller_side(phrase: str) -> str | None:
    for pattern, replacement in _CALLER_SIDE:
        if pattern.search(phrase):
            return pattern.sub(replacement, phrase)
    return None


def _cost_tasks(sentence: str) -> list[TaskSpec]:
    out = []
    for m in _COSTS.finditer(sentence):
        words = [w for w in m.group(1).split() if w.lower() not in ("a", "an", "the")]
        if words and not {w.lower() for w in words} & {"it", "this", "that", "which", "what"}:
            out.append(TaskSpec(_task_name("price", " ".join(words)), (),
                                (f"find out how much a {' '.join(words)} costs",)))
    return out


def _offer_tasks(sentence: str) -> list[TaskSpec]:
    tasks = []
    situation = re.search(r"\b(?:if|when) (?:a |the )?(?:caller|patient|customer|client)s? "
                          r"(?:has|have|reports?|mentions?|needs?|wants?) ((?:a|an|the)\s+[a-z][a-z ]{2,30}?)"
                          r"(?=\s+or\b|[,;:]|$)", sentence, re.IGNORECASE)
    for m in re.finditer(rf"(?:^|[,;:]\s*|\b(?:then|and|instead)\s+)({'|'.join(_OFFER_VERBS)})\s+", sentence, re.IGNORECASE):
        tokens = _WORD.findall(sentence[m.end():])
        obj = _object_after(tokens, 0)
        if not obj or obj.split()[0].lower() in _PRONOUNS or _HANDOVER.search(obj) or "reason" in obj:
            continue
        if _OPTIONS.search(obj):
            continue  # "offer two available times": options the caller chooses from, not a goal
        goal = f"get {obj}" + (f" for {situation.group(1)}" if situation else "")
        tasks.append(TaskSpec(_task_name("get", obj), (), (goal,)))
    return tasks


def _price_tasks(sentence: str) -> list[TaskSpec]:
    return [TaskSpec(_task_name("price", m.group(1)), (), (f"find out the price of {m.group(1).strip()}",))
            for m in _PRICE.finditer(sentence)]


_ASKS = re.compile(r"\b(?:callers?|customers?|patients?|clients?|they|someone) (?:asks?|calls?) (?:for|about) ((?:a|an|the)\s+[a-z][a-z ]{2,30}?)(?=[.,;:]|\s+(?:and|or|then)\b|$)",
                   re.IGNORECASE)


def _asked_tasks(sentence: str) -> list[TaskSpec]:
    # "when a caller asks for a refund, issue it": what callers ask for is a task.
    return [TaskSpec(_task_name("get", m.group(1)), (), (f"get {m.group(1)}",)) for m in _ASKS.finditer(sentence)]


def _passive_tasks(sentence: str) -> list[TaskSpec]:
    out = []
    for m in _PASSIVE.finditer(sentence):
        subject = re.sub(r"^(?:only|also|just)\s+", "", m.group(1).strip(), flags=re.IGNORECASE)
        verb = m.group(2)[:-2] if m.group(2).endswith("ed") else m.group(2)
        goal = f"get {_singular(subject)} {m.group(2)}"
        out.append(TaskSpec(_task_name(verb, subject), (stem(verb), *cue_stems(goal)[1:]), (goal,)))
    return out


_TELLING = frozenset({"reveal", "disclose", "tell", "share", "confirm", "say", "discuss"})
_WH = frozenset({"what", "who", "whom", "whose", "where", "when", "which", "how", "whether"})
# A handover sentence that points back at the one before: "…; transfer those calls to a nurse".
_BACK = re.compile(r"^(?:transfer|refer|put|hand)\b|\b(?:those|such|these) (?:calls|callers|questions)\b", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:never|not|don't|don’t|cannot|can't|can’t|unable)\b", re.IGNORECASE)


_ASSURE = {"promise": "a promise", "guarantee": "a guarantee", "confirm": "confirmation", "say": "confirmation",
           "tell": "confirmation"}
_I = {"are": "am"}  # "whether they are …", asked by the one told: "whether I am …"
_RECIPIENT = re.compile(r"^(?:(?:a|an|the|any|other)\s+)?(?:callers?|customers?|patients?|clients?|members?|guests?|users?|"
                        r"people|anyone|anybody|someone|them|him|her|[a-z]+(?=\s+(?:whether|what|who|how|when|where|which|if)\b))"
                        r"\s+(?=\S)", re.IGNORECASE)


def _refusals(sentence: str) -> list[str]:
    out = []
    for m in _NOT_ABLE.finditer(sentence):
        out.append(f"get {_singular(m.group(1).strip())} {m.group(2)}ed")
    for m in _CANNOT_BE.finditer(sentence):  # "The application fee is 40 dollars and cannot be refunded"
        out.append(f"get {m.group(1).strip().lower()} {m.group(2).lower()}")
    for m in re.finditer(r"\b(?:never|do not|don't|cannot|can't|must not)\s+([a-z]+)\s+", sentence, re.IGNORECASE):
        verb = m.group(1).lower()
        obj = _object_after(_WORD.findall(sentence[m.end():]), 0)
        if verb in _TELLING or verb in _GIVE_VERBS:  # "never tell a caller whether …": whom it is told is no object
            obj = _RECIPIENT.sub("", obj.removeprefix("out "))  # "give out the names …"
            obj = re.sub(r"^(whether|if) they (will|can|are|have)\b", lambda w: f"{w[1]} I {_I.get(w[2], w[2])}", obj)
        if obj and verb in _TELLING and obj.split()[0].lower() in _WH and not re.search(r"\byou\b", obj):
            out.append(f"find out {obj}")  # "never reveal what another patron has borrowed"
            continue
        if obj.lower().startswith("that ") and verb in _ASSURE:  # "never promise that a claim will be paid"
            out.append(f"get {_ASSURE[verb]} {obj}")
            continue
        if not obj or obj.split()[0].lower() in _PRONOUNS or verb in ("repeat", "verify", "ask", "be"):
            continue
        out.append(f"get {obj}" if verb in _GIVE_VERBS else f"{verb} {caller_object(verb, obj)}")
    fee = _FEE.search(sentence)
    if fee:
        out.append(f"get the {fee.group(0)} waived")
    only = _ONLY_IF.search(sentence)
    if only:
        for task in _service_tasks(sentence[: only.start()]) or _imperative_task(sentence[: only.start()]):
            out.append(f"{task.goals[0]} without {only.group(1)}")
    return out


def _imperative_task(text: str) -> list[TaskSpec]:
    # "Book prescription drugs only with a prescription": the sentence opens with the service verb.
    tokens = _WORD.findall(text)
    if tokens and tokens[0].lower() in _SERVICE_VERBS:
        obj = _object_after(tokens, 1)
        if obj:
            return [TaskSpec(_task_name(tokens[0].lower(), obj), (), (f"{tokens[0].lower()} {_singular(obj)}",))]
    return []


def _sentence_tasks(sentence: str, parts: Parts, refusals: list[str], before: list[str]) -> list[TaskSpec]:
    only = _ONLY_IF.search(sentence)
    head = sentence[: only.start()] if only else sentence
    service = _service_tasks(head)
    said = {t.goals[0].split(" ", 1)[-1] for t in service} | {_singular(t.goals[0].split(" ", 1)[-1]) for t in service}
    # "and arrange airport transfers" is a service already; offering it again would be a second task.
    offers = [t for t in _offer_tasks(sentence) if t.goals[0].removeprefix("get ") not in said
              and caller_object("", t.goals[0].removeprefix("get ")) not in said]
    tasks = _price_tasks(sentence) + service + offers + _cost_tasks(sentence)
    tasks += stated_tasks(sentence) + _passive_tasks(sentence)
    if _TRANSFER.search(sentence):
        trigger = trigger_task(sentence, situation=not refusals and not _BACK.search(sentence))
        if trigger:
            return [trigger, *tasks]  # the handover's own trigger is the goal of a transfer caller
        parts.transferred += refusals or (before if _BACK.search(sentence) else [])
    elif not (_NEGATED.search(sentence) or _CALLBACK.search(sentence)):
        tasks += _asked_tasks(sentence)  # "if a caller asks for X, you cannot…" is no task
    return tasks


def read_english(prompt: str) -> Parts:
    """The parts of an English prompt (see the module docstring)."""
    parts = Parts()
    before: list[str] = []
    for sentence in (s.strip() for s in _SENTENCE.split(prompt) if s.strip()):
        asks = english_asks(sentence)
        refusals = _refusals(sentence)
        parts.asks += asks
        if not asks:  # a sentence listing what to ask names no task of its own
            parts.tasks += _sentence_tasks(sentence, parts, refusals, before)
        parts.refusals += refusals
        parts.handovers += [m.group(1).strip() for m in _TRANSFER.finditer(sentence)]
        if _FEE.search(sentence) or _PRICE.search(sentence) or _MONEY.search(sentence):
            parts.policies.append(sentence)
        before = refusals
    parts.amounts = [float((a or b).replace(",", "")) for a, b in _MONEY.findall(prompt)]
    parts.facts = [key for ask in parts.asks for key in ask.keys]
    parts.callback = _CALLBACK.search(prompt) is not None
    parts.transfer = bool(parts.handovers) or _HANDOVER.search(prompt) is not None
    return parts
