"""Interop with other evaluation tools.

``promptfoo_artifact`` reduces one surfaced promptfoo assertion result to a small,
fixed artifact; ``promptfoo_import`` records it as an ``imported`` gap row;
``promptfoo_export`` writes stored gap rows as promptfoo GradingResult objects; and
``promptfoo_assert`` lets a promptfoo suite grade outputs with a verifier contract.
Nothing here is imported by ``verifier`` itself unless a command asks for it.

No name here is public: promptfoo loads ``get_assert`` from
``verifier.integrations.promptfoo_assert``; the rest runs through ``verifier`` commands.
"""

__all__: list[str] = []
