"""CLI command groups; each module registers its own subcommands."""
