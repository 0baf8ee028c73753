"""The new-game form's house rules are the engines' own options, with the engines' defaults."""

from __future__ import annotations

import pytest

from controller.games import GAME_NAMES, get_game
from controller.games.base import IllegalAction
from web_panel.commands import PanelCommandError, validate
from web_panel.house_rules import HOUSE_RULES


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_rule_is_an_engine_option_and_its_default_plays_as_the_rulebook(game: str) -> None:
    cls = get_game(game)
    players = ["Ann", "Bo"]
    plain = cls.new(players, 7).public_view()
    for rule in HOUSE_RULES[game]:
        assert rule.help and rule.label, rule.key
        # The default given explicitly starts the same game as no option at all.
        assert cls.new(players, 7, {rule.key: rule.default}).public_view() == plain, rule.key
        values = [v for v, _ in rule.choices] if rule.kind == "choice" else \
            [True, False] if rule.kind == "bool" else [rule.low, rule.high]
        for value in values:
            cls.new(players, 7, {rule.key: value})  # every value the form offers, the engine takes
    assert set(HOUSE_RULES) == set(GAME_NAMES)


def test_a_house_rule_out_of_range_is_refused_before_signing() -> None:
    with pytest.raises(PanelCommandError, match="Attack succeeds on"):
        validate("new_game", {"game": "dogs", "players": ["Ann", "Bo"], "options": {"attack_target": 9}})
    with pytest.raises(IllegalAction):
        get_game("dogs").new(["Ann", "Bo"], 1, {"attack_target": 9})  # the engine agrees
    assert validate("new_game", {"game": "dogs", "players": ["Ann", "Bo"],
                                 "options": {"attack_target": 4}})["options"] == {"attack_target": 4}
