"""God Dice's card file, data/goddice.toml: every fact the rulebook states, exactly; the rulebook's notes on
each character still true with the house values; every house value marked; a malformed file refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from goddicehelpers import Table

from data import read_toml, rules_for
from engine.errors import BadInput, NotGM, RuleViolation
from engine.goddice.actions import LoadCards, Pick
from engine.goddice.cards import Attack, Cards, CharacterCard, RulesError, cards_from_dict, rules_from_dict

RAW = read_toml("goddice.toml")
CARDS: Cards = rules_for("goddice").cards
MAX_LIFE = max(card.life for card in CARDS.characters.values())

# The rulebook's words, field by field: title, God face, life, basic attack needs, and each named attack.
LIVES = {"hero": 75, "cleric": 65, "monk": 55, "bowman": 45, "sage": 35, "assassin": 25}
GODS = {"hero": "H", "cleric": "C", "monk": "M", "bowman": "B", "sage": "S", "assassin": "A"}
BASIC = {"hero": {"B": 1}, "cleric": {"B": 1, "R": 1}, "monk": {"B": 2, "R": 1}, "bowman": {"B": 3},
         "sage": {"R": 4}, "assassin": {"B": 4}}
# attack id → (character, title, what the rulebook says of it: field → value)
NAMED: dict[str, tuple[str, str, dict[str, Any]]] = {
    "critical": ("hero", "Critical", {"multiplier": 2, "special": True}),
    "devotion": ("cleric", "Devotion", {"multiplier": 2, "heal_any": 15, "special": True}),
    "whirlwind": ("monk", "Whirlwind", {"multiplier": 3, "heal_self": 10, "special": True}),
    "acid_arrow": ("bowman", "Acid Arrow", {"bonus": 10, "target": "any"}),
    "double_shot": ("bowman", "Double Shot", {"target": "any2"}),
    "triple_shot": ("bowman", "Triple Shot", {"target": "any3", "special": True}),
    "touch_of_death": ("sage", "Touch of Death", {"multiplier": 3}),
    "lightning_bolt": ("sage", "Lightning Bolt", {"multiplier": 2, "target": "any"}),
    "chain_lightning": ("sage", "Chain Lightning", {"target": "all", "special": True}),
    "backstab": ("assassin", "Backstab", {"multiplier": 4, "target": "any", "special": True}),
    # Wild: the Hero's three choices are named; only Lacerate's value (+15) is given
    "cleave": ("hero", "Cleave", {}),
    "lacerate": ("hero", "Lacerate", {"bonus": 15}),
    "lunge": ("hero", "Lunge", {}),
    # the Monk has one attack with Attack Any; the rulebook does not name it
    "flying_kick": ("monk", "Flying Kick", {"target": "any"}),
}
UNNAMED = {"flying_kick"}  # its name is a house value
DEFAULTS = {f: getattr(Attack("x", "x"), f) for f in ("multiplier", "bonus", "target", "heal_any", "heal_self",
                                                     "special")}
FIELDS = ("needs", "multiplier", "bonus", "target", "heal_any", "heal_self", "special")


def card(kind: str) -> CharacterCard:
    return CARDS.characters[kind]


def attack(kind: str, attack_id: str) -> Attack:
    found = card(kind).attack(attack_id)
    assert found is not None, f"{kind} has no {attack_id}"
    return found


def named(kind: str) -> list[Attack]:
    return [a for a in card(kind).attacks if a.id != "basic"]


def any_attacks(kind: str) -> list[str]:
    return [a.id for a in card(kind).attacks if a.target in ("any", "any2", "any3")]


def max_damage(a: Attack) -> int:
    """The most one target can take from this attack with the nine dice: every die not needed is a 5, every
    arrow at the one target."""
    used = CARDS.wild_os if a.wild else sum(a.needs.values())
    return a.damage(CARDS.attack_count - used, CARDS.damage_per_five) * max(1, a.arrows)


def raw_entries() -> list[tuple[str, str, dict[str, Any]]]:
    """(character, "attacks" or "wild", the raw TOML table) of every named attack and Wild choice."""
    return [(kind, group, entry) for kind, c in RAW["characters"].items() for group in ("attacks", "wild")
            for entry in c.get(group, [])]


# --- the rulebook's facts ------------------------------------------------------------------------


def test_the_dice():
    assert CARDS.attack_count == 9  # 9 attack dice
    assert CARDS.god_faces == ("H", "C", "M", "B", "S", "A")  # 2 God dice
    assert CARDS.wild_os == 5  # it takes five O's to trigger a WILD attack
    assert CARDS.damage_per_five == 5  # two 5 dice = 10 damage
    assert CARDS.attack_faces == ("B", "R", "Y", "O", "5", "5")  # the rulings' default faces [house]
    assert RAW["dice"]["house"] == ["attack_faces"]


def test_the_pool_and_the_draft():
    assert sorted(CARDS.characters) == sorted(LIVES)
    assert CARDS.copies * len(CARDS.characters) == 12  # 12 character cards, 2 of each type
    assert (CARDS.min_players, CARDS.max_players) == (2, 4)
    assert [CARDS.characters_per_player(n) for n in (2, 3, 4)] == [4, 4, 3]
    assert CARDS.campaign_wins == 2  # the first player to win two games wins the campaign


@pytest.mark.parametrize("kind", list(LIVES))
def test_each_character_life_god_face_and_basic_attack(kind):
    c = card(kind)
    assert (c.title, c.life, c.god) == (kind.title(), LIVES[kind], GODS[kind])
    basic = c.attacks[0]
    assert (basic.id, basic.needs, basic.multiplier, basic.bonus, basic.target) == ("basic", BASIC[kind], 1, 0,
                                                                                   "defender")
    assert basic.heal_any == basic.heal_self == 0 and basic.house == ()


@pytest.mark.parametrize("attack_id", list(NAMED))
def test_each_named_attack_as_the_rulebook_says(attack_id):
    kind, title, facts = NAMED[attack_id]
    a = attack(kind, attack_id)
    assert a.title == title
    for field, value in facts.items():
        assert getattr(a, field) == value, (attack_id, field)


def test_every_character_has_its_named_attacks_and_no_others_but_house_wild_choices():
    for kind in LIVES:
        rulebook = {i for i, (k, _, _) in NAMED.items() if k == kind}
        mine = {a.id for a in named(kind)}
        assert rulebook <= mine, kind
        extra = mine - rulebook
        assert all(attack(kind, i).wild and "id" in attack(kind, i).house for i in extra), (kind, extra)


def test_the_special_attacks():
    assert {kind: [a.title for a in named(kind) if a.special] for kind in LIVES} == {
        "hero": ["Critical"], "cleric": ["Devotion"], "monk": ["Whirlwind"], "bowman": ["Triple Shot"],
        "sage": ["Chain Lightning"], "assassin": ["Backstab"]}


def test_the_heros_wild_choices_cleave_lacerate_lunge():
    assert [(a.title, a.wild) for a in named("hero") if a.wild] == [("Cleave", True), ("Lacerate", True),
                                                                    ("Lunge", True)]
    assert attack("hero", "lacerate").bonus == 15 and attack("hero", "lacerate").house == ()
    assert attack("hero", "lacerate").ability() == "+15"


def test_every_wild_choice_needs_five_os_and_nothing_else():
    for kind in LIVES:
        wild = [a for a in named(kind) if a.wild]
        assert len(wild) >= 2, kind
        assert all(a.needs == {} for a in wild)


def test_the_cards_words_for_each_ability():
    assert attack("cleric", "devotion").ability() == "×2, Heal Any 15"
    assert attack("monk", "whirlwind").ability() == "×3, Heal Self 10"
    assert attack("bowman", "acid_arrow").ability() == "+10, Attack Any"
    assert attack("bowman", "double_shot").ability() == "Attack Any 2"
    assert attack("bowman", "triple_shot").ability() == "Attack Any 3"
    assert attack("sage", "chain_lightning").ability() == "Damage to All"
    assert attack("assassin", "backstab").ability() == "×4, Attack Any"
    assert card("hero").attacks[0].ability() == "normal"


# --- the trait notes, true with the house values -------------------------------------------------


def test_the_monk_has_exactly_one_attack_any_attack():
    assert any_attacks("monk") == ["flying_kick"]


def test_the_bowman_has_exactly_four_attack_any_attacks():
    assert len(any_attacks("bowman")) == 4
    assert {"acid_arrow", "double_shot", "triple_shot"} <= set(any_attacks("bowman"))


def test_the_hero_and_the_cleric_damage_only_the_one_in_front_of_them():
    assert any_attacks("hero") == [] and any_attacks("cleric") == []
    assert all(a.target == "defender" for kind in ("hero", "cleric") for a in card(kind).attacks)


def test_whirlwind_at_most_60_and_backstab_at_most_80_with_nine_dice():
    assert max_damage(attack("monk", "whirlwind")) == 60
    assert max_damage(attack("assassin", "backstab")) == 80


def test_only_the_assassin_can_kill_any_character_with_one_blow():
    assert max_damage(attack("assassin", "backstab")) >= MAX_LIFE
    for kind in LIVES:
        if kind != "assassin":
            best = max(card(kind).attacks, key=max_damage)
            assert max_damage(best) < MAX_LIFE, (kind, best.id, max_damage(best))


def test_heal_self_only_on_the_monk_and_the_monk_heals_no_one_else():
    assert {kind for kind in LIVES for a in card(kind).attacks if a.heal_self} == {"monk"}
    assert all(a.heal_any == 0 for a in card("monk").attacks)
    assert attack("monk", "whirlwind").heal_self == 10


def test_the_cleric_heals_any():
    assert attack("cleric", "devotion").heal_any == 15


def test_attack_any_2_and_3_only_on_the_bowman():
    assert {(kind, a.id) for kind in LIVES for a in card(kind).attacks if a.target in ("any2", "any3")} == \
        {("bowman", "double_shot"), ("bowman", "triple_shot")}


def test_damage_to_all_only_on_the_sage():
    assert {(kind, a.id) for kind in LIVES for a in card(kind).attacks if a.target == "all"} == \
        {("sage", "chain_lightning")}


def test_lacerate_is_the_heros_most_damaging_wild_choice():
    wild = [a for a in named("hero") if a.wild]
    for fives in range(0, CARDS.attack_count - CARDS.wild_os + 1):
        damages = {a.id: a.damage(fives, CARDS.damage_per_five) for a in wild}
        assert max(damages, key=damages.get) == "lacerate"
        assert sorted(damages.values())[-1] > sorted(damages.values())[-2]


def test_the_heros_and_clerics_special_attacks_are_weak_x2():
    assert attack("hero", "critical").multiplier == attack("cleric", "devotion").multiplier == 2
    assert max_damage(attack("hero", "critical")) < max_damage(attack("monk", "whirlwind"))


def test_the_harder_basic_attacks_need_more_dice():
    need = {kind: sum(BASIC[kind].values()) for kind in LIVES}
    assert need["hero"] < need["cleric"] < need["monk"] == need["bowman"] < need["sage"] == need["assassin"]


# --- house values --------------------------------------------------------------------------------


def test_every_house_value_is_marked_and_no_rulebook_fact_is():
    for kind, group, entry in raw_entries():
        ident = entry["id"]
        house = set(entry.get("house", []))
        facts = NAMED.get(ident, (kind, None, {}))[2]
        named_here = ident in NAMED and ident not in UNNAMED
        stated = set(facts) | ({"id", "title"} if named_here else set())
        assert not house & stated, f"{kind}.{ident}: rulebook facts marked house: {house & stated}"
        given = {f for f in entry if f not in ("house", "id", "title")}
        unmarked = given - stated - house
        assert not unmarked, f"{kind}.{ident}: house values not marked: {unmarked}"
        if not named_here:  # a name the rulebook does not give
            assert "id" in house, f"{kind}.{ident}: its name is a house value"
        if group == "attacks":
            assert "needs" in house, f"{kind}.{ident}: a named attack's dice needs are not in the rulebook"


def test_the_parsed_house_fields_match_the_file():
    for kind, group, entry in raw_entries():
        assert attack(kind, entry["id"]).house == tuple(entry.get("house", []))
        assert attack(kind, entry["id"]).wild == (group == "wild")


def test_the_house_settings():
    rules = rules_for("goddice")
    assert rules.house.reminder_hours == 12.0
    with pytest.raises(RulesError, match="unknown house settings: turn_hours"):
        rules_from_dict(RAW | {"house": {"turn_hours": 12}})
    with pytest.raises(RulesError, match="reminder_hours must be 0"):
        rules_from_dict(RAW | {"house": {"reminder_hours": 1000.0}})


# --- a malformed card file -----------------------------------------------------------------------


def broken(change) -> dict[str, Any]:
    raw = copy.deepcopy(RAW)
    change(raw)
    return raw


def test_the_shipped_file_loads_as_the_rules_cards():
    assert cards_from_dict(copy.deepcopy(RAW)) == CARDS


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.pop("characters"), "card file: missing 'characters'"),
    (lambda r: r["dice"].pop("wild_os"), "card file: missing 'wild_os'"),
    (lambda r: r["characters"]["hero"].update(life="lots"),
     "characters.hero.life must be a whole number from 1 to 1000, not 'lots'"),
    (lambda r: r["characters"]["hero"].update(life=0), "characters.hero.life must be a whole number from 1 to 1000"),
    (lambda r: r["characters"]["sage"].update(life=True), "characters.sage.life must be a whole number"),
    (lambda r: r["characters"]["hero"].update(armour=3), "characters.hero: unknown field armour"),
    (lambda r: r["characters"]["bowman"]["attacks"][0].update(target="everyone"),
     "characters.bowman.attacks[0].target must be one of defender, any, any2, any3, all, not 'everyone'"),
    (lambda r: r["characters"]["monk"]["attacks"][0].update(range=2),
     "characters.monk.attacks[0]: unknown field range"),
    (lambda r: r["characters"]["hero"]["attacks"][0].update(needs={"5": 2}), "needs: faces are B, R, Y and O"),
    (lambda r: r["characters"]["hero"]["attacks"][0].update(needs={"B": 0}), "needs.B must be a whole number from 1"),
    (lambda r: r["characters"]["hero"]["wild"][0].update(needs={"B": 1}), "a Wild choice needs only the O's"),
    (lambda r: r["characters"]["hero"]["wild"][0].update(id="Lacerate"), "id must be a lower-case name"),
    (lambda r: r["characters"]["hero"]["wild"][0].update(id="lacerate"), "characters.hero: two attacks share an id"),
    (lambda r: r["characters"]["hero"]["wild"][0].update(house=["colour"]), "house lists the fields that are house"),
    (lambda r: r["characters"]["hero"]["attacks"][0].update(multiplier=0), "multiplier must be a whole number from 1"),
    (lambda r: r["characters"]["hero"].update(god="X"), "dice.god_faces must be the characters' God faces, one each"),
    (lambda r: r["dice"].update(attack_faces=["B", "R", "Y", "5", "5", "5"]), "dice.attack_faces must show each of"),
    (lambda r: r["dice"].update(attack_count=0), "dice.attack_count must be a whole number from 1 to 30"),
    (lambda r: r["draft"].update(copies=1), "the pool is too small for 2 players' characters"),
    (lambda r: r["draft"].update(min_players=5), "draft.min_players cannot exceed draft.max_players"),
    (lambda r: r["characters"]["hero"].update(attacks="critical"), "characters.hero.attacks[0]: an attack is a table"),
    (lambda r: r.update(characters={"hero": r["characters"]["hero"]}) or r["dice"].update(god_faces=["H"]),
     "a card file needs at least two characters"),
])
def test_a_malformed_card_file_is_refused(change, message):
    with pytest.raises(RulesError) as info:
        cards_from_dict(broken(change))
    assert message in str(info.value)


def test_a_gm_loads_another_card_file_before_the_draft_only():
    table = Table(["alice", "bob"])
    table.refuse(LoadCards(broken(lambda r: r["characters"]["hero"].update(life=-5))), BadInput,
                 "that card file is not valid: characters.hero.life must be a whole number")
    table.refuse(LoadCards(copy.deepcopy(RAW)), NotGM, "only the GM may load a card file", "alice")
    stronger = broken(lambda r: r["characters"]["hero"].update(life=80))
    table.do(LoadCards(stronger))
    assert table.state.cards.characters["hero"].life == 80
    table.setup({"alice": ["hero", "cleric", "bowman", "sage"], "bob": ["monk", "assassin", "sage", "hero"]})
    assert table.life("alice", "hero") == 80 and table.life("bob", "hero") == 80
    table.refuse(LoadCards(copy.deepcopy(RAW)), RuleViolation, "cards can be changed only before the draft")
    table.assert_replays()


def test_a_card_file_for_two_players_refused_when_three_are_seated():
    table = Table(["alice", "bob", "carol"])
    duel_only = broken(lambda r: r["draft"].update(max_players=2))
    table.refuse(LoadCards(duel_only), RuleViolation, "those cards allow 2 players; 3 are seated")
    table.refuse(Pick("hero"), RuleViolation, "that is not a move now", "alice")
