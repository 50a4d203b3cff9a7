"""The read side: what the pages, the CLI and the MCP server show of a repository's graph (see README.md)."""
