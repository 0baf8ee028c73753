"""Effects packs: the shipped defaults, every bad-pack error, rule matching and spoken words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.effects.engine import Effects, load_effects
from controller.effects.pack import BadPack, default_pack_path, load_pack, parse_pack
from controller.games import GAME_NAMES

GOOD_RULE = '''
[[rule]]
name = "ghost"
when = "skull_hit"
cues = [{ sound = "ghost" }]
'''


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_default_pack_loads(game: str) -> None:
    pack = load_pack(default_pack_path(game))
    assert pack.rules and all(r.cues for r in pack.rules)


# The moments issue 17 names, per game: (event type, data that must match) -> a cue kind that plays
MOMENTS = {
    "terror": [("rolled", {"seat": 0, "number": 3, "symbol": "wolf"}),
               ("tomb_moved", {"seat": 0, "tomb": "wolf", "from": "middle", "to": "end_a"}),
               ("pawn_fell", {"seat": 1, "pawn": 0, "label": "girl", "cell": [1, 1]}),
               ("monster_placed", {"seat": 1, "pawn": 1, "label": "boy", "card": "monster-blob", "by": 0}),
               ("cured", {"seat": 1, "pawn": 1, "label": "boy", "by": "potion"}),
               ("skull_attempt", {"seat": 0, "pawn": 0, "label": "girl"}),
               ("skull_hit", {"seat": 0, "pawn": 0, "label": "girl"}),
               # "Your pawn is paralyzed!" (Skeleton Hand space), and a Magic Ring stolen by a card
               ("paralysed", {"seat": 1, "pawn": 0, "label": "girl"}),
               ("ring_stolen", {"from": {"seat": 1, "label": "boy"}, "to": {"seat": 0, "label": "girl"}}),
               ("game_won", {"seats": [0], "reason": "ghost"})],
    "superstition": [("peg_pulled", {"player": 0, "trap": "ladder", "peg": "a"}),
                     ("challenge_resolved", {"player": 0, "trap": "mirror", "peg": "b", "zapped": True}),
                     ("challenge_resolved", {"player": 0, "trap": "grave1", "peg": "a", "zapped": False}),
                     ("whammy_placed", {"player": 1, "space": "b12", "whammy": "the_raven", "name": "The Raven"}),
                     ("moved", {"player": 1, "from": "s3", "to": "s7", "charm": "wishbone"}),
                     # over the Wizard's Tomb with a Whammy and a Charm, to the other Grave
                     ("jumped_tomb", {"player": 1, "from": "s4", "to": "s9"}),
                     ("won", {"player": 1})],
    "dogs": [("borked", {"seat": 0, "token": "spook", "id": 0, "x": 1, "y": 1}),
             ("attacked", {"seat": 0, "spook": 2, "kind": "skeleton", "roll": 5, "captured": True}),
             ("haunted", {"spook": 0, "kind": "ghoul", "dogs": [0], "removed": {}}),
             ("spook_placed", {"id": 1, "kind": "skeleton", "x": 0, "y": 1}),
             # a Wrestle: both dogs roll, the higher takes a snack
             ("wrestled", {"seat": 0, "other": 1, "rolls": [5, 2], "winner": 0, "snack": "bone"}),
             ("game_over", {"scores": [5, 3], "winners": [0], "friends": False})],
}
COMMON = [("turn_started", {"seat": 1, "player": 1}), ("mismatch", {"code": "x", "message": "The Wolf tomb moved."}),
          ("mismatch_cleared", {"code": "x", "message": "The board matches the game again."})]
ID_OR_COORD = re.compile(r"\b[bs]\d+\b|\(-?\d+, -?\d+\)|tomb\.|seat \d|_")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_default_pack_covers_the_main_moments_in_plain_words(game: str) -> None:
    effects, error = load_effects(game, None)
    assert error is None
    players = ["Ann", "Bo"]
    for event_type, data in MOMENTS[game] + COMMON:
        played = effects.cues_for({"seq": 1, "type": event_type, "data": data}, players)
        assert played is not None and played.cues, f"{game}: nothing plays for {event_type}"
        for cue in played.cues:
            if cue["kind"] == "say":
                assert "{" not in cue["value"] and not ID_OR_COORD.search(cue["value"]), cue["value"]


def test_spoken_lines_name_things_as_players_do() -> None:
    effects, _ = load_effects("terror", None)
    played = effects.cues_for({"type": "pawn_fell", "data": {"seat": 1, "pawn": 0, "label": "girl"}}, ["Ann", "Bo"])
    assert played is not None
    assert {"kind": "say", "value": "Bo's girl fell into a pit!"} in played.cues
    vib = [c for c in played.cues if c["kind"] == "vibrate"]
    assert vib == [{"kind": "vibrate", "value": "player", "ms": [400], "seat": 1}]
    sup, _ = load_effects("superstition", None)
    played = sup.cues_for({"type": "challenge_resolved", "data": {"player": 0, "trap": "ladder", "zapped": True}},
                          ["Ann", "Bo"])
    assert played is not None and "Zapped! Ann is caught by the Ladder." in [c["value"] for c in played.cues]
    assert played.rules == ("zapped",)
    dogs, _ = load_effects("dogs", None)
    played = dogs.cues_for({"type": "game_over", "data": {"scores": [5, 7], "winners": [1]}}, ["Ann", "Bo"])
    assert played is not None and "Final scores: Ann 5 and Bo 7. Bo won!" in [c["value"] for c in played.cues]


def test_the_cues_of_an_event_say_whose_it_is() -> None:
    """A phone at a table with a speaker plays only its own player's cues: the message names the seat."""
    effects, _ = load_effects("terror", None)
    played = effects.cues_for({"seq": 4, "type": "pawn_fell", "data": {"seat": 1, "pawn": 0, "label": "girl"}},
                              ["Ann", "Bo"])
    assert played is not None and played.seat == 1 and played.to_json("t1")["seat"] == 1
    sup, _ = load_effects("superstition", None)
    played = sup.cues_for({"type": "challenge_resolved", "data": {"player": 0, "trap": "ladder", "zapped": True}},
                          ["Ann", "Bo"])
    assert played is not None and played.seat == 0
    dogs, _ = load_effects("dogs", None)
    played = dogs.cues_for({"type": "game_over", "data": {"scores": [5, 7], "winners": [1]}}, ["Ann", "Bo"])
    assert played is not None and played.to_json("t1")["seat"] is None  # everyone's news


