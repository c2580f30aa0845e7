"""Comparative claims, paired statistics and judge calibration."""
