/* Each game's events as sentences. Anything not listed here is still shown, in generic words. */
(function () {
  "use strict";
  const W = window.GKWords;
  const pos = p => ({ end_a: "end A", middle: "the middle", end_b: "end B" }[p] || p);
  const cell = c => Array.isArray(c) ? "(" + c.join(", ") + ")" : String(c);
  const who = (st, d) => W.playerName(st, typeof d.seat === "number" ? d.seat : d.player);
  const pawn = (st, p) => p && typeof p === "object" ? W.playerName(st, p.seat) + "'s " + (p.label || "pawn " + p.pawn) : "";
  const title = c => c && typeof c === "object" ? c.title || c.id : c;

  const terror = {
    turn_started: (d, st) => who(st, d) + (d.extra ? " takes an extra turn." : "'s turn."),
    rolled: (d, st) => who(st, d) + " rolled " + d.number + " and the " + W.humanize(d.symbol || "?") + ".",
    tomb_moved: (d, st) => "The " + W.humanize(d.tomb) + " tomb slid from " + pos(d.from) + " to " + pos(d.to) + ".",
    pawn_moved: (d, st) => who(st, d) + "'s " + d.label + " moved to " + cell(d.to) + (d.by && d.by !== "roll" ? " (" + d.by + ")" : "") + ".",
    pawn_fell: (d, st) => who(st, d) + "'s " + d.label + " fell into a pit" + (d.discarded ? " and lost " + d.discarded + " card(s)." : "."),
    card_drawn: (d, st) => who(st, d) + "'s " + d.label + " drew " + (d.card ? "“" + title(d.card) + "”." : "a card and kept it."),
    card_played: (d, st) => who(st, d) + " played “" + title(d.card) + "”.",
    monster_placed: (d, st) => W.playerName(st, d.by) + " turned " + who(st, d) + "'s " + d.label + " into a Monster.",
    cured: (d, st) => who(st, d) + "'s " + d.label + " was cured" + (d.by ? " by the " + d.by : "") + ".",
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
    deck_empty: (d, st) => who(st, d) + "'s " + d.label + " finds no card to draw: both piles are empty.",
    reshuffled: (d, st) => "The discard pile was shuffled into a new draw pile (" + d.cards + " cards).",
    monster_reversed: (d, st) => pawn(st, d.to) + " reversed the Monster card: " + pawn(st, d.from) + " becomes the Monster!",
    ring_stolen: (d, st) => pawn(st, d.to) + " stole a Magic Ring from " + pawn(st, d.from) + ".",
    game_won: (d, st) => (d.seats || []).map(s => W.playerName(st, s)).join(" and ") + " won" + (d.reason ? " (" + W.humanize(d.reason).toLowerCase() + ")." : "."),
  };
  const superstition = {
    turn_started: (d, st) => who(st, d) + "'s turn.",
    rolled: (d, st) => who(st, d) + " rolled " + d.total + ".",
    opening_roll: (d, st) => who(st, d) + " rolled " + d.total + " to see who starts.",
    opening_tie: (d, st) => "A tie at " + d.total + ": roll again.",
    first_player: (d, st) => who(st, d) + " goes first.",
    moved: (d, st) => who(st, d) + " moved " + d.roll + " to " + d.to + ".",
    challenge_begins: (d, st) => who(st, d) + " challenges the " + W.humanize(d.trap) + " trap.",
    peg_pulled: (d, st) => who(st, d) + " pulled peg " + String(d.peg).toUpperCase() + " of the " + W.humanize(d.trap) + ".",
    challenge_resolved: (d, st) => d.zapped ? who(st, d) + " was zapped by the " + W.humanize(d.trap) + "!" : who(st, d) + " sneaked past the " + W.humanize(d.trap) + ".",
    trap_reset: (d, st) => "The " + W.humanize(d.trap) + " trap was reset.",
    drew_tokens: (d, st) => who(st, d) + " drew a Whammy and a Charm at the Wizard's Tomb.",
    jumped_tomb: (d, st) => who(st, d) + " jumped the Wizard's Tomb.",
    whammy_placed: (d, st) => who(st, d) + " placed a Whammy on " + d.space + ".",
    whammy_moved: (d, st) => who(st, d) + " moved a Whammy to " + d.to + ".",
    landed_on_whammy: (d, st) => who(st, d) + " landed on a Whammy at " + d.space + "!",
    second_throw: (d, st) => who(st, d) + " throws again.",
    turn_passed: (d, st) => who(st, d) + " passes (" + d.reason + ").",
    draw_due: (d, st) => who(st, d) + " sneaked by the Grave: draw a Whammy and a Charm at the Wizard's Tomb.",
    traded_places: (d, st) => (d.players || []).map(s => W.playerName(st, s)).join(" and ") + " traded places across the Wizard's Tomb.",
    won: (d, st) => who(st, d) + " won!",
  };
  const dogs = {
    turn_started: (d, st) => who(st, d) + "'s turn.",
    tile_drawn: (d, st) => who(st, d) + " drew a tile.",
    tile_placed: (d, st) => who(st, d) + " placed a tile at (" + d.x + ", " + d.y + ").",
    dog_placed: (d, st) => who(st, d) + " put their dog at (" + d.x + ", " + d.y + ").",
    dice_rolled: (d, st) => who(st, d) + " rolled " + (d.dice || []).join(" and ") + ".",
    die_chosen: (d, st) => who(st, d) + " used the " + d.value + " for " + (d.action === "dog" ? "their dog." : "a spook."),
    dog_moved: (d, st) => who(st, d) + "'s dog ran " + d.steps + " to (" + d.x + ", " + d.y + ").",
    spook_picked: (d, st) => who(st, d) + " picked the " + d.kind + ".",
    spook_moved: (d, st) => who(st, d) + " moved the " + d.kind + " to (" + d.x + ", " + d.y + ").",
    spook_placed: (d, st) => "A " + d.kind + " rose at (" + d.x + ", " + d.y + ").",
    snack_placed: (d, st) => "A " + d.colour + " snack appeared at (" + d.x + ", " + d.y + ").",
    snack_collected: (d, st) => who(st, d) + " collected " + (d.snacks || []).join(", ") + " snack(s).",
    attacked: (d, st) => who(st, d) + " attacked the " + d.kind + " (rolled " + d.roll + ")" + (d.captured ? " and caught it!" : "."),
    wrestled: (d, st) => who(st, d) + " wrestled " + W.playerName(st, d.other) + "; " +
      (d.winner === null || d.winner === undefined ? "a tie, nothing changed hands." : W.playerName(st, d.winner) + " won."),
    borked: (d, st) => who(st, d) + " borked at the " + d.token + ".",
    concern: (d, st) => who(st, d) + "'s dog is concerned (rolled " + d.roll + ")" + (d.fled ? " and fled." : "."),
    dog_fled: (d, st) => who(st, d) + "'s dog fled to (" + d.x + ", " + d.y + ").",
    attack_declined: (d, st) => who(st, d) + " chose not to attack.",
    bat_robbed: (d, st) => "The bat took a " + d.taken + " snack from " + W.playerName(st, d.victim) +
      (d.returned ? " and dropped its " + d.returned + " one on their card." : "."),
    bork_penalty: (d, st) => who(st, d) + " rolled " + d.roll + " after borking" +
      (d.lost ? " and lost a " + d.lost + " snack from the game." : "; no snack lost."),
    haunt_missed: (d, st) => "The " + d.kind + " found no dog left to haunt.",
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
    game_started: (d, st) => "A new game of " + (d.game || "?") + " began.",
  };
  const byGame = { terror, superstition, dogs };

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
  const pos = p => ({ end_a: "end A", middle: "the middle", end_b: "end B" }[p] || p);
  const label = p => ({ 0: "girl", 1: "boy" }[p] || "pawn " + p);
  const target = (st, t) => Array.isArray(t) && t.length === 2 ? W.playerName(st, t[0]) + "'s " + label(t[1]) + " pawn" : W.value(t);
  W.cardTitles = W.cardTitles || {};
  const card = id => "“" + (W.cardTitles[id] || id) + "”";
  const spookKind = (st, id) => {
    const s = (((st || {}).view || {}).spooks || []).find(x => x.id === id);
    return s ? "the " + s.kind : "spook " + id;
  };
  const byGame = {
    terror: {
      roll: () => "Roll both dice",
      move_tomb: (p) => "Slide the " + W.humanize(p.tomb) + " tomb to " + pos(p.to),
      move_pawn: (p) => "Move the " + label(p.pawn) + " pawn to (" + p.to.join(", ") + ")",
      attempt_skull: (p) => "Drop the skull (" + label(p.pawn) + " pawn" + (p.ring ? ", showing " + card(p.ring) : "") + ")",
      skull_outcome: (p) => p.hit ? "The skull hit the ghost" : "The skull missed",
      play_card: (p, st) => "Play " + card(p.card) + (p.target ? " on " + target(st, p.target) : "") + (p.to ? " to (" + p.to.join(", ") + ")" : ""),
      place_monster: (p, st) => "Put the Monster on " + target(st, p.target),
      end_turn: () => "End the turn",
    },
    superstition: {
      roll: (p) => p.value ? "Rolled " + p.value : "Roll",
      move: (p) => "Move " + ({ cw: "clockwise", ccw: "counter-clockwise" }[p.direction] || p.direction),
      charm_move: (p) => "Use the Charm: move " + ({ cw: "clockwise", ccw: "counter-clockwise" }[p.direction] || p.direction),
      pull_peg: (p) => "Name peg " + String(p.peg).toUpperCase() + " of the " + W.humanize(p.trap),
      challenge_result: (p) => p.zapped ? "Zapped by the " + W.humanize(p.trap) : "Sneaked past the " + W.humanize(p.trap),
      reset_trap: (p) => "Reset the " + W.humanize(p.trap) + " trap",
      place_whammy: (p) => "Place the Whammy on " + p.space,
      relocate_whammy: (p) => "Move the Whammy to " + p.to,
      leave_whammy: () => "Leave the Whammy where it is",
      jump: () => "Jump the Wizard's Tomb",
      end_turn: () => "End the turn",
    },
    dogs: {
      roll: () => "Roll the dice",
      choose: (p, st) => "Use the " + ((((st || {}).view || {}).dice || [])[p.die] || "die " + p.die) + " for " + (p.action === "dog" ? "your dog" : "a spook"),
      pick_spook: (p, st) => "Move " + spookKind(st, p.spook),
      attack: (p, st) => "Attack " + spookKind(st, p.spook),
      wrestle: (p, st) => "Wrestle " + W.playerName(st, p.dog) + "'s dog",
      bork: (p) => "Bork at the " + p.token + " at (" + p.x + ", " + p.y + ")",
      collect: () => "Collect the snacks",
      done: () => "Done",
      back: () => "Go back",
      place_tile: (p) => "Place the tile at (" + p.x + ", " + p.y + "), turned " + p.rotation * 90 + "°",
      place_dog: (p) => "Put your dog at (" + p.x + ", " + p.y + ")",
      move_dog: (p) => "Run to (" + p.x + ", " + p.y + ")",
      move_spook: (p) => "Move the spook to (" + p.x + ", " + p.y + ")",
      escape: (p) => "Escape to (" + p.x + ", " + p.y + ")",
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
