"""Extractors turn a source's text into candidate decisions, claims and rejected alternatives."""
