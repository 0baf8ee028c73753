"""The seats' colours stay apart for a player with a colour-vision deficiency (issue 29, item 5).

About one man in twelve has a red-green deficiency. The boards draw each seat's pieces in the display
colour ``web_panel/static/seat_colours.js`` gives the seat's colour name in that game (the engines name the physical
pawns' colours: Terror's green, blue, orange and white; Superstition's and Graveyard dogs' red, blue,
green and yellow). Each game's seat colours are simulated as seen with protanopia, deuteranopia and
tritanopia at full severity (Machado, Oliveira and Fernandes 2009, the matrices for severity 1.0, applied
to linear RGB), and every two seats' colours must stay at least ``MIN_DELTA_E`` apart in CIEDE2000, and
from the board's background.

Why 20: a CIEDE2000 difference near 1 is just noticeable between two large patches side by side, and about
10 is commonly taken as "clearly different". Pieces here are small (10 to 30 CSS px), apart, on a busy dark
board, and must be named ("that is Bo's"), not merely told unequal: twice that margin is asked. It is a
margin chosen here, not a published standard, and it is demanding but reachable: the palettes reach 20.8
(Terror) and 24.0 (Superstition, Graveyard dogs), where Okabe and Ito's colours for colour-blind readers
reach 12.4 (blue and bluish green under tritanopia) and CSS's red and green, drawn before, 7.7 for a
protanope. The initial on each piece (test_seat_marks_browser.py) is the second mark, which does not rest
on colour at all.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import pytest

from controller.games import get_game
from controller.games.dogs.options import COLOURS as DOGS_COLOURS
from controller.games.terror.state import SEAT_COLOURS as TERROR_COLOURS

PALETTE_JS = Path(__file__).resolve().parents[3] / "web_panel" / "static" / "seat_colours.js"
MIN_DELTA_E = 20.0
# The cells pieces stand on: Terror's grass and Gate, Superstition's and Graveyard dogs' board and grass.
BACKGROUNDS = {"terror": ["#2f4a2a", "#6b5a24"], "superstition": ["#101116"], "dogs": ["#263d26"]}

# Machado, Oliveira, Fernandes (2009), "A physiologically-based model for simulation of color vision
# deficiency", IEEE TVCG 15(6); severity 1.0 (dichromacy), for linear RGB.
MACHADO = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}

Rgb = tuple[float, float, float]


def palette(game: str) -> dict[str, str]:
    """The display colour of each of ``game``'s colour names, read from the script the boards use."""
    text = PALETTE_JS.read_text()
    m = re.search(r"/\*PALETTE\*/\s*(\{.*?\})\s*/\*END\*/", text, re.S)
    assert m, f"{PALETTE_JS} has no /*PALETTE*/ {{...}} /*END*/ object"
    return dict(json.loads(m.group(1))[game])


def linear(hex_colour: str) -> Rgb:
    def one(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    h = hex_colour.lstrip("#")
    r, g, b = (one(int(h[i:i + 2], 16) / 255) for i in (0, 2, 4))
    return r, g, b


def simulate(rgb: Rgb, kind: str | None) -> Rgb:
    if kind is None:
        return rgb
    m = MACHADO[kind]
    r, g, b = (min(1.0, max(0.0, row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2])) for row in m)
    return r, g, b


def lab(rgb: Rgb) -> Rgb:
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(a: Rgb, b: Rgb) -> float:
    """CIEDE2000 (Sharma, Wu, Dalal 2005), kL = kC = kH = 1."""
    (l1, a1, b1), (l2, a2, b2) = a, b
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    cm = (c1 + c2) / 2
    g = 0.5 * (1 - math.sqrt(cm ** 7 / (cm ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    dH = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lm, cmp_ = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hm = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hm = (h1p + h2p) / 2
    else:
        hm = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hm - 30)) + 0.24 * math.cos(math.radians(2 * hm))
         + 0.32 * math.cos(math.radians(3 * hm + 6)) - 0.20 * math.cos(math.radians(4 * hm - 63)))
    sl = 1 + 0.015 * (lm - 50) ** 2 / math.sqrt(20 + (lm - 50) ** 2)
    sc, sh = 1 + 0.045 * cmp_, 1 + 0.015 * cmp_ * t
    rot = 60 * math.exp(-(((hm - 275) / 25) ** 2))
    rt = -2 * math.sqrt(cmp_ ** 7 / (cmp_ ** 7 + 25 ** 7)) * math.sin(math.radians(rot))
    return math.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dH / sh) ** 2 + rt * (dc / sc) * (dH / sh))


def delta(c1: str, c2: str, kind: str | None) -> float:
    return ciede2000(lab(simulate(linear(c1), kind)), lab(simulate(linear(c2), kind)))


def test_ciede2000_matches_sharma_s_table() -> None:
    """Pairs from Sharma, Wu and Dalal's test data: the formula here is the published one."""
    assert ciede2000((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert ciede2000((50.0, 2.5, 0.0), (73.0, 25.0, -18.0)) == pytest.approx(27.1492, abs=1e-4)
    assert ciede2000((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387)) == pytest.approx(1.2644, abs=1e-4)


def test_the_simulation_loses_what_it_should() -> None:
    """The check can fail: CSS red and green, which a deuteranope confuses, come out close under it."""
    assert delta("#ff0000", "#008000", None) > 40
    assert delta("#cc3300", "#669900", "deuteranopia") < MIN_DELTA_E


def seat_colours() -> dict[str, list[str]]:
    superstition = get_game("superstition").new(["A", "B", "C", "D"], 1).public_view()["players"]
    assert isinstance(superstition, list)
    return {"terror": list(TERROR_COLOURS), "superstition": [str(p["colour"]) for p in superstition],  # type: ignore[index]
            "dogs": list(DOGS_COLOURS)}


@pytest.mark.parametrize("game", ["terror", "superstition", "dogs"])
def test_seat_colours_stay_apart_under_colour_blindness(game: str) -> None:
    shown = palette(game)
    names = seat_colours()[game]
    missing = [n for n in names if n not in shown]
    assert not missing, f"{game}: no display colour for {missing} in {PALETTE_JS.name}"
    close = []
    for kind in (None, *MACHADO):
        for n1, n2 in itertools.combinations(names, 2):
            d = delta(shown[n1], shown[n2], kind)
            if d < MIN_DELTA_E:
                close.append(f"{kind or 'normal vision'}: {n1} {shown[n1]} and {n2} {shown[n2]} are {d:.1f} apart")
        for n in names:
            for bg in BACKGROUNDS[game]:
                d = delta(shown[n], bg, kind)
                if d < MIN_DELTA_E:
                    close.append(f"{kind or 'normal vision'}: {n} {shown[n]} on the board's {bg} is {d:.1f} apart")
    assert not close, f"{game}: colours too close (CIEDE2000 < {MIN_DELTA_E}):\n" + "\n".join(close)


def test_the_colours_drawn_before_fail_the_check() -> None:
    """Until seat_colours.js the boards drew each colour name as CSS's own colour: red and green came out
    7.7 apart for a protanope, and Terror's green all but vanished on the Gate (6.5) for a deuteranope."""
    css = {"red": "#ff0000", "green": "#008000", "blue": "#0000ff", "yellow": "#ffff00", "orange": "#ffa500"}
    assert delta(css["red"], css["green"], "protanopia") < MIN_DELTA_E
    assert delta(css["green"], BACKGROUNDS["terror"][1], "deuteranopia") < MIN_DELTA_E
