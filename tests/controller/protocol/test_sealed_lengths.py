"""What a spectator on ``#`` learns from the length of a sealed payload: nothing about a secret.

AES-GCM hides the content of a private view, a sealed act and a sealed reply,
but not their length. Each game is played for a while through a real
controller and Mosquitto; a spectator on ``#`` collects every sealed payload.
The test (which holds the token) opens them to learn the secrets they hold,
groups them by those secrets, and checks that every group has the same
lengths, so the lengths cannot tell one secret from another.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from controller.protocol.security import PAD_VIEW, unseal
from controller.service import views as service_views
from controller.service.service import Service
from tests.support.broker import Broker
from tests.support.mqtt import Commander, Subscriber, wait_until
from tests.support.service import BASE, TOKEN, MakeService, topic


def _play(svc: Service, steps: int, seed: int) -> None:
    """Random legal moves, secret ones included, decided by the service as commands would be."""
    rnd = random.Random(seed)

    def step(s: Service) -> bool:
        game = s.referee.game
        if game is None or game.is_over:
            return False
        actions = s.referee.core.commandable(game.legal_actions(), s.referee.board)
        return bool(actions) and bool(s.referee.act(rnd.choice(actions)).ok)

    for _ in range(steps):
        if not svc.call(step):
            players = ["Ann", "Bo", "Cy", "Dee"][: rnd.choice((2, 3, 4))]
            svc.call(lambda s, players=players: s.referee.new_game(s.referee.game.name, players,
                                                                   rnd.randrange(1 << 30)))


def _secret(game: str, envelope: dict[str, Any]) -> Any:
    """What a seat's opened view holds that nobody else may know."""
    you = envelope["view"].get("you") or {}
    if game == "terror":
        return tuple(sorted(c["id"] if isinstance(c, dict) else str(c)
                            for p in you.get("pawns", []) for c in p.get("cards", [])))
    if game == "superstition":
        return you.get("charm"), you.get("whammy")
    return None  # Graveyard Dogs keeps nothing secret: every view must still weigh the same


@pytest.mark.parametrize("game", ["terror", "superstition", "dogs"])
def test_sealed_view_lengths_are_the_same_whatever_secret_they_hold(mosquitto: Broker, make_service: MakeService,
                                                                     game: str) -> None:
    t = f"pad-{game}"
    with Subscriber(mosquitto.host, mosquitto.port, (f"{BASE}/{t}/#",)) as spy:
        svc = make_service(t, simulate=False, **{"referee.board": "manual", "table.game": game,
                                                 "table.players": ["Ann", "Bo", "Cy"]})
        for round_ in range(12):
            _play(svc, 25, seed=round_)
        last = svc.journal.last_seq()
        spy.wait_for(lambda msgs: any("/private/" in m.topic and m.payload and m.json()["seq"] == last
                                      for m in msgs))
    sizes: dict[Any, set[int]] = defaultdict(set)
    for m in spy.messages:
        if "/private/" not in m.topic or not m.payload:
            continue
        envelope = m.json()
        opened = unseal(TOKEN, t, envelope["seat"], envelope["sealed"])
        sizes[_secret(game, opened)].add(len(envelope["sealed"]))
    assert sum(1 for _ in sizes) >= (1 if game == "dogs" else 4), \
        f"the play dealt too few different secrets to prove anything: {sorted(sizes, key=str)}"
    lengths = set().union(*sizes.values())
    if game != "dogs":
        # One length for every view, so every secret's distribution of lengths is the same one.
        assert len(lengths) == 1, {str(k): sorted(v) for k, v in sizes.items()}
        (length,) = lengths
        assert length == len(_b64_of(PAD_VIEW)), length
    else:
        # Dogs' legal tile placements (public) can pass one step: lengths are whole steps only.
        assert lengths <= {len(_b64_of(PAD_VIEW * k)) for k in (1, 2, 3)}, lengths


