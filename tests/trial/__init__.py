"""Tests of verifier.trial: judge trials (`verifier judge trial`)."""
