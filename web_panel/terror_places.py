"""Terror's spaces in words, added to a state before a page reads it.

A page names a Terror space ("the card space next to the Exit") by looking it
up in the state's ``view.places``; the panel fills that in here, from the
view's board and tombs, with the engine's own words
(``controller.games.terror.view_places``). The words have one source, and the
table publishes nothing more for them (docs/architecture.md, "One source for
Terror's place words").
"""

from __future__ import annotations

from typing import Any

from controller.games.terror import view_places

__all__ = ["with_places"]


def with_places(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with its view's ``places`` when it shows a Terror board; any other state as it is.

    ``places`` is always the panel's own: one in the message (a forgery's words) is replaced, or
    dropped when the board cannot be read.
    """
    view = state.get("view")
    if state.get("game") != "terror" or not isinstance(view, dict):
        return state
    places = view_places(view)
    if places is None:
        return state if "places" not in view else {**state, "view": {k: v for k, v in view.items() if k != "places"}}
    return {**state, "view": {**view, "places": places}}
