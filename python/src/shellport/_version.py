"""The package version; the bundled native files must carry the same one."""

__version__ = "0.1.0"
