"""Calling models: requests, providers and their registry, limits and retries, the reply
cache and recordings, sampling, the stability triple and the template split.

Judges (``verifier.judge``) and a prompt run as the system under test
(``verifier.sut``) both call models through this layer; it imports neither of them.

No name here is public: import ``CallLimits`` from ``verifier``.
"""

__all__: list[str] = []
