/* Each game's events as sentences. Anything not listed here is still shown, in generic words. */
(function () {
  "use strict";
  const W = window.GKWords;
  const pos = W.tombEnd;
  const who = (st, d) => W.playerName(st, typeof d.seat === "number" ? d.seat : d.player);
  const pawn = (st, p) => p && typeof p === "object" ? W.playerName(st, p.seat) + "'s " + (p.label || (p.pawn === 1 ? "boy" : "girl")) : "";
  const title = c => c && typeof c === "object" ? c.title || "a card" : W.cardTitles && W.cardTitles[c] || "a card";
  const cell = (st, c) => W.terrorCell(st, c);
  const space = (st, id) => W.superSpace(st, id);
  const trap = (st, t) => "the " + (((((st || {}).view || {}).traps || {})[t] || {}).name || W.humanize(t));
  const sq = (st, d) => W.dogsSquare(st, d.x, d.y);
  // "red", "red and blue", "red, blue and green": a list as a person says it.
  const listed = xs => xs.length < 2 ? xs.join("") : xs.slice(0, -1).join(", ") + " and " + xs[xs.length - 1];
  const moveBy = by => typeof by !== "string" || by === "roll" ? "" : by === "card" ? " by a card" :
    by.startsWith("arrow-") ? " along the " + by.slice(6) + " arrow" : " (" + W.humanize(by).toLowerCase() + ")";

  const terror = {
    turn_started: (d, st) => who(st, d) + (d.extra ? " takes an extra turn." : "'s turn."),
    rolled: (d, st) => who(st, d) + " rolled " + d.number + " and the " + W.humanize(d.symbol || "?") + ".",
    tomb_moved: (d, st) => "The " + W.tombName(d.tomb) + " tomb slid from " + pos(d.from) + " to " + pos(d.to) + ".",
    pawn_moved: (d, st) => who(st, d) + "'s " + d.label + " moved to " + cell(st, d.to) + moveBy(d.by) + ".",
    pawn_fell: (d, st) => who(st, d) + "'s " + d.label + " fell into a pit" + (d.discarded ? " and lost " + d.discarded + (d.discarded === 1 ? " card." : " cards.") : "."),
    card_drawn: (d, st) => who(st, d) + "'s " + d.label + " drew " + (d.card ? "“" + title(d.card) + "”." : "a card and kept it."),
    card_played: (d, st) => who(st, d) + " played “" + title(d.card) + "”.",
    monster_placed: (d, st) => W.playerName(st, d.by) + " turned " + who(st, d) + "'s " + d.label + " into a Monster.",
    cured: (d, st) => who(st, d) + "'s " + d.label + " was cured" + (d.by === "potion" ? " by a Magic Potion" : d.by ? " by “" + title(d.by) + "”" : "") + ".",
    paralysed: (d, st) => who(st, d) + "'s " + d.label + " is paralysed by a Skeleton Hand.",
    no_draw: (d, st) => who(st, d) + "'s " + d.label + " draws nothing: " + d.reason + ".",
    pawns_switched: (d, st) => pawn(st, d.a) + " and " + pawn(st, d.b) + " switched places.",
    steal_failed: (d, st) => pawn(st, d.to) + " found no ring to steal from " + pawn(st, d.from) + ".",
    extra_turn: (d, st) => who(st, d) + " will take an extra turn.",
    player_out: (d, st) => who(st, d) + " is out: " + d.reason + ".",
    turn_ended: (d, st) => who(st, d) + " ended the turn.",
    skull_attempt: (d, st) => who(st, d) + "'s " + (d.label || "pawn") + " drops the skull down the Crypt!",
    skull_hit: (d, st) => "The skull knocked the Headless Ghost off its launcher!",
    skull_missed: (d, st) => "The skull missed the Headless Ghost.",
    skull_void: (d, st) => who(st, d) + "'s " + (d.label || "pawn") + " fell into a pit before the skull landed, so the drop does not count.",
    deck_empty: (d, st) => who(st, d) + "'s " + d.label + " finds no card to draw: both piles are empty.",
    reshuffled: (d, st) => "The discard pile was shuffled into a new draw pile (" + d.cards + " cards).",
    monster_reversed: (d, st) => pawn(st, d.to) + " reversed the Monster card: " + pawn(st, d.from) + " becomes the Monster!",
    monster_discarded: (d, st) => "No pawn in play can take the Monster card, so it goes to the discard pile.",
    ring_stolen: (d, st) => pawn(st, d.to) + " stole a Magic Ring from " + pawn(st, d.from) + ".",
    game_won: (d, st) => (d.seats || []).map(s => W.playerName(st, s)).join(" and ") + " won" +
      ({ ghost: " by knocking the Headless Ghost off its launcher", last_player: " as the last player left" }[d.reason] || "") + ".",
    game_over: (d, st) => "Game over: " + (typeof d.reason === "string" ? d.reason : "nobody won") + ".",
  };
  const superstition = {
    turn_started: (d, st) => who(st, d) + "'s turn.",
    rolled: (d, st) => who(st, d) + " rolled " + d.total + ".",
    opening_roll: (d, st) => who(st, d) + " rolled " + d.total + " to see who starts.",
    opening_tie: (d, st) => "A tie at " + d.total + ": roll again.",
    first_player: (d, st) => who(st, d) + " goes first.",
    moved: (d, st) => who(st, d) + " moved " + d.roll + " to " + space(st, d.to) + ".",
    challenge_begins: (d, st) => who(st, d) + " challenges " + trap(st, d.trap) + ".",
    peg_pulled: (d, st) => who(st, d) + " pulled peg " + String(d.peg).toUpperCase() + " of " + trap(st, d.trap) + ".",
    challenge_resolved: (d, st) => d.zapped ? who(st, d) + " was zapped by " + trap(st, d.trap) + "!" : who(st, d) + " sneaked past " + trap(st, d.trap) + ".",
    trap_reset: (d, st) => W.humanize(trap(st, d.trap)) + " was reset.",
    drew_tokens: (d, st) => who(st, d) + " drew a Whammy and a Charm at the Wizard's Tomb.",
    jumped_tomb: (d, st) => who(st, d) + " jumped the Wizard's Tomb.",
    whammy_placed: (d, st) => who(st, d) + " placed a Whammy on " + space(st, d.space) + ".",
    whammy_moved: (d, st) => who(st, d) + " moved a Whammy to " + space(st, d.to) + ".",
    landed_on_whammy: (d, st) => who(st, d) + " landed on a Whammy on " + space(st, d.space) + "!",
    second_throw: (d, st) => who(st, d) + " throws again.",
    turn_passed: (d, st) => who(st, d) + " passes (" + d.reason + ").",
    draw_due: (d, st) => who(st, d) + " sneaked by the Grave: draw a Whammy and a Charm at the Wizard's Tomb.",
    traded_places: (d, st) => (d.players || []).map(s => W.playerName(st, s)).join(" and ") + " traded places across the Wizard's Tomb.",
    won: (d, st) => who(st, d) + " won!",
  };
  const dogs = {
    turn_started: (d, st) => who(st, d) + "'s turn.",
    tile_drawn: (d, st) => who(st, d) + " drew a tile.",
    tile_placed: (d, st) => who(st, d) + " placed a tile " + W.dogsSpot(st, d.x, d.y) + ".",
    dog_placed: (d, st) => who(st, d) + " put their dog on " + sq(st, d) + ".",
    dice_rolled: (d, st) => who(st, d) + " rolled " + (d.dice || []).join(" and ") + ".",
    die_chosen: (d, st) => who(st, d) + " used the " + d.value + " for " + (d.action === "dog" ? "their dog." : "a spook."),
    dog_moved: (d, st) => who(st, d) + "'s dog ran " + d.steps + " to " + sq(st, d) + ".",
    spook_picked: (d, st) => who(st, d) + " picked the " + d.kind + ".",
    spook_moved: (d, st) => who(st, d) + " moved the " + d.kind + " to " + sq(st, d) + ".",
    spook_placed: (d, st) => "A " + d.kind + " rose on " + sq(st, d) + ".",
    snack_placed: (d, st) => "A " + d.colour + " snack appeared on " + sq(st, d) + ".",
    snack_collected: (d, st) => who(st, d) + " collected " + listed(d.snacks || []) + ((d.snacks || []).length === 1 ? " snack." : " snacks."),
    attacked: (d, st) => who(st, d) + " attacked the " + d.kind + " (rolled " + d.roll + ")" + (d.captured ? " and caught it!" : "."),
    wrestled: (d, st) => who(st, d) + " wrestled " + W.playerName(st, d.other) + "'s dog; " +
      (d.winner === null || d.winner === undefined ? "a tie, nothing changed hands." : W.playerName(st, d.winner) + " won."),
    borked: (d, st) => who(st, d) + " borked at the " + d.token + ".",
    concern: (d, st) => who(st, d) + "'s dog is concerned (rolled " + d.roll + ")" + (d.fled ? " and fled." : "."),
    dog_fled: (d, st) => who(st, d) + "'s dog fled to " + sq(st, d) + ".",
    attack_declined: (d, st) => who(st, d) + " chose not to attack.",
    bat_robbed: (d, st) => "The bat took a " + d.taken + " snack from " + W.playerName(st, d.victim) +
      (d.returned ? " and dropped its " + d.returned + " one on their card." : "."),
    bork_penalty: (d, st) => who(st, d) + " rolled " + d.roll + " after borking" +
      (d.lost ? " and lost a " + d.lost + " snack from the game." : "; no snack lost."),
    haunt_missed: (d, st) => "The " + d.kind + " found no dog left to haunt.",
    haunt_refused: (d, st) => "The " + d.kind + " may not haunt " + (d.dogs || []).map(s => W.playerName(st, s) + "'s dog").join(" and ") +
      (d.reason ? ": " + d.reason + "." : "."),
    special_skipped: (d, st) => who(st, d) + " did nothing more with their dog.",
    spook_action_skipped: (d, st) => who(st, d) + " had a die for a spook, but no spook is in the graveyard.",
    step_back: (d, st) => who(st, d) + " went back a step (" + String(d.step).replace(/_/g, " ") + ").",
    haunted: (d, st) => "The " + d.kind + " haunted " + (d.dogs || []).map(s => W.playerName(st, s)).join(" and ") + ".",
    game_over: (d, st) => "Game over: " + (d.scores || []).map((n, s) => W.playerName(st, s) + " " + n).join(", ") +
      (d.friends ? ". A tie: they become friends." : "."),
  };
  const generic = {
    mismatch: d => d.message || "The board does not match the game.",
    mismatch_cleared: () => "The board matches the game again.",
    game_started: (d, st) => "A new game of " + (TITLES[d.game] || ((st || {}).view || {}).title || "a game") + " began.",
  };
  const byGame = { terror, superstition, dogs };
  const TITLES = { terror: "Terror in the Graveyard", superstition: "Superstition", dogs: "Graveyard Dogs" };
  W.gameTitles = TITLES;

  // The generic words name a place through this: a Terror cell, a Superstition space.
  W.place = function (st, v) {
    const game = (st || {}).game;
    if (game === "terror" && Array.isArray(v)) return W.terrorCell(st, v);
    if (game === "superstition" && typeof v === "string" && ((((st || {}).view || {}).board || {}).spaces || {})[v]) return W.superSpace(st, v);
    return null;
  };

  const plain = W.event;
  W.event = function (ev, st) {
    const table = byGame[(st && st.game) || ""] || {};
    const f = table[ev.type] || generic[ev.type];
    if (f) {
      try { return f(ev.data || {}, st); } catch (e) { /* fall back to generic words below */ }
    }
    return plain(ev, st);
  };
})();

