"""Godsfire on Discord: the suggestions of its commands' options, its embeds (charts, the system sheet, the table,
the phases and the Social Interphase), the controls of what the game waits for (a go's Move, Done and Pass; a
transit's Attack, Block… and Allow; a loss choice; a retreat) on each answer and the clock's announcements, and its
report's signature (the turn and its phase). `ADAPTER` is what the shared cogs use of it (`cogs.frontends`); the
registry names this package (`RuleSet.discord`)."""

from cogs.frontends import DiscordAdapter
from cogs.godsfire import buttons, complete, reminders, render

ADAPTER = DiscordAdapter(
    dynamic_items=buttons.DYNAMIC_ITEMS,
    footer=render.footer,
    answer=buttons.answer,
    announce=buttons.announce,
    after_change=buttons.after_change,
    nudges=reminders.nudges,
    whose_autocomplete=complete.player_autocomplete,
    completers=complete.COMPLETERS,
    answers={"godsfire system add": buttons.answer_with_sheet, "godsfire system conquer": buttons.answer_with_sheet},
)
