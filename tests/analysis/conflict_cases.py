"""Issue 31's conflict cases: 14 realistic conflicting pairs and 8 consistent controls.

Each pair is two rules of a support agent's prompt that a careful reader would see contradict each
other: an always/never (must/must not) on the same act, an ordering that runs both ways, or a
general rule against a specific exception that does not say which wins. Each is embedded in a
prompt with ordinary lines before, between and after it (`prompt`). The controls are near misses a
crude reader would flag: the same act under conditions that cannot hold together, an exception that
says it wins, and an ordering stated twice the same way.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pair:
    """Two rules, the kind of conflict (or `control`), and the prompt's language."""

    id: str
    kind: str  # "polarity" | "ordering" | "exception" | "control"
    language: str
    first: str
    second: str

    def prompt(self) -> str:
        """The pair inside a short realistic prompt (other lines before, between and after)."""
        head, middle, tail = _FRAME[self.language]
        return f"{head}{self.first}\n{middle}{self.second}\n{tail}"


_FRAME = {
    "en": ("You are Alex, the phone support agent of Northwind Home, an online furniture shop.\n"
           "Greet the caller and give your name.\n",
           "Speak in short sentences and keep a friendly tone.\n"
           "Ask one question at a time.\n",
           "At the end of the call, ask whether there is anything else you can help with.\n"),
    "ru": ("Ты Алекс, голосовой помощник интернет-магазина мебели «Северный дом».\n"
           "Поздоровайся и представься.\n",
           "Говори короткими фразами, дружелюбно.\n"
           "Задавай по одному вопросу за раз.\n",
           "В конце разговора спроси, можешь ли ещё чем-то помочь.\n"),
}

CONFLICTS = [
    # English: 8.
    Pair("en-refund-confirm", "polarity", "en",
         "Always confirm the refund amount before issuing it.",
         "Never confirm the refund amount before issuing it."),
    Pair("en-escalate", "polarity", "en",
         "Escalate every complaint to a supervisor.",
         "Do not escalate complaints; resolve them yourself."),
    Pair("en-identity-order", "ordering", "en",
         "Verify the caller's identity before you look up the order.",
         "Look up the order first, then verify the caller's identity."),
    Pair("en-summary-confirm", "ordering", "en",
         "Summarise the booking only after the caller confirms the delivery date.",
         "Ask the caller to confirm the delivery date only after you have summarised the booking."),
    Pair("en-order-number", "ordering", "en",
         "Always ask for the order number at the start of the call.",
         "Do not ask for the order number until the caller has described the problem."),
    Pair("en-discount", "exception", "en",
         "Never offer discounts.",
         "Offer a 10% discount to customers who threaten to cancel."),
    Pair("en-tracking", "exception", "en",
         "Do not share tracking numbers over the phone.",
         "If the package is late, read the tracking number to the caller."),
    Pair("en-survey", "exception", "en",
         "Always offer the satisfaction survey at the end of the call.",
         "Never offer the survey to callers who complained."),
    # Russian: 6.
    Pair("ru-refund-amount", "polarity", "ru",
         "Всегда называй сумму возврата до оформления.",
         "Никогда не называй сумму возврата до оформления."),
    Pair("ru-operator", "polarity", "ru",
         "Обязательно переводи жалобы на оператора.",
         "Нельзя переводить звонки на оператора."),
    Pair("ru-identity-order", "ordering", "ru",
         "Проверь личность клиента до того, как искать заказ.",
         "Сначала найди заказ, потом проверь личность клиента."),
    Pair("ru-address-confirm", "ordering", "ru",
         "Уточняй адрес доставки после подтверждения заказа.",
         "Подтверждай заказ только после того, как уточнишь адрес доставки."),
    Pair("ru-discount", "exception", "ru",
         "Никогда не предлагай скидки.",
         "Постоянным клиентам предлагай скидку 10%."),
    Pair("ru-tracking", "exception", "ru",
         "Не сообщай номер отслеживания по телефону.",
         "Если посылка задерживается, продиктуй клиенту номер отслеживания."),
]

CONTROLS = [
    Pair("en-ordering-agrees", "control", "en",
         "Always confirm the refund amount before issuing it.",
         "Never issue a refund before its amount is confirmed."),
    Pair("en-ordering-agrees-2", "control", "en",
         "Verify the caller's identity before you look up the order.",
         "Look up the order only after the caller's identity is verified."),
    Pair("en-exception-wins", "control", "en",
         "Never offer discounts.",
         "This exception overrides the rule above: offer a 10% discount to customers who threaten to cancel."),
    Pair("en-disjoint-conditions", "control", "en",
         "If the caller is a business customer, send the invoice by email.",
         "If the caller is a private customer, do not send the invoice by email; send it by post."),
    Pair("en-different-acts", "control", "en",
         "Always confirm the refund amount.",
         "Never read the card number out loud."),
    Pair("ru-ordering-agrees", "control", "ru",
         "Проверь личность клиента до того, как искать заказ.",
         "Ищи заказ только после проверки личности клиента."),
    Pair("ru-exception-wins", "control", "ru",
         "Никогда не предлагай скидки.",
         "Исключение, которое важнее правила выше: постоянным клиентам предлагай скидку 10%."),
    Pair("ru-disjoint-conditions", "control", "ru",
         "Если клиент — юридическое лицо, отправляй счёт по электронной почте.",
         "Если клиент — физическое лицо, не отправляй счёт по электронной почте."),
]
