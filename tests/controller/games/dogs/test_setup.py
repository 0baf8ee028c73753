"""Graveyard Dogs: tiles, setup and tile placement. Quotes are from the rulebook
(../shared/rules/graveyard-dogs.txt)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from controller.games import Action, BadGameData, IllegalAction, get_game
from controller.games.dogs import DogsGame
from controller.games.dogs.tiles import (
    DEFAULT_TILES_PATH,
    dog_start_squares,
    load_tiles,
)
from tests.controller.games.dogs.support import lab, setup_done

DOCS = Path(__file__).resolve().parents[4] / "docs" / "rules" / "dogs.md"


def game_with_first_tile(tile_id: str, players: int = 2) -> DogsGame:
    for seed in range(500):
        game = DogsGame.new([f"P{i}" for i in range(players)], seed)
        if game.st.drawn == tile_id:
            return game
    raise AssertionError(f"no seed draws {tile_id} first")


def test_registered_as_dogs() -> None:
    assert get_game("dogs") is DogsGame
    assert (DogsGame.min_players, DogsGame.max_players) == (2, 4)


def test_default_tiles_are_sixteen_squares_with_one_jack_each() -> None:
    """CONTENTS: "16x Tile Cards (The Cards With Squares)"; a Snack Cube goes on each
    tile's Jack-O-Lantern, and there are 16 Snack Cubes and 8 Spook Tokens."""
    tiles = load_tiles()
    assert len(tiles) == 16
    for tile in tiles:
        cells = "".join(tile.grid)
        assert len(tile.grid) == 3 and all(len(row) == 3 for row in tile.grid)
        assert cells.count("J") == 1
        assert cells.count("G") <= 1
    assert sum("".join(t.grid).count("G") for t in tiles) == 8


def test_every_tile_is_drawn_in_the_docs() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for tile in load_tiles():
        assert tile.id in text
        assert "\n".join(f"|{' '.join(row)}|" for row in tile.grid) in text


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["tiles"].pop(), "16 tiles"),
        (lambda d: d.update(size=1), "'size'"),
        (lambda d: d["tiles"][3].update(grid=["J..", "....", "..."]), r"tile 4 \('T04'\): row 2"),
        (lambda d: d["tiles"][4].update(grid=["...", ".J.", "..X"]), r"tile 5 \('T05'\).*unknown square"),
        (lambda d: d["tiles"][0].update(grid=["J..", "...", "..J"]), r"tile 1 \('T01'\).*exactly one Jack"),
        (lambda d: d["tiles"][0].update(grid=["...", "...", "..."]), r"tile 1 \('T01'\).*exactly one Jack"),
        (lambda d: d["tiles"][0].update(grid=["JG.", "..G", "..."]), r"tile 1.*2 Gravestones"),
        (lambda d: d["tiles"][1].update(id="T01"), r"tile 2 \('T01'\): duplicate id"),
        (lambda d: d["tiles"][2].update(grid=["G.G", ".J.", "G.G"]), r"tile 3 \('T03'\): has 4 Gravestones"),
        (lambda d: [t.update(grid=["G..", ".J.", "..."]) for t in d["tiles"][:9]],
         "13 Gravestones but only 8 spook tokens"),
        (lambda d: d["tiles"][5].update(colour="red"), r"tile 6 \('T06'\): unknown field"),
        (lambda d: d["tiles"][6].pop("id"), r"tile 7: 'id'"),
    ],
)
def test_bad_tiles_files_name_the_bad_entry(tmp_path: Path, mutate, message: str) -> None:
    data = json.loads(DEFAULT_TILES_PATH.read_text())
    mutate(data)
    path = tmp_path / "tiles.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BadGameData, match=message):
        DogsGame.new(["A", "B"], 1, {"tiles": str(path)})


def test_a_tile_with_no_dog_square_is_refused(tmp_path: Path) -> None:
    data = json.loads(DEFAULT_TILES_PATH.read_text())
    data["size"] = 2
    for tile in data["tiles"]:
        tile["grid"] = ["J.", ".G"]
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BadGameData, match="tile 1 .*no square where a dog may start"):
        load_tiles(path)


