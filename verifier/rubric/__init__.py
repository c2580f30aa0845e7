"""verifier.rubric."""
