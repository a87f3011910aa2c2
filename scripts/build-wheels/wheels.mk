# Wheel targets (scripts/build-wheels). Filled in by the wheels work.
.PHONY: wheels
wheels:
	@echo "wheels: not built yet"
