"""tollgate: usage metering and billing."""

__version__ = "1.1.0"
