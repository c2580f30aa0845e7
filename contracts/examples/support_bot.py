"""A small, deterministic support bot: the system under test of support-bot.yaml.

It answers from a tiny handbook and cites the section it used. ``answer`` is the
current version; ``answer_brief`` is a candidate that shortens answers and drops the
citation when the question is a yes/no one. Run it as a command too:
``echo "How long do refunds take?" | python3 support_bot.py``.
"""

from __future__ import annotations

import sys

HANDBOOK = {
    "refund": ("Refunds reach your card within 5 business days.", "Refunds"),
    "password": ("Reset your password from the sign-in page, under 'Forgot password'.", "Accounts"),
    "shipping": ("Orders ship within 2 days; tracking arrives by email.", "Shipping"),
    "cancel": ("You can cancel an order until it ships, from your order page.", "Orders"),
}


def _entry(question: str) -> tuple[str, str] | None:
    lowered = question.lower()
    return next((entry for key, entry in HANDBOOK.items() if key in lowered), None)


def answer(question: str) -> str:
    """Answers from the handbook, citing the section; says so when it does not know."""
    entry = _entry(question)
    if entry is None:
        return "I could not find this in the handbook; a person will follow up. [source: Escalation]"
    text, section = entry
    return f"{text} [source: {section}]"


def answer_brief(question: str) -> str:
    """The candidate: shorter, and uncited for yes/no questions."""
    entry = _entry(question)
    if entry is None:
        return "Not in the handbook. [source: Escalation]"
    text, section = entry
    if question.lower().startswith(("can ", "do ", "is ")):
        return text.split(";")[0].split(",")[0] + "."
    return f"{text} [source: {section}]"


if __name__ == "__main__":
    print(answer(sys.stdin.read().strip()))
