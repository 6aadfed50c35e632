"""Placeholder: ParamAttr is written here."""


class ParamAttr:
    """Placeholder until the Layer work lands."""
