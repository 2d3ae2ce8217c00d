"""Personal data found by where it is: the key a value is stored under (pure).

A tool's arguments or result say what a value is: `{"passport": "533380006"}` is a passport number
whether or not the word "passport" is said before it. A key is split into words (`passportNumber`,
`passport_number`, `Passport-No` → passport, number / no) and a value under a key with one of these
words becomes its placeholder whatever it looks like (every string, number and nested value under it):

* passport → ``[PASSPORT]``; iban → ``[IBAN]``; email, e-mail, mail → ``[EMAIL]``;
* phone, mobile, telephone, tel, msisdn, cell → ``[PHONE]``;
* card (with number, no, num or pan), pan → ``[CARD]``;
* address or street (but not email address, ip address or mac address) → ``[ADDRESS]``.

The key must name the value itself: every other word in it is a modifier (number, no, id, customer,
caller, home, work, mobile, billing, shipping, …), so ``phone_status``, ``email_sent``,
``phone_attempts`` and ``card_last4`` are not such keys. Those and other keys (``order_id``,
``amount``, ``date``) keep their values for the pattern finders, so an order number stays readable.
Under such a key a string is replaced when it could be the data: one holding a digit (a phone, card,
IBAN or passport number), an ``@`` (an e-mail address), any text (an address); a number always.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["placeholder_for_key"]

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PHONE_WORDS = frozenset({"phone", "mobile", "telephone", "tel", "msisdn", "cell", "cellphone", "phonenumber"})
_CARD_NUMBER_WORDS = frozenset({"number", "no", "num", "pan"})
_NOT_ADDRESSES = frozenset({"ip", "mac", "email", "e", "mail", "web", "url"})


def _words(key: str) -> set[str]:
    return {w.lower() for w in _WORDS.findall(key)}


# Words that may stand beside the one naming the data: the key still names the value itself
# (`customer_phone_number`), where `phone_status`, `email_sent` or `phone_attempts` name a fact about it.
_MODIFIERS = frozenset({
    "number", "no", "num", "nr", "id", "value", "raw", "full", "line", "series", "serial",
    "customer", "caller", "client", "user", "contact", "holder", "owner", "my", "your",
    "home", "work", "office", "personal", "primary", "secondary", "alt", "alternate", "other", "backup",
    "new", "old", "current", "previous", "billing", "shipping", "delivery", "postal", "mailing",
    "from", "to", "bank", "account", "e", "addr", "street", "address", "mobile", "cell", "phone", "tel",
    "card", "credit", "debit", "pan", "passport", "iban", "email", "mail", "international", "national",
    "1", "2", "3",
})


@lru_cache(maxsize=1024)
def placeholder_for_key(key: str) -> str | None:
    """The placeholder every value under `key` becomes, or None when the key says nothing."""
    found = _words(key)
    if not found or not found <= _MODIFIERS | _PHONE_WORDS:
        return None
    if "passport" in found:
        return "[PASSPORT]"
    if "iban" in found:
        return "[IBAN]"
    if found & {"email", "mail"}:
        return "[EMAIL]"
    if found & _PHONE_WORDS:
        return "[PHONE]"
    if ("card" in found and found & _CARD_NUMBER_WORDS) or "pan" in found:
        return "[CARD]"
    if found & {"address", "street"} and not found & _NOT_ADDRESSES:
        return "[ADDRESS]"
    return None
