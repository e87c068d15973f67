"""memlode: persistent, local-first memory for AI coding assistants."""

__version__ = "0.1.0"

__all__ = ["__version__"]
