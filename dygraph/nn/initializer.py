"""Placeholder: parameter initializers are written here."""
