"""Per-language rules: one module per grammar family, each exporting ``SPECS``."""
