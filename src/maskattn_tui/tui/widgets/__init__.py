"""Thin widgets: each renders the app's PlayerState (bound with data_bind)
and never assigns it."""
