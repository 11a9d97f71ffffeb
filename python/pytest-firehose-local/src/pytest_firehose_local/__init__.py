"""pytest-firehose-local: the ``firehose_local`` fixture runs firehose-local for a test."""

from .server import FirehoseLocal, FirehoseLocalError, find_binary

__all__ = ["FirehoseLocal", "FirehoseLocalError", "find_binary"]
__version__ = "0.1.0"
