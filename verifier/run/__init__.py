"""A run as one library call: assembling judges and the system under test over a
store, resuming, and the options of ``verifier run``."""
