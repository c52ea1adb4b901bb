"""Workshops on real clusters: preflight, kubeconfig isolation and cleanup of what they create."""
