"""Godsfire on Discord: the suggestions of its commands' options, its embeds (charts, the system sheet, the table,
the phases and the Social Interphase), the controls of what the game waits for (a go's Move, Done and Pass; a
transit's Attack, Block… and Allow; a loss choice; a retreat) on each answer and the clock's announcements, and its
report's signature (the turn and its phase). `ADAPTER` is what the shared cogs use of it (`cogs.frontends`); the
registry names this package (`RuleSet.discord`)."""

from cogs.frontends import DiscordAdapter
from cogs.godsfire import complete, controls, reminders, render

ADAPTER = DiscordAdapter(
    dynamic_items=controls.DYNAMIC_ITEMS,
    footer=render.footer,
    answer=controls.answer,
    announce=controls.announce,
    after_change=controls.after_change,
    nudges=reminders.nudges,
    whose_autocomplete=complete.player_autocomplete,
    completers=complete.COMPLETERS,
    answers={"godsfire system add": controls.answer_with_sheet, "godsfire system conquer": controls.answer_with_sheet},
)
