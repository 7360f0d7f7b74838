"""The engine's errors: every refusal is one of these, with a message a player understands."""


class EngineError(ValueError):
    """Base class of every error the rules engine raises on purpose."""


class InvalidAction(EngineError):
    """The action cannot be read: unknown kind, missing or malformed field."""


class IllegalAction(EngineError):
    """The action is well formed but the rules do not allow it now."""


class AmbiguousAction(EngineError):
    """The action could mean more than one thing; the message lists the readings."""


class DataError(EngineError):
    """Game data (board JSON, a stored log) is inconsistent."""
