/* The effects player of a page: the table's cues as sound, speech, vibration and animation.
 *
 * Cues come from the table's effects stream (docs/effects.md). Every sound is made
 * here with Web Audio, so nothing recorded ships; spoken lines go to the browser's
 * speech synthesis, in the language chosen on this device. One device plays sound
 * for the table (the "table speaker": the referee's tablet, or the Pi's own
 * screen); a player's phone stays quiet unless its player turns sound on, and
 * vibrates for cues meant for that player. While the table has a speaker, a phone
 * plays only the cues of its own player (their turn, their pawn), so the table does
 * not hear every line twice, unless its player chooses "Speak every move on this
 * phone". Volume, mute, the language and the switches are kept per device (localStorage).
 */
(function () {
  "use strict";
  const body = document.body;
  const url = body.dataset.effects;
  if (!url || !window.EventSource) return;
  const seat = body.dataset.seat === undefined || body.dataset.seat === "" ? null : Number(body.dataset.seat);
  const isPlayer = body.dataset.page === "player";
  const KEY = "gk-effects";

  function load() {
    const defaults = { sound: false, volume: 0.7, vibrate: true, lang: "", everyMove: false };
    try { return Object.assign(defaults, JSON.parse(localStorage.getItem(KEY) || "{}")); }
    catch (e) { return defaults; }
  }
  const prefs = load();
  function save() { try { localStorage.setItem(KEY, JSON.stringify(prefs)); } catch (e) { /* private mode: this visit only */ } }

  // ----- a device that fails: said once, in words, under the controls ---------------------------
  // One note per kind of fault ("sound", "voice", "lang"), shown while it lasts and counted once, so a
  // sound card that fails on every cue is one line, not one per cue; it goes when the fault does.
  const notes = {};
  let box = null;
  function report(kind, text) {
    if (notes[kind] && !notes[kind].hidden) return;
    if (!notes[kind]) {
      const p = document.createElement("p");
      p.className = "fx-note";
      p.setAttribute("role", "status");
      notes[kind] = p;
      (box || document.querySelector("main") || body).appendChild(p);
    }
    notes[kind].textContent = text;
    notes[kind].hidden = false;
    body.dataset.effectsFaults = String(Number(body.dataset.effectsFaults || 0) + 1);
  }
  function cleared(kind) { if (notes[kind]) notes[kind].hidden = true; }

  const pageLang = () => document.documentElement.lang || "en";
  // A language by its name ("English", "German (Germany)"), not its code ("en", "de-DE").
  const named = l => {
    try { return new Intl.DisplayNames([pageLang()], { type: "language" }).of(l) || l; }
    catch (e) { return l; }
  };
  // The language lines are spoken in: the one chosen on this device if it has a voice for it, else
  // the page's. A choice kept from another visit may name a voice this device no longer has; speaking
  // it anyway gives silence or a voice reading the words as another language.
  function voiceLang() {
    const want = prefs.lang || pageLang();
    const voices = (window.speechSynthesis && speechSynthesis.getVoices()) || [];
    const base = l => String(l).toLowerCase().split(/[-_]/)[0];
    if (want === pageLang() || !voices.length || voices.some(v => base(v.lang) === base(want))) {
      cleared("lang");
      return want;
    }
    report("lang", "There is no " + named(want) + " voice on this device: lines are spoken in " +
      named(pageLang()) + ". Pick another voice in the list.");
    return pageLang();
  }

  // ----- sounds, made here -------------------------------------------------------------
  let ctx = null;
  function audio() {
    if (ctx && ctx.state === "closed") ctx = null;  // closed under us (the device's audio was reset)
    if (!ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return null;
      ctx = new AC();
    }
    if (ctx.state === "suspended") ctx.resume();
    return ctx;
  }
  // Each sound: notes of [start s, frequency Hz, length s, wave, end frequency?]; "noise" is a burst of noise.
  const SOUNDS = {
    roll: [["noise", 0, 0.08], ["noise", 0.1, 0.08], ["noise", 0.22, 0.1]],
    slide: [[0, 140, 0.35, "sawtooth", 90]],
    fall: [[0, 700, 0.7, "triangle", 80]],
    spell: [[0, 300, 0.25, "sine", 600], [0.2, 450, 0.3, "sine", 900]],
    cure: [[0, 523, 0.15, "sine"], [0.15, 659, 0.15, "sine"], [0.3, 784, 0.3, "sine"]],
    drop: [[0, 900, 0.5, "square", 200]],
    ghost: [[0, 200, 0.6, "sine", 900], [0.5, 880, 0.6, "triangle", 1400], ["noise", 0.1, 0.3]],
    fanfare: [[0, 523, 0.12, "square"], [0.13, 659, 0.12, "square"], [0.26, 784, 0.12, "square"], [0.4, 1047, 0.45, "square"]],
    peg: [[0, 1200, 0.05, "square"]],
    zap: [["noise", 0, 0.15], [0, 1500, 0.25, "sawtooth", 100]],
    sneak: [[0, 400, 0.12, "sine", 300], [0.14, 300, 0.2, "sine", 250]],
    whammy: [[0, 220, 0.3, "square", 110]],
    charm: [[0, 1320, 0.1, "sine"], [0.1, 1760, 0.2, "sine"]],
    home: [[0, 392, 0.15, "triangle"], [0.15, 523, 0.15, "triangle"], [0.3, 659, 0.4, "triangle"]],
    bork: [[0, 320, 0.09, "sawtooth", 220], [0.14, 320, 0.09, "sawtooth", 220]],
    attack: [["noise", 0, 0.12], [0.05, 180, 0.2, "square", 90]],
    haunt: [[0, 260, 0.8, "sine", 240], [0, 390, 0.8, "sine", 370]],
    rise: [[0, 80, 0.6, "sawtooth", 240]],
    scores: [[0, 659, 0.12, "triangle"], [0.14, 784, 0.12, "triangle"], [0.28, 988, 0.3, "triangle"]],
    turn: [[0, 880, 0.09, "sine"], [0.12, 1175, 0.12, "sine"]],
    alarm: [[0, 660, 0.18, "square"], [0.22, 520, 0.18, "square"], [0.44, 660, 0.18, "square"]],
    clear: [[0, 660, 0.1, "sine"], [0.1, 880, 0.15, "sine"]],
    tick: [[0, 1000, 0.03, "square"]],
    card: [["noise", 0, 0.05], [0.06, 700, 0.08, "triangle"]],
  };
  function playSound(name, volume) {
    try {
      makeSound(name, volume);
      cleared("sound");
    } catch (e) {
      ctx = null;  // a fresh audio context on the next cue: the device may have recovered by then
      report("sound", "Sound could not play on this device. It is tried again with the next cue; " +
        "if it stays silent, reload the page.");
    }
  }
  function makeSound(name, volume) {
    const notes = SOUNDS[name];
    const ac = notes && audio();
    if (!ac) return;
    const out = ac.createGain();
    out.gain.value = Math.max(0, Math.min(1, prefs.volume * (volume === undefined ? 1 : volume)));
    out.connect(ac.destination);
    const t0 = ac.currentTime + 0.02;
    for (const n of notes) {
      if (n[0] === "noise") {
        const len = Math.floor(ac.sampleRate * n[2]);
        const buf = ac.createBuffer(1, len, ac.sampleRate);
        const data = buf.getChannelData(0);
        for (let i = 0; i < len; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / len);
        const src = ac.createBufferSource();
        src.buffer = buf;
        src.connect(out);
        src.start(t0 + n[1]);
        continue;
      }
      const [at, freq, length, wave, to] = n;
      const osc = ac.createOscillator();
      const env = ac.createGain();
      osc.type = wave;
      osc.frequency.setValueAtTime(freq, t0 + at);
      if (to) osc.frequency.exponentialRampToValueAtTime(to, t0 + at + length);
      env.gain.setValueAtTime(0.0001, t0 + at);
      env.gain.exponentialRampToValueAtTime(0.5, t0 + at + 0.01);
      env.gain.exponentialRampToValueAtTime(0.0001, t0 + at + length);
      osc.connect(env);
      env.connect(out);
      osc.start(t0 + at);
      osc.stop(t0 + at + length + 0.05);
    }
  }

  // ----- speech ---------------------------------------------------------------------------
  // Longer than any line takes (200 characters at most) with a few queued behind it: a voice still
  // "speaking" after this has hung, as some browsers' speech does, and would hold every later line.
  const STUCK_MS = 30000;
  let busySince = 0;
  const VOICE_FAILED = "The voice could not speak on this device. Lines are tried again as they come; " +
    "pick another voice in the list if it stays silent.";
  function say(text) {
    const synth = window.speechSynthesis;
    if (!synth || !window.SpeechSynthesisUtterance) return;
    try {
      if ((synth.speaking || synth.pending) && busySince && Date.now() - busySince > STUCK_MS) {
        synth.cancel();
        busySince = 0;
        report("voice", "The voice stopped answering and was restarted.");
      }
      const u = new SpeechSynthesisUtterance(text);
      u.lang = voiceLang();
      u.volume = Math.max(0, Math.min(1, prefs.volume));
      const voice = (synth.getVoices() || []).find(v => v.lang === u.lang);
      if (voice) u.voice = voice;
      u.onend = () => { busySince = 0; cleared("voice"); };
      u.onerror = e => {
        busySince = 0;
        if (e && (e.error === "interrupted" || e.error === "canceled")) return;  // cut short on purpose
        report("voice", VOICE_FAILED);
      };
      if (!busySince) busySince = Date.now();
      synth.speak(u);
    } catch (e) {
      report("voice", VOICE_FAILED);
    }
  }

  // ----- animation ------------------------------------------------------------------------
  function animate(name) {
    const board = document.getElementById("board") || document.querySelector("main");
    if (!board) return;
    const cls = "fx-" + name.replace(/[^a-z_]/g, "");
    board.classList.remove(cls);
    void board.getBoundingClientRect();  // restart the animation if it is already running
    board.classList.add(cls);
    setTimeout(() => board.classList.remove(cls), 1600);
  }

  // ----- playing one table's cues ----------------------------------------------------------
  // Whether another device plays the table's sound (a page with "Table speaker: on"): the panel says so.
  let tableSpeaker = false;
  // A phone at a table with a speaker plays only what is about its own player, unless asked for every move.
  function mine(msg) {
    return !isPlayer || !tableSpeaker || prefs.everyMove || (seat !== null && msg.seat === seat);
  }
  function play(msg) {
    if (!msg || !Array.isArray(msg.cues)) return;
    const heard = mine(msg);
    for (const cue of msg.cues) {
      if (!cue || typeof cue.kind !== "string") continue;
      if (!heard && (cue.kind === "sound" || cue.kind === "say")) continue;  // the table speaker says it
      try { playCue(cue); } catch (e) { /* one cue the device refuses must not silence the rest */ }
    }
    body.dataset.effectsPlayed = String(Number(body.dataset.effectsPlayed || 0) + 1);
  }
  function playCue(cue) {
    if (cue.kind === "vibrate") {
      const forMe = cue.value === "all" || (seat !== null && cue.seat === seat);
      if (isPlayer && forMe && prefs.vibrate && navigator.vibrate) navigator.vibrate(cue.ms || [200]);
    } else if (cue.kind === "animate") {
      animate(String(cue.value));
    } else if (prefs.sound && cue.kind === "sound") {
      playSound(String(cue.value), cue.volume);
    } else if (prefs.sound && cue.kind === "say") {
      say(String(cue.value));
    }
  }
  window.GKEffects = { play: play, prefs: prefs };

  // ----- the device's controls -------------------------------------------------------------
  function controls() {
    box = document.createElement("div");
    box.className = "fx-controls";
    box.id = "fx-controls";
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.id = "fx-sound";
    const label = () => {
      toggle.textContent = prefs.sound ? (isPlayer ? "Sound on" : "Table speaker: on") : (isPlayer ? "Sound off" : "Table speaker: off");
      toggle.setAttribute("aria-pressed", prefs.sound ? "true" : "false");
    };
    toggle.addEventListener("click", () => {
      prefs.sound = !prefs.sound;
      save();
      label();
      if (prefs.sound) { audio(); playSound("clear", 0.5); }  // a tap unlocks audio on phones
      if (!isPlayer && es) connect();  // the table speaker's switch: the phones learn of it
    });
    label();
    const vol = document.createElement("input");
    vol.type = "range"; vol.min = "0"; vol.max = "1"; vol.step = "0.05"; vol.value = String(prefs.volume);
    vol.id = "fx-volume";
    vol.setAttribute("aria-label", "Volume");
    vol.addEventListener("change", () => { prefs.volume = Number(vol.value); save(); });
    const lang = document.createElement("select");
    lang.id = "fx-lang";
    lang.setAttribute("aria-label", "Language of the voice");
    const fill = () => {
      const speaking = voiceLang();
      const langs = new Set([pageLang()]);
      for (const v of (window.speechSynthesis && speechSynthesis.getVoices()) || []) langs.add(v.lang);
      lang.textContent = "";
      for (const l of langs) {
        const o = document.createElement("option");
        o.value = l; o.textContent = "Voice: " + named(l);
        if (l === speaking) o.selected = true;
        lang.appendChild(o);
      }
    };
    fill();
    if (window.speechSynthesis) speechSynthesis.onvoiceschanged = fill;
    lang.addEventListener("change", () => { prefs.lang = lang.value; save(); voiceLang(); });
    box.append(toggle, vol, lang);
    if (isPlayer) {
      const vib = document.createElement("button");
      vib.type = "button";
      vib.id = "fx-vibrate";
      const vlabel = () => { vib.textContent = prefs.vibrate ? "Vibrate on my turn: on" : "Vibrate on my turn: off"; };
      vib.addEventListener("click", () => { prefs.vibrate = !prefs.vibrate; save(); vlabel(); });
      vlabel();
      box.append(vib);
      const every = document.createElement("button");
      every.type = "button";
      every.id = "fx-every";
      const elabel = () => {
        every.textContent = prefs.everyMove ? "Speak every move on this phone: on" : "Speak every move on this phone: off";
        every.setAttribute("aria-pressed", prefs.everyMove ? "true" : "false");
      };
      every.addEventListener("click", () => { prefs.everyMove = !prefs.everyMove; save(); elabel(); });
      elabel();
      const why = document.createElement("p");
      why.id = "fx-speaker-note";
      why.className = "fx-hint";
      why.textContent = "This table has a speaker: this phone says only what is for you (your turn, your pieces).";
      // In the page only while the table has a speaker: without one, a phone with sound on plays every line.
      speakerShown = on => {
        if (!on) { every.remove(); why.remove(); return; }
        if (every.isConnected) return;
        const note = box.querySelector(".fx-note");  // the device's fault notes stay last
        box.insertBefore(every, note);
        box.insertBefore(why, note);
      };
      speakerShown(tableSpeaker);
    }
    const where = document.querySelector("main") || body;
    where.appendChild(box);
  }

  function css() {
    const own = document.querySelector('script[src*="effects.js"]');
    if (!own) return;
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = own.src.replace(/effects\.js.*$/, "effects.css");
    document.head.appendChild(link);
  }

  let speakerShown = () => {};
  let es = null;
  function connect() {
    if (es) es.close();
    tableSpeaker = false;  // until the new stream says there is one (it says so first)
    body.dataset.tableSpeaker = "no";
    speakerShown(false);
    // A page that is the table speaker says so while its stream is open, so the players' phones know.
    es = new EventSource(!isPlayer && prefs.sound ? url + (url.includes("?") ? "&" : "?") + "speaker=1" : url);
    es.addEventListener("effects", e => { try { play(JSON.parse(e.data)); } catch (err) { /* a bad cue is skipped */ } });
    es.addEventListener("speaker", e => {
      try { tableSpeaker = JSON.parse(e.data).on === true; } catch (err) { return; }
      body.dataset.tableSpeaker = tableSpeaker ? "yes" : "no";
      speakerShown(tableSpeaker);
    });
    es.addEventListener("open", () => { body.dataset.effectsOpen = "yes"; });
    // Refused (an HTTP error ends an EventSource for good: the device's live pages, or the panel's, all
    // open): tried again later, or the page would play no cue until it was reloaded.
    const mine = es;
    es.addEventListener("error", () => {
      if (mine.readyState === EventSource.CLOSED) setTimeout(() => { if (es === mine) connect(); }, 5000);
    });
  }

  // The last seconds of an outcome window (the skull's fall, a trap's spring) tick on the table
  // speaker: countdown.js shows the window and tells each change of its number; this only listens.
  let lastTick = null;
  function countdownTick(e) {
    const left = e.detail;
    if (typeof left !== "number") { lastTick = null; return; }  // no window shown
    const second = Math.ceil(left);
    if (second >= 1 && second <= 3 && second !== lastTick) {
      lastTick = second;
      if (prefs.sound) playSound("tick", 0.6);
      body.dataset.effectsTicks = String(Number(body.dataset.effectsTicks || 0) + 1);
    }
  }

  css();
  controls();
  connect();
  // A phone waking from sleep may hold a dead stream (live.js): the cues of its next turn must reach it.
  if (window.GKLive && window.GKLive.onWake) window.GKLive.onWake(connect);
  document.addEventListener("gk-countdown", countdownTick);
})();
