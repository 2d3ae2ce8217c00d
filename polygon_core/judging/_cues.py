"""Cue lists the offline judge reads in a transcript, English and Russian (data, meant to be extended).

Each entry is a regular-expression fragment matched on whole words of the normalised text
(NFKC + casefold, apostrophes unified: `normalise_speech`), so "I'm" and "I’m" match alike.
Russian entries end in `\\w*` where the word inflects. Both languages are always searched: an
imported call's language tag is often wrong, and a cue in the other language costs nothing.
To extend a list, add a fragment; tests/judging pins what each category finds on sample lines.
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["ACTION_CUES", "CUES", "STOPWORDS", "cue_pattern"]

# Words too common to show that a reply is about the request (unanswered-request overlap).
_STOP_TEXT = """
the and for you your are can could would will with that this have has was were what when where which
who how please need want like looking also just then there they them their about from into any some
yes yeah okay thanks thank hello bye goodbye would i'd i'm it's that's don't get got one more much
как что это для мне меня вас вам есть или там тут нет да уже ещё еще когда где пожалуйста можно
"""
STOPWORDS = frozenset(_STOP_TEXT.split())

CUES: dict[str, dict[str, tuple[str, ...]]] = {
    # The caller is annoyed with the agent or the call.
    "frustration": {
        "en": (
            "this is ridiculous", "ridiculous", "useless", "are you even listening", "you're not listening",
            "you are not listening", "(let me |can i |i want to |i need to )?(speak|talk) (to|with) "
            "(a |an |the )?(real )?(human|person|manager|supervisor|operator|representative|agent)",
            "waste of (my )?time", "not helpful", "unhelpful", "frustrat\\w*", "annoy\\w*", "stupid",
            "terrible", "awful", "what's wrong with you", "i already (told|said|gave)( you)?",
            "for the (second|third|last) time", "how many times", "are you a robot", "i give up",
            "this is not working", "this isn't working", "i'm (so )?(angry|upset|fed up)", "unbelievable",
            "come on", "finally", "at last",
        ),
        "ru": (
            "бесполезн\\w*", "безобрази\\w*", "издева\\w*", "вы (меня )?(вообще )?слышите",
            "вы (меня )?не слушаете", "(позовите|соедините|дайте|переключите)( меня)?( с| на)? "
            "(оператор\\w*|человек\\w*|менеджер\\w*|руководител\\w*|живого\\w*)",
            "с живым человеком", "нормальн\\w* человек\\w*", "трата времени", "надоело", "ужасн\\w*",
            "сколько можно", "я же (сказал|сказала|говорил|говорила)", "в который раз", "бред",
            "не помогает", "вы робот", "достали", "раздража\\w*", "наконец-то",
        ),
    },
    # The caller corrects what the agent understood.
    "correction": {
        "en": (
            "no,? i said", "i said", "that's not what i (said|asked|meant|wanted)",
            "that is not what i (said|asked|meant|wanted)", "not what i asked( for)?", "i didn't say",
            "i did not say", "you misunderstood", "that's wrong", "that is wrong", "that's not right",
            "that's incorrect", "no,? not", "no,? i meant", "i meant", "wrong (one|day|time|date|place)",
            "no,? that's not", "let me correct", "correction", "wrong", "you didn't (ask|check|say|do)",
            "you did not (ask|check|say|do)", "shouldn't you", "why didn't you", "you forgot",
        ),
        "ru": (
            "я (же )?(сказал|сказала) ", "нет,? я (сказал|сказала|имел|имела)", "я не (это|так) (сказал|сказала|просил|просила)",
            "не то,? что я (просил|просила|спрашивал|спрашивала)", "вы (меня )?не так поняли",
            "неправильно", "это не так", "я имел в виду", "я имела в виду", "не (тот|та|то|те)",
            "ошиб\\w*",
        ),
    },
    # The caller closes the call satisfied.
    "closure": {
        "en": (
            "thanks?( you)?( so much| very much| a lot)?", "thank you", "great", "perfect", "awesome",
            "excellent", "wonderful", "that's all i (need|needed|wanted)", "that is all i (need|needed)",
            "that's everything", "that will be all", "that'll be all", "you've been (very |really |so )?helpful",
            "you have been (very |really )?helpful", "very helpful", "that helps", "that's helpful",
            "appreciate (it|that|your help)", "sounds good", "all set", "that's it", "that is it",
            "that's fine", "no thanks", "i'm good", "all good", "problem solved", "have a (good|nice|great) (day|one|evening)",
        ),
        "ru": (
            "спасибо", "благодар\\w*", "отлично", "прекрасно", "замечательно", "супер", "здорово",
            "это всё", "это все", "больше ничего( не нужно)?", "вы (мне )?(очень )?помогли", "помогли",
            "всё понятно", "все понятно", "хорошего дня", "всего доброго",
        ),
    },
    # The caller leaves without what they came for.
    "give_up": {
        "en": (
            "never ?mind", "forget (it|about it)", "i'll (try|go|look) (somewhere )?else(where)?",
            "i'll call back", "i will call back", "i'll try (again )?later", "not interested anymore",
            "i'll do it myself", "i'll go elsewhere", "elsewhere", "i give up", "that doesn't help",
            "that does not help", "no thanks?,? (bye|goodbye)", "whatever",
        ),
        "ru": (
            "ладно,? (забудьте|не надо)", "забудьте", "не надо", "позвоню позже", "перезвоню",
            "обращусь (в другое место|к другим)", "сам (разберусь|сделаю)", "сама (разберусь|сделаю)",
            "проехали", "неважно",
        ),
    },
    # The agent apologises.
    "apology": {
        "en": ("sorry", "i apologi[sz]e", "apologies", "my apologies", "forgive me", "excuse me",
               "unfortunately", "regret"),
        "ru": ("извин\\w*", "прош\\w* прощения", "сожален\\w*", "к сожалению", "простите"),
    },
    # The agent cannot do or find what was asked.
    "inability": {
        "en": (
            "i can't", "i cannot", "i can not", "i'm (not )?(un)?able to", "unable to", "not able to",
            "i couldn't", "i could not", "no results", "no (matches|match|availability)", "nothing (available|found)",
            "there (are|is) no", "there aren't any", "there isn't any", "i (don't|do not) have (that |this |any |the )?"
            "(information|info|details|data)", "no (information|info|details)", "i (don't|do not) know", "not available", "unavailable",
            "fully booked", "(is |are )?booked up", "not possible", "impossible", "(could|can) ?n[o']t (find|book|locate|complete)",
            "(booking|reservation|transaction|payment) (was |has )?(unsuccessful|failed)", "failed",
            "could you (please )?repeat", "say that again", "didn't (quite )?catch", "i don't understand",
            "i do not understand", "no longer", "out of stock", "we don't (offer|have|do)", "we do not (offer|have)",
        ),
        "ru": (
            "не могу", "не (можем|получится|удалось|удаётся|удается)", "нет (результатов|мест|свободных|информации|данных)",
            "ничего не найден\\w*", "не найден\\w*", "не нашл\\w*", "недоступ\\w*", "невозможно",
            "у меня нет (такой |этой )?информации", "не знаю", "повторите", "не расслышал\\w*", "не понял\\w*",
            "ошибк\\w*", "все места заняты", "занято",
        ),
    },
    # The agent reports that the thing asked for was done.
    "success": {
        "en": (
            "(is|are|was|been|have|has|i've|i have) (successfully )?(booked|reserved|confirmed|scheduled|"
            "processed|completed|cancell?ed|updated|changed|sent|issued|refunded|arranged|placed|transferred|removed|"
            "waived|credited|activated|renewed|paid|fixed|resolved|reset|opened|blocked|unblocked)",
            "booking (is |was )?(successful|complete|confirmed)", "reservation (is |was )?(successful|complete|confirmed)",
            "reference (number|code)", "confirmation (number|code)", "ref(erence)?( number)? is", "all set",
            "you're (all )?set", "successfully", "i've (gone ahead|made|booked|reserved)", "done",
        ),
        "ru": (
            "(успешно )?(забронирован\\w*|оформлен\\w*|подтвержд\\w*|выполнен\\w*|отправлен\\w*|отменен\\w*|"
            "отменён\\w*|изменен\\w*|изменён\\w*|записал\\w*|зарезервирован\\w*|зачислен\\w*|возвращен\\w*)",
            "номер (брони|бронирования|заказа|заявки|обращения)", "готово", "успешно",
        ),
    },
    # The agent asks the caller to say it again (a repeat that follows is asked for, not a failure).
    "clarify": {
        "en": (
            "say that again", "didn't (quite )?catch", "could you (please )?repeat", "repeat that", "pardon",
            "(line|connection) is (a bit )?(unclear|bad|poor)", "tell me again", "one more time",
            "(having )?trouble hearing", "read (it|that|your \\w+) (to me )?(slowly|again)", "spell (it|that)",
        ),
        "ru": (
            "повторите", "не расслышал\\w*", "ещё раз", "еще раз", "плохо слышно", "продиктуйте",
        ),
    },
    # The agent is courteous (what a 5 on tone is given for, rather than by default).
    "courtesy": {
        "en": (
            "please", "thank you", "thanks", "you're welcome", "you are welcome", "happy to help",
            "glad to help", "my pleasure", "of course", "certainly", "i understand", "sorry to hear",
            "i'm sorry", "i apologi[sz]e", "have a (good|nice|great|lovely) (day|evening|one|trip|stay)",
            "no problem", "absolutely", "welcome",
        ),
        "ru": (
            "пожалуйста", "спасибо", "благодар\\w*", "рад\\w* помочь", "конечно", "понимаю", "извините",
            "хорошего дня", "всего доброго", "будем рады", "с удовольствием",
        ),
    },
    # The agent is rude or dismissive.
    "rudeness": {
        "en": (
            "calm down", "(that's|that is|it's|it is) not my (problem|fault|job)", "(that's|that is) your problem",
            "i (already )?told you", "as i (already )?said", "listen to me", "you should have", "your own fault",
            "i don't care", "deal with it", "stop (shouting|yelling)", "hurry up", "obviously", "whatever",
            "read the (manual|website|terms)", "not my department", "take it or leave it", "you people",
        ),
        "ru": (
            "успокойтесь", "не моя проблема", "не мои проблемы", "я же (сказал|сказала|говорил|говорила)",
            "слушайте (меня )?внимательно", "сами виноваты", "мне (всё|все) равно", "не кричите",
            "читайте (договор|правила|сайт)", "это не ко мне",
        ),
    },
    # What a caller's request sounds like (besides a question mark).
    "request": {
        "en": (
            "can you", "could you", "would you", "can i", "could i", "i need", "i want", "i'd like",
            "i would like", "i'm looking for", "i am looking for", "looking for", "please (give|tell|find|book|send|check|help)",
            "what", "where", "when", "which", "how (much|many|long|far|do|can)", "is there", "are there",
            "do you have", "tell me", "give me", "i also need", "help me", "i have a (question|problem|issue)",
            "question about", "problem with", "issue with", "i just want",
        ),
        "ru": (
            "можно", "можете", "подскажите", "скажите", "мне нужн\\w*", "нужн\\w*", "хочу", "хотел\\w*",
            "ищу", "как", "где", "когда", "сколько", "какой", "какая", "какие", "есть ли", "помогите",
            "забронируйте", "закажите", "проверьте", "вопрос", "проблем\\w*",
        ),
    },
}


# Cues read only around tool calls (whether a call that acted was confirmed, or promised and never
# made). Kept out of `CUES` because `CUES` is also the fitted judge's feature list (`ENDING_CUES`),
# which must not move under a stored model.
ACTION_CUES: dict[str, dict[str, tuple[str, ...]]] = {
    # The agent says the thing is done in words the "success" list lacks (order-taking, pickups).
    "confirm": {
        "en": (
            "(order|booking|request|refill|prescription|reservation|change|flight|table|drink|coffee) "
            "(is|has been|was) (now )?(in|placed|ready|on its way|through)",
            "(is|are|was|has been) (now )?complete",
            "(will|should) be ready", "ready for (pick ?up|collection)", "on (its|their) way",
            "(you'll|you will) (get|receive) (a|an|the) (confirmation|text|email|receipt)",
            "i('ve| have) (placed|put in|put through|submitted|sent|ordered|refilled|moved|rebooked)",
            "(it's|that's|everything's) (done|sorted|taken care of)", "taken care of", "sorted",
            "(you're|you are) now (on|booked|confirmed|scheduled|registered)",
        ),
        "ru": (
            "будет готов\\w*", "(уже )?в пути", "я (оформил\\w*|отправил\\w*|заказал\\w*|перенес\\w*|перенёс\\w*)",
        ),
    },
    # The agent says it will act (a promise a tool call should keep).
    "promise": {
        "en": (
            "(i'll|i will|i'm going to|let me|i can) (go ahead and )?(now )?(place|book|put|process|send|"
            "submit|schedule|reserve|change|cancel|refill|order|arrange|move|rebook|update|get that)",
            "(i'll|i will) (have|get) (that|it|this|your \\w+) (done|sorted|sent|ready|placed|booked)",
            "(it|that|your \\w+) will be (done|placed|booked|sent|processed|ready|refilled|changed)",
        ),
        "ru": (
            "(сейчас |я )(оформлю|забронирую|закажу|отправлю|отменю|изменю|запишу|перенесу)",
        ),
    },
}


@cache
def cue_pattern(category: str) -> re.Pattern[str]:
    """One compiled pattern for a category (of `CUES` or `ACTION_CUES`), both languages, whole words."""
    table = CUES.get(category) or ACTION_CUES[category]
    fragments = [f for lang in ("en", "ru") for f in table[lang]]
    return re.compile("|".join(f"(?<!\\w)(?:{f})(?!\\w)" for f in fragments))
