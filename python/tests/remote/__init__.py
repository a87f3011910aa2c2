"""Tests of the runtime inside real sandboxes (make test-remote; issue 15)."""
