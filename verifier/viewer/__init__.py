"""The results viewer: server-rendered pages over a gap store (``verifier view``, and
``/view`` under ``verifier serve``). See :mod:`verifier.viewer.app` for how pages join it."""
