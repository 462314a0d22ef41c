"""Kept for the importers outside the package: the public names of the God Dice modules, as before the split."""

from engine.goddice.actions import (  # noqa: F401
    Begin,
    ChooseFirst,
    Declare,
    Defend,
    Favor,
    Join,
    LoadCards,
    MakeAttack,
    Pick,
    Resurrect,
    Roll,
    SetLife,
)
from engine.goddice.clock import apply_deadline, deadlines  # noqa: F401
from engine.goddice.common import (  # noqa: F401
    ROLL_TYPES,
    RULESET,
    character_label,
    find_character,
    find_player,
    label,
    legal_attacks,
    qualifying,
    rollable,
    turn_of,
    waiting_for,
)
from engine.goddice.gm import forced_dice  # noqa: F401
from engine.goddice.setup import start_game  # noqa: F401
from engine.goddice.state import DECLARE, DEFEND, FAVOR, OPENING, ROLLING  # noqa: F401  (tests read the phases here)
from engine.goddice.turn import read_god_dice  # noqa: F401