def _b64_of(plain: int) -> str:
    """Base64 text of a 12-byte nonce, ``plain`` bytes and a 16-byte tag, as a sealed payload is."""
    return "x" * (4 * -(-(12 + plain + 16) // 3))


@pytest.mark.parametrize("game", ["terror", "superstition"])
def test_sealed_acts_and_their_replies_have_one_length_whatever_they_name(mosquitto: Broker,
                                                                          make_service: MakeService,
                                                                          game: str) -> None:
    t = f"pad-act-{game}"
    svc = make_service(t, simulate=False, **{"referee.board": "manual", "table.game": game})
    # Secret moves of every kind and about every secret the play offered, sent as a player's page
    # sends them; most are refused (not now, not yours), and a refusal may name the card.
    moves: list[tuple[int, dict[str, Any]]] = []
    for round_ in range(30):
        _play(svc, 15, seed=100 + round_)
        views = svc.call(lambda s: s.referee.private_views())
        kinds = svc.call(lambda s: type(s.referee.game).SECRET_ACTION_KINDS)
        for seat, envelope in views.items():
            moves += [(seat, a) for a in envelope["legal"] if a["kind"] in kinds and (seat, a) not in moves]
        if len({json.dumps(a["params"], sort_keys=True) for _, a in moves}) >= 6:
            break
    if game == "terror":  # and cards nobody holds, named by id
        moves += [(0, {"kind": "play_card", "player": 0, "params": {"card": c}})
                  for c in svc.call(lambda s: sorted(s.referee.game.deck.cards))]
    else:  # and Whammies placed anywhere, by anyone
        spaces = svc.call(lambda s: s.referee.game.board.path_spaces())
        # Every seat, the one to play included, so that not every refusal is "not your turn".
        seats = range(svc.call(lambda s: len(s.referee.game.players)))
        moves += [(seat, {"kind": "place_whammy", "player": seat, "params": {"space": space}})
                  for space in spaces[:12] for seat in seats]
    assert len({json.dumps(a["params"], sort_keys=True) for _, a in moves}) >= 6, moves
    with Subscriber(mosquitto.host, mosquitto.port, (f"{BASE}/{t}/cmd/act", f"{BASE}/{t}/reply/act")) as spy:
        cmd = Commander(mosquitto.host, mosquitto.port, BASE, t, TOKEN)
        try:
            errors = set()
            for seat, action in moves[:60]:
                _, opened = cmd.call_sealed(seat, action)
                errors.add(opened.get("error"))
        finally:
            cmd.close()
        wait_until(lambda: len(spy.on(topic(t, "reply", "act"))) >= min(len(moves), 60), 10, "every reply")
    assert len({len(str(e)) for e in errors}) >= 2, errors  # refusals of different lengths (some name a card)
    acts = {len(m.json()["sealed"]) for m in spy.on(topic(t, "cmd", "act"))}
    replies = {len(m.json()["sealed"]) for m in spy.on(topic(t, "reply", "act"))}
    assert len(acts) == 1 and len(replies) == 1, (acts, replies)


def test_on_a_big_board_every_seats_view_of_one_state_has_one_length(mosquitto: Broker,
                                                                     make_service: MakeService) -> None:
    """A Terror board of 109 rows makes views of 10 to 18 KB: one unit of padding or two, as the
    seat's own hand and moves tipped it, so the length told a spectator something of a hand.
    Every seat's view published with one state must have the length the public state sets."""
    t = "pad-big-board"
    board = json.loads((Path(__file__).resolve().parents[3] / "controller/games/terror/data/board.json").read_text())
    board["layout"] = board["layout"] + ["." * len(board["layout"][0])] * 100
    svc = make_service(t, simulate=False, **{"referee.board": "manual", "table.game": "terror"})
    rnd = random.Random(3)
    with Subscriber(mosquitto.host, mosquitto.port, (f"{BASE}/{t}/private/+", f"{BASE}/{t}/state")) as spy:
        for _ in range(4):
            out = svc.call(lambda s: s.referee.new_game("terror", ["Ann", "Bo", "Cy", "Dee"],
                                                        rnd.randrange(1 << 30), options={"board": board}))
            assert out.ok, out

            def step(s: Service) -> bool:
                game = s.referee.game
                if game is None or game.is_over:
                    return False
                actions = s.referee.core.commandable(game.legal_actions(), s.referee.board)
                return bool(actions) and bool(s.referee.act(rnd.choice(actions)).ok)

            for _ in range(40):
                if not svc.call(step):
                    break
        last = svc.journal.last_seq()
        spy.wait_for(lambda msgs: any("/private/" in m.topic and m.payload and m.json()["seq"] == last
                                      for m in msgs))
    by_seq: dict[int, set[int]] = defaultdict(set)
    plain: set[int] = set()
    for m in spy.messages:
        if "/private/" not in m.topic or not m.payload:
            continue
        envelope = m.json()
        by_seq[envelope["seq"]].add(len(envelope["sealed"]))
        plain.add(len(json.dumps(unseal(TOKEN, t, envelope["seat"], envelope["sealed"]),
                                 separators=(",", ":"))))
    assert max(plain) > PAD_VIEW and min(plain) < PAD_VIEW, "the views should cross a unit to prove anything"
    mixed = {seq: sorted(lengths) for seq, lengths in by_seq.items() if len(lengths) > 1}
    assert not mixed, mixed


def test_views_are_padded_to_at_least_the_state_as_it_was_published(mosquitto: Broker, make_service: MakeService,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound comes from the state's bytes on the retained topic (not a second encoding of the state),
    and is at least their length and the length of the state's JSON spaced and in ASCII, as it was before."""
    services: list[Service] = []
    seen: list[tuple[int, bytes]] = []  # (the bound a view was sealed with, the retained state then)
    real_seal = service_views.seal

    def spy_seal(*args: Any, public_size: int = 0) -> str:
        link = services[0].link if services else None
        if link is not None:
            seen.append((public_size, link.retained(link.topics.state) or b""))
        return real_seal(*args, public_size=public_size)

    monkeypatch.setattr(service_views, "seal", spy_seal)
    svc = make_service("pad-bound", simulate=False, **{"referee.board": "manual", "table.game": "superstition",
                                                       "table.players": ["Ann", "Bö", "\U0001F47B" * 10]})
    services.append(svc)
    _play(svc, 15, seed=200)
    # Every view sealed during play: the calls before the service was handed over are not checked.
    assert len(seen) >= 10, len(seen)
    for bound, state in seen:
        spaced = json.dumps(json.loads(state), sort_keys=True).encode()
        assert state and bound >= len(state) and bound >= len(spaced), (bound, len(state), len(spaced))
        assert bound == service_views._public_size(state)
