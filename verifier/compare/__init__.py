"""Comparative claims, paired statistics and judge calibration.

No name here is public: import ``compare_runs``, ``RunComparison``, ``calibrate_run``,
``CalibrationReport`` and ``read_labels`` from ``verifier``.
"""

__all__: list[str] = []
