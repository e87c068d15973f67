"""Tag queries (``<language>.scm``), shipped as package data and read by ``languages``."""
