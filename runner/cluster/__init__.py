"""Workshops on real clusters: preflight, kubeconfig isolation and cleanup of what they create."""
from .guard import ClusterGuard, ClusterOptions, parallel_sweep
from .preflight import Shortfall, shortfall

__all__ = ["ClusterGuard", "ClusterOptions", "parallel_sweep", "Shortfall", "shortfall"]