@pytest.mark.parametrize("content, message",
                         [(None, "cannot be read"), ("{oops", "not valid JSON"), ("[]", "JSON object")])
def test_unreadable_tiles_files(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "t.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(BadGameData, match=message):
        load_tiles(path)


def test_owners_can_supply_their_own_tiles(tmp_path: Path) -> None:
    data = json.loads(DEFAULT_TILES_PATH.read_text())
    data["size"] = 4
    for i, tile in enumerate(data["tiles"]):
        tile["grid"] = ["J...", "....", "..." + ("G" if i < 8 else "."), "...."]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    game = DogsGame.new(["A", "B"], 3, {"tiles": str(path)})
    game.apply(Action("place_tile", 0, {"x": 0, "y": 0, "rotation": 0}))
    assert len(game.geo.features) == 16
    assert game.public_view()["tile_size"] == 4


def test_tiles_may_be_given_inline_and_are_checked_the_same() -> None:
    data = json.loads(DEFAULT_TILES_PATH.read_text())
    data["tiles"][0]["grid"] = ["...", ".J.", "..."]
    game = DogsGame.new(["A", "B"], 3, {"tiles": data})
    assert game.st.tile("T01").grid == ("...", ".J.", "...")
    assert DogsGame.replay(["A", "B"], 3, [], {"tiles": data}) == game
    assert DogsGame.from_json(json.loads(json.dumps(game.to_json()))) == game
    data["tiles"][1]["grid"] = ["...", "...", "..."]
    with pytest.raises(BadGameData, match=r"option 'tiles': tile 2 \('T02'\).*exactly one Jack"):
        DogsGame.new(["A", "B"], 3, {"tiles": data})


def test_first_tile_goes_in_the_middle_and_may_be_rotated() -> None:
    """"draws the top Tile Card and places it in the middle of the play area";
    "Tiles may be rotated as the players see fit." """
    game = DogsGame.new(["A", "B"], 5)
    acts = game.legal_actions()
    assert {(a.params["x"], a.params["y"]) for a in acts} == {(0, 0)}
    assert sorted(a.params["rotation"] for a in acts) == [0, 1, 2, 3]
    before = game.to_json()
    with pytest.raises(IllegalAction, match="middle"):
        game.apply(Action("place_tile", 0, {"x": 3, "y": 0, "rotation": 0}))
    assert game.to_json() == before


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_rotation_turns_the_tile_clockwise(rotation: int) -> None:
    game = game_with_first_tile("T02")  # J top-left, G bottom-right
    game.apply(Action("place_tile", 0, {"x": 0, "y": 0, "rotation": rotation}))
    jack = [(0, 0), (2, 0), (2, 2), (0, 2)][rotation]
    grave = [(2, 2), (0, 2), (0, 0), (2, 0)][rotation]
    assert game.geo.features[jack] == "J" and game.geo.features[grave] == "G"


def test_snack_from_the_tin_on_the_jack_and_spook_face_up_on_the_grave() -> None:
    """"draw a Snack Cube from the tin at random and place it on the Jack-O-Lantern space.
    If there is a Gravestone space, they place a randomly chosen Spook Token on it, turning it face-up." """
    game = game_with_first_tile("T02")
    tin_before, pool_before = list(game.st.tin), list(game.st.pool)
    events = game.apply(Action("place_tile", 0, {"x": 0, "y": 0, "rotation": 0}))
    assert game.st.board_snacks == {(0, 0): [tin_before[0]]}
    assert game.st.tin == tin_before[1:]
    assert [(s.kind, s.pos) for s in game.st.spooks] == [(pool_before[0], (2, 2))]
    view = game.public_view()
    assert view["spooks"] == [{"id": 0, "kind": pool_before[0], "face_up": True, "x": 2, "y": 2, "snacks": []}]
    assert view["tin_count"] == 15 and view["face_down_spooks"] == 7
    assert [e.type for e in events] == ["tile_placed", "snack_placed", "spook_placed"]


def test_dog_starts_away_from_the_jack_and_off_the_grave() -> None:
    """"place their Dog Token on a space of the Tile Card that is not adjacent to the
    Jack-O-Lantern space, nor upon a Gravestone space. (Diagonals are not adjacent.)" """
    game = game_with_first_tile("T06")  # G top-left, J in the centre
    game.apply(Action("place_tile", 0, {"x": 0, "y": 0, "rotation": 0}))
    allowed = {(a.params["x"], a.params["y"]) for a in game.legal_actions()}
    assert allowed == {(2, 0), (0, 2), (2, 2)}  # the diagonal corners; (0, 0) is the Gravestone
    for bad in [(1, 0), (0, 1), (1, 1), (0, 0)]:
        with pytest.raises(IllegalAction, match="not such a square"):
            game.apply(Action("place_dog", 0, {"x": bad[0], "y": bad[1]}))
    game.apply(Action("place_dog", 0, {"x": 2, "y": 2}))
    assert game.st.dogs[0] == (2, 2)
    assert dog_start_squares(("J..", "...", "...")) == [(2, 0), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2)]


