"""Rich renderables (data in, segments out) shared by `print` and the TUI."""
