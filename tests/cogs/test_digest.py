"""/game digest (issue 11): everything the log holds since a time or the last digest — actions with their rolls,
turn ends, bonus expiries, free rolls — for a GM's turn post; the GM's digest moves the mark, anyone may read."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from discordkit import START, mention, start_war, table, texts
from storehelpers import T0, console_on, said

from engine.errors import BadInput
from service.digest import parse_since
from service.referee import MAX_DIGEST

NOW = datetime(2030, 1, 3, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("given", "expected"), [
    ("12h", datetime(2030, 1, 3, 0, 0, tzinfo=UTC)),
    ("2d", datetime(2030, 1, 1, 12, 0, tzinfo=UTC)),
    ("90m", datetime(2030, 1, 3, 10, 30, tzinfo=UTC)),
    ("1w", datetime(2029, 12, 27, 12, 0, tzinfo=UTC)),
    ("2030-01-02T06:00", datetime(2030, 1, 2, 6, 0, tzinfo=UTC)),
    ("2030-01-02 06:00", datetime(2030, 1, 2, 6, 0, tzinfo=UTC)),
    ("2030-01-02T08:00+02:00", datetime(2030, 1, 2, 6, 0, tzinfo=UTC)),
])
def test_since_parses_spans_and_times(given, expected):
    assert parse_since(given, NOW) == expected


@pytest.mark.parametrize(("given", "refusal"), [
    ("yesterday", "since is a time like 2026-03-01T12:00 (UTC) or a span like 12h, 2d or 90m, not 'yesterday'"),
    ("400d", "since reaches back at most 366 days, not 400d"),
    ("2030-01-04T00:00", "since is in the future (2030-01-04 00:00 UTC): a digest lists what has happened"),
    ("1" * 41, "since is a time like 2026-03-01T12:00 or a span like 12h or 2d: that is too long"),
])
def test_since_refusals(given, refusal):
    with pytest.raises(BadInput) as caught:
        parse_since(given, NOW)
    assert str(caught.value) == refusal


async def play_two_turns(console, out):
    """Turn 1: two claims, a GM die, an encouraged morale (rolled with it), a free roll; the clock ends turn 1
    at 12:00; turn 2: alice's morale bonus expires 36 hours after it began."""
    clock = console.referee.clock
    for line in ("gm /game start", 'gm /nation claim preset:"Gracchan Republic" player:alice',
                 "gm /nation claim Charon bob"):
        await console.handle(line)
    clock.advance(hours=1)
    await console.handle('gm /gm dice values:"9"')
    await console.handle("alice /propaganda encourage kind:morale")
    console.referee.roller.push(3, 4)
    await console.handle("bob /roll 2d6")
    said(out)


