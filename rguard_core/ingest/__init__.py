"""Ingest: read a repository's history (GitHub REST, snapshot folder, local git) into its graph."""
