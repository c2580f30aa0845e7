"""The empirical prompt evaluator: a prompt run on training examples, scored 50% on
what it produced, 30% on its structure and 20% on an adversarial critique, with every
figure computed in code."""