def test_a_line_missing_a_word_is_not_spoken_but_the_rest_plays() -> None:
    pack = parse_pack('''
[[rule]]
name = "fall"
when = "pawn_fell"
cues = [{ say = "{pawn} fell" }, { sound = "fall" }]
''')
    played = Effects("terror", pack).cues_for({"type": "pawn_fell", "data": {}}, ["Ann"])
    assert played is not None and [c["kind"] for c in played.cues] == ["sound"]


def test_where_matches_fields_and_presence() -> None:
    pack = parse_pack('''
[[rule]]
name = "zapped"
when = "challenge_resolved"
where = { zapped = true }
cues = [{ sound = "zap" }]

[[rule]]
name = "charm"
when = "moved"
where = { charm = "*" }
cues = [{ sound = "charm" }]
''')
    assert [r.name for r in pack.rules_for("challenge_resolved", {"zapped": True})] == ["zapped"]
    assert pack.rules_for("challenge_resolved", {"zapped": False}) == []
    assert pack.rules_for("moved", {"charm": None}) == [] and pack.rules_for("moved", {}) == []
    assert [r.name for r in pack.rules_for("moved", {"charm": "wishbone"})] == ["charm"]


BAD = [
    ("rule = 3", "'rule' must be an array of tables"),
    ("[[rule]]\nwhen = 'x'\ncues = [{ sound = 'roll' }]", "rule 1: name: must be a short text"),
    ("[oops]\n", "unknown top-level key 'oops'"),
    ("[[rule]]\nname = 'a'\nwhen = 'Bad Type'\ncues = [{ sound = 'roll' }]", "rule 1 ('a'): when:"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = []", "rule 1 ('a'): cues: must be a non-empty array"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncolour = 1\ncues = [{ sound = 'roll' }]", "unknown key 'colour'"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\nwhere = 3\ncues = [{ sound = 'roll' }]", "where: must be a table"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\nwhere = { a = [1] }\ncues = [{ sound = 'roll' }]", "where.a:"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ sound = 'moo' }]", "cues[0].sound: 'moo' is not one of"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ sound = 'roll', say = 'hi' }]", "cues[0]: must have exactly one"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ say = 'hi {tomb_id}' }]", "cues[0].say: unknown word {tomb_id}"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ say = 'hi {' }]", "cues[0].say:"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ light = 'lamp', pattern = 'strobe' }]", "cues[0].pattern: 'strobe'"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ light = 'lamp', ms = 0 }]", "cues[0].ms: must be a whole number"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ light = 'Lamp 1' }]", "cues[0].light: must be an output name"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ light = 'lamp', colour = 'red' }]", "light: unknown key 'colour'"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ vibrate = 'everyone' }]", "cues[0].vibrate: 'everyone'"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ vibrate = 'all', ms = [] }]", "cues[0].ms: one to ten"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ animate = 'explode' }]", "cues[0].animate: 'explode'"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ sound = 'roll', volume = 2 }]", "cues[0].volume: must be a number"),
    ("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [3]", "cues[0]: must be a table"),
    (GOOD_RULE + GOOD_RULE, "rule 2 ('ghost'): name: used by an earlier rule"),
    ("[[rule]\n", "not valid TOML"),
]


@pytest.mark.parametrize(("text", "words"), BAD)
def test_a_bad_pack_is_one_line_naming_the_rule_and_key(text: str, words: str) -> None:
    with pytest.raises(BadPack) as err:
        parse_pack(text, "mine.toml")
    message = str(err.value)
    assert words in message and "\n" not in message and message.startswith("effects pack mine.toml")


def test_a_bad_owner_pack_falls_back_to_the_defaults_with_the_error(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text("[[rule]]\nname = 'a'\nwhen = 'x'\ncues = [{ sound = 'moo' }]\n", encoding="utf-8")
    effects, error = load_effects("terror", mine)
    assert error is not None and "rule 1 ('a')" in error and "sound" in error
    assert effects.pack.source.endswith("terror.toml")
    effects, error = load_effects("terror", tmp_path / "missing.toml")
    assert error is not None and "missing.toml" in error and effects.pack.rules


def test_an_owner_pack_replaces_the_defaults(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text(GOOD_RULE, encoding="utf-8")
    effects, error = load_effects("terror", mine)
    assert error is None and [r.name for r in effects.pack.rules] == ["ghost"]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_default_rules_name_events_the_engine_really_emits(game: str) -> None:
    """A rule on an event type that never happens would stay silent: every default `when` is emitted."""
    import controller.games

    package = Path(controller.games.__file__).parent / game
    source = "\n".join(p.read_text(encoding="utf-8") for p in package.glob("*.py"))
    emitted = set(re.findall(r'Event\(\s*"([a-z_]+)"', source)) | {"mismatch", "mismatch_cleared"}
    whens = {r.when for r in load_pack(default_pack_path(game)).rules}
    assert whens <= emitted, whens - emitted