def test_setup_goes_clockwise_from_the_spookiest_player() -> None:
    """"Whichever player the group deems the spookiest draws the top Tile Card ...
    Players then repeat the process in a clockwise manner"; "The spookiest player goes first"."""
    game = DogsGame.new(["A", "B", "C"], 2, {"first_player": 1})
    order = []
    while game.st.phase in ("setup_tile", "setup_dog"):
        action = game.legal_actions()[0]
        if action.kind == "place_tile":
            order.append(action.player)
        game.apply(action)
    assert order == [1, 2, 0]
    assert game.current_player == 1 and game.st.phase == "place_tile"
    assert all(pos is not None for pos in game.st.dogs)


def test_a_new_tile_must_line_up_along_at_least_two_squares() -> None:
    """"making sure that at least two squares on their Tile Cards line up with the
    already placed Tile Cards so as to form a continuous game board" """
    game = DogsGame.new(["A", "B"], 4)
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    spots = {(a.params["x"], a.params["y"]) for a in game.legal_actions()}
    assert (3, 0) in spots and (3, 1) in spots and (3, -1) in spots  # 3, 2 and 2 squares meet
    assert (3, 2) not in spots and (3, -2) not in spots  # only one square meets
    assert (3, 3) not in spots  # corners touch, no square lines up
    assert (1, 1) not in spots  # overlaps
    before = game.to_json()
    for x, y in [(3, 2), (3, 3), (1, 1), (7, 0)]:
        with pytest.raises(IllegalAction, match="at least 2 squares"):
            game.apply(Action("place_tile", 1, {"x": x, "y": y, "rotation": 0}))
    assert game.to_json() == before
    game.apply(Action("place_tile", 1, {"x": 3, "y": 1, "rotation": 0}))
    assert (3, 1) in game.geo.features and (5, 3) in game.geo.features


def test_min_contact_option() -> None:
    game = DogsGame.new(["A", "B"], 4, {"min_contact": 3})
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])
    spots = {(a.params["x"], a.params["y"]) for a in game.legal_actions()}
    assert spots == {(3, 0), (-3, 0), (0, 3), (0, -3)}
    with pytest.raises(IllegalAction, match="min_contact"):
        DogsGame.new(["A", "B"], 4, {"min_contact": 4})