/* Each game's actions as button labels. */
(function () {
  "use strict";
  const W = window.GKWords;
  const pos = W.tombEnd;
  const label = p => ({ 0: "girl", 1: "boy" }[p] || "pawn");
  const target = (st, t) => Array.isArray(t) && t.length === 2 ? W.playerName(st, t[0]) + "'s " + label(t[1]) : "a pawn";
  W.cardTitles = W.cardTitles || {};
  const card = id => "“" + (W.cardTitles[id] || "a card") + "”";
  const spookKind = (st, id) => {
    const s = (((st || {}).view || {}).spooks || []).find(x => x.id === id);
    return s ? "the " + (s.face_up ? s.kind : "face-down spook") : "a spook";
  };
  const dir = d => W.DIRECTION[d] || "on";
  const trap = (st, t) => "the " + (((((st || {}).view || {}).traps || {})[t] || {}).name || W.humanize(t));
  const walkTo = (st, d) => ((((st || {}).view || {}).walks || {})[d] || {}).to;
  const byGame = {
    terror: {
      roll: () => "Roll both dice",
      move_tomb: (p) => "Slide the " + W.tombName(p.tomb) + " tomb to " + pos(p.to),
      move_pawn: (p, st) => "Move your " + label(p.pawn) + " to " + W.terrorCell(st, p.to),
      attempt_skull: (p) => "Drop the skull (" + label(p.pawn) + " pawn" + (p.ring ? ", showing " + card(p.ring) : "") + ")",
      skull_outcome: (p) => p.hit ? "The skull hit the ghost" : "The skull missed",
      play_card: (p, st) => "Play " + card(p.card) + (p.target ? " on " + target(st, p.target) : "") + (p.to ? " to " + W.terrorCell(st, p.to) : ""),
      place_monster: (p, st) => "Put the Monster on " + target(st, p.target),
      end_turn: () => "End the turn",
    },
    superstition: {
      roll: (p) => p.value ? "Rolled " + p.value : "Roll",
      move: (p, st) => p.direction === "in" ? "Step onto " + (walkTo(st, "in") ? W.superSpace(st, walkTo(st, "in")) : "the platform") :
        "Move " + dir(p.direction) + (walkTo(st, p.direction) ? " to " + W.superSpace(st, walkTo(st, p.direction)) : ""),
      charm_move: (p, st) => "Use the Charm: move " + dir(p.direction) + (walkTo(st, p.direction) ? " to " + W.superSpace(st, walkTo(st, p.direction)) : ""),
      pull_peg: (p, st) => "Name peg " + String(p.peg).toUpperCase() + " of " + trap(st, p.trap),
      challenge_result: (p, st) => p.zapped ? "Zapped by " + trap(st, p.trap) : "Sneaked past " + trap(st, p.trap),
      reset_trap: (p, st) => "Reset " + trap(st, p.trap),
      place_whammy: (p, st) => "Place the Whammy on " + W.superSpace(st, p.space),
      relocate_whammy: (p, st) => "Move the Whammy to " + W.superSpace(st, p.to),
      leave_whammy: () => "Leave the Whammy where it is",
      jump: () => "Jump the Wizard's Tomb",
      end_turn: () => "End the turn",
    },
    dogs: {
      roll: () => "Roll the dice",
      choose: (p, st) => "Use the " + ((((st || {}).view || {}).dice || [])[p.die] || (p.die === 0 ? "first die" : "second die")) + " for " + (p.action === "dog" ? "your dog" : "a spook"),
      pick_spook: (p, st) => "Move " + spookKind(st, p.spook),
      attack: (p, st) => "Attack " + spookKind(st, p.spook),
      wrestle: (p, st) => "Wrestle " + W.playerName(st, p.dog) + "'s dog",
      bork: (p, st) => "Bork at the " + p.token + " on " + W.dogsSquare(st, p.x, p.y),
      collect: () => "Collect the snacks",
      done: () => "Done",
      back: () => "Go back",
      place_tile: (p, st) => "Place the tile " + W.dogsSpot(st, p.x, p.y) + (p.rotation ? ", turned " + p.rotation * 90 + "°" : ""),
      place_dog: (p, st) => "Put your dog on " + W.dogsSquare(st, p.x, p.y),
      move_dog: (p, st) => "Run to " + W.dogsSquare(st, p.x, p.y),
      move_spook: (p, st) => "Move the spook to " + W.dogsSquare(st, p.x, p.y),
      escape: (p, st) => "Escape to " + W.dogsSquare(st, p.x, p.y),
    },
  };
  const plain = W.action;
  W.action = function (a, st) {
    const f = (byGame[(st && st.game) || ""] || {})[a.kind];
    if (f) {
      try { return f(a.params || {}, st); } catch (e) { /* generic words below */ }
    }
    return plain(a, st);
  };
})();