async def test_digest_over_two_turns_lists_the_log_and_moves_the_gms_mark(tmp_path):
    console, store, out = await console_on(tmp_path / "d.db")
    clock = console.referee.clock
    try:
        await play_two_turns(console, out)
        clock.advance(hours=12)  # 13:00: turn 1 ended at 12:00, and is logged at 12:00 (its due time)
        await console.handle("alice /game digest since:2h")  # a player's digest: the mark stays
        assert said(out)[1:] == [
            "Digest since 2030-01-01 11:00 UTC: 1 entry",
            "2030-01-01 12:00 UTC — the clock",
            ("  ⏰ Turn 1 is over (time is up). Turn 2 begins and ends 2030-01-02 00:00 UTC. Last turn — "
            "Gracchan Republic: PROPAGANDA; Charon: nothing."),
        ]
        await console.handle("gm /game digest")  # the GM's first digest: since the game's start
        lines = said(out)
        assert lines[0] == "Digest since 2030-01-01 00:00 UTC: 7 entries"
        assert lines[1:3] == ["2030-01-01 00:00 UTC — gm: /game start",
                              ("  A Nations game begins, refereed by the bot; GM: gm. Turn 1 lasts 12 hours and "
                              "ends 2030-01-01 12:00 UTC.")]
        assert lines[3] == '2030-01-01 00:00 UTC — gm: /nation claim preset:"Gracchan Republic" player:alice'
        assert lines[16:] == [
            "2030-01-01 01:00 UTC — gm: /gm dice values:(1 die entered)",
            "  GM gm entered the next 1 die.",
            "2030-01-01 01:00 UTC — alice: /propaganda encourage kind:morale",
            "  🎲 Gracchan Republic, encourage morale: d10 9 (GM die) vs >= 5: success",
            "  ✨ Gracchan Republic: Morale +3 until 2030-01-02 13:00 UTC.",
            "2030-01-01 01:00 UTC — bob: /roll",
            "  🎲 bob, free roll, not a rule roll: 2d6 (3, 4) = 7",
            "2030-01-01 12:00 UTC — the clock",
            ("  ⏰ Turn 1 is over (time is up). Turn 2 begins and ends 2030-01-02 00:00 UTC. Last turn — "
            "Gracchan Republic: PROPAGANDA; Charon: nothing."),
            "The next /game digest starts from here.",
        ]
        await console.handle("gm /game digest")  # nothing since the mark
        assert said(out) == ["Digest since 2030-01-01 13:00 UTC: nothing has happened since then",
                             "The next /game digest starts from here."]
        clock.set(datetime(2030, 1, 2, 14, 0, tzinfo=UTC))  # turn 2 ended at 00:00, the morale bonus at 13:00
        await console.catch_up()  # what fell due (every console line does this first)
        said(out)
        await console.handle("gm /game digest")
        lines = said(out)
        # each fell due at its own time, and is logged then: turn 2's end, turn 3's, the bonus's
        assert lines[0] == "Digest since 2030-01-01 13:00 UTC: 3 entries"
        heads = [line for line in lines if line.endswith("— the clock")]
        assert heads == [f"2030-01-02 {at} UTC — the clock" for at in ("00:00", "12:00", "13:00")]
        assert lines[2].startswith("  ⏰ Turn 2 is over")
        assert any("morale" in line.lower() and "Gracchan Republic" in line for line in lines[lines.index(heads[2]):])
        assert lines[-1] == "The next /game digest starts from here."
        await console.handle("gm /game digest since:tomorrow")
        assert said(out) == [("error: since is a time like 2026-03-01T12:00 (UTC) or a span like 12h, 2d or 90m, "
                             "not 'tomorrow'")]
        mark, _ = await store.digest_mark(await console.referee.game_id("console"))
        assert mark == datetime(2030, 1, 2, 14, 0, tzinfo=UTC)  # a refused digest moves nothing
    finally:
        await store.close()


async def test_a_long_digest_is_bounded_and_says_where_to_go_on(tmp_path):
    console, store, out = await console_on(tmp_path / "d.db")
    try:
        await console.handle("gm /game start")
        for n in range(MAX_DIGEST + 4):
            console.referee.clock.advance(minutes=1)
            await console.handle('gm /gm dice values:"1"' if n % 2 == 0 else "gm /gm dice clear")
        said(out)
        await console.handle("gm /game digest")
        lines = said(out)
        assert lines[0] == f"Digest since {T0:%Y-%m-%d %H:%M} UTC: {MAX_DIGEST} entries"
        assert lines[-2] == ("5 later actions left out (at most 200 at once): /game digest "
                             "since:2030-01-01T03:19:00 goes on from there.")
        await console.handle("gm /game digest")  # the mark stopped at the last one listed
        assert said(out)[0] == "Digest since 2030-01-01 03:19 UTC: 5 entries"
    finally:
        await store.close()


async def test_discord_digest_in_embeds(tmp_path):
    async with table(tmp_path) as t, t.bot():
        await start_war(t)
        t.dice.push(2, 2)
        await t.run(t.bob, "roll", dice="2d6")
        t.clock.advance(hours=13)
        result = await t.run(t.gm, "game digest")
        text = texts(result.message)
        assert text.startswith("⏰ Turn 1 is over")  # what fell due is applied (and shown) first
        digest = result.message.embeds[-1]
        assert digest["title"] == "🗞 Digest"  # Discord renders no timestamp in a title: the head is line 1
        start = int(START.timestamp())
        assert digest["description"].splitlines()[:2] == [  # the command escaped: Discord shows turn_hours
            f"Digest since <t:{start}:f>: 5 entries", f"<t:{start}:f> — {mention(t.gm)}: /game start turn\\_hours:12.0"]
        assert f"{mention(t.bob)}, free roll, not a rule roll: 2d6 (2, 2) = **4**" in text
        assert "Turn 1 is over" in text
        assert text.endswith("The next /game digest starts from here.")
        again = await t.run(t.alice, "game digest", since="2030-01-01")
        assert "since is in the future" in texts(again.message)