def test_placements_match_a_brute_force_search() -> None:
    game = setup_done(4, seed=9)
    placements = {(a.params["x"], a.params["y"]) for a in game.legal_actions()}
    squares = game.geo.features
    brute = set()
    xs, ys = [x for x, _ in squares], [y for _, y in squares]
    for x in range(min(xs) - 4, max(xs) + 2):
        for y in range(min(ys) - 4, max(ys) + 2):
            foot = {(x + dx, y + dy) for dx in range(3) for dy in range(3)}
            if foot & squares.keys():
                continue
            touching = sum((sx + dx, sy + dy) in squares for sx, sy in foot for dx, dy in ((1, 0), (-1, 0), (0, 1),
                                                                                           (0, -1)))
            if touching >= 2:
                brute.add((x, y))
    assert placements == brute and placements


def test_dog_colours_and_snack_cubes() -> None:
    """"Each player takes a Dog Card (either chosen or distributed at random)";
    16 Snack Cubes, in the dogs' colours (issue 3)."""
    game = DogsGame.new(["A", "B", "C"], 8)
    assert game.st.colours == ["red", "blue", "green"]
    assert Counter(game.st.tin) == Counter({"red": 4, "blue": 4, "green": 4, "yellow": 4})
    chosen = DogsGame.new(["A", "B"], 8, {"colours": ["yellow", "red"]})
    assert chosen.st.colours == ["yellow", "red"]
    shuffled = {tuple(DogsGame.new(["A", "B"], seed, {"colours": "random"}).st.colours) for seed in range(30)}
    assert len(shuffled) > 3
    assert DogsGame.new(["A", "B"], 3, {"colours": "random"}).st.colours == DogsGame.new(
        ["A", "B"], 3, {"colours": "random"}).st.colours


@pytest.mark.parametrize(
    "players, options, message",
    [
        (["A"], None, "2 to 4 players"),
        (["A", "B", "C", "D", "E"], None, "2 to 4 players"),
        (["A", ""], None, "player 1"),
        (["A", "B"], {"speed": 3}, "unknown option.*speed"),
        (["A", "B"], {"first_player": 2}, "'first_player'"),
        (["A", "B"], {"colours": ["red", "red"]}, "'colours'"),
        (["A", "B"], {"colours": ["red", "pink"]}, "'colours'"),
        (["A", "B"], {"colours": "any"}, "'colours'"),
        (["A", "B"], {"attack_target": 7}, "'attack_target'"),
        (["A", "B"], {"bork_own_dog": "yes"}, "'bork_own_dog'"),
        (["A", "B"], {"skeleton_haunt": "all"}, "'skeleton_haunt'"),
        (["A", "B"], {"bork_to": "moon"}, "'bork_to'"),
        (["A", "B"], {"tiles": 5}, "'tiles'"),
        (["A", "B"], {"min_contact": True}, "'min_contact'"),
    ],
)
def test_bad_new_game_arguments(players: list[str], options: dict | None, message: str) -> None:
    with pytest.raises(IllegalAction, match=message):
        DogsGame.new(players, 1, options)


def test_the_lab_board_is_a_consistent_state() -> None:
    game = lab(3)
    assert DogsGame.from_json(game.to_json()) == game


def test_nothing_is_sensed() -> None:
    """No hardware: the engine never waits for the board."""
    for game in (DogsGame.new(["A", "B"], 1), setup_done(3), lab(4)):
        assert game.expects() == [] and game.expected_board() == {}


def test_eight_spooks_two_of_each_kind_hidden_until_placed() -> None:
    """"Mark two to indicate that they are Skeletons, two ... Gargoyles, two ... Ghouls, and two ...
    Bats." "Place the Spook Tokens face-down near the play area." """
    game = DogsGame.new(["A", "B"], 12)
    assert Counter(game.st.pool) == Counter({"skeleton": 2, "gargoyle": 2, "ghoul": 2, "bat": 2})
    view = json.dumps({k: v for k, v in game.public_view().items() if k != "options"})  # option names mention kinds
    assert game.public_view()["face_down_spooks"] == 8
    for kind in ("skeleton", "gargoyle", "ghoul", "bat"):
        assert kind not in view
    orders = {tuple(DogsGame.new(["A", "B"], seed).st.pool) for seed in range(20)}
    assert len(orders) > 10  # drawn at random, by the game's seeded RNG
