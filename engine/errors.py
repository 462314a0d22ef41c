"""Typed refusals. Every message says what was refused and why, with the numbers."""


class RefereeError(Exception):
    """Base of every refusal a user may see. Raising one changes nothing."""


class RuleViolation(RefereeError):
    """The rules forbid this action now."""


class NotYourNation(RefereeError):
    """The actor tried to act for a nation that is not theirs."""


class UnknownName(RefereeError):
    """No player, side or piece of that name in this game (each rule set names what it looked for)."""


class UnknownNation(UnknownName):
    """No nation of that name in this game (Nations)."""


class UnknownUnit(RefereeError):
    """No unit with that id."""


class NotGM(RefereeError):
    """Only the game's GM may do this."""


class BadInput(RefereeError):
    """The command's options are malformed."""


class NoGame(RefereeError):
    """There is no game here (or it has ended)."""
