"""God Dice on Discord: the suggestions of its commands' options, the move controls that answer each move and the
clock's reminders with them, the table's status. `ADAPTER` is what the shared cogs use of it (`cogs.frontends`); the
registry names this package (`RuleSet.discord`)."""

from cogs.frontends import DiscordAdapter
from cogs.goddice import clock, complete, controls, reminders
from cogs.util import answer_events

ADAPTER = DiscordAdapter(
    dynamic_items=controls.DYNAMIC_ITEMS,
    clock_kinds=frozenset({"player_reminded"}),
    answer=controls.answer_move,
    announce=clock.announce,
    after_change=clock.after_change,
    nudges=reminders.nudges,
    whose_autocomplete=complete.player_autocomplete,
    completers=complete.COMPLETERS,
    answers={"gm cards": answer_events},  # a card file loaded: before the draft, no move waits
)
