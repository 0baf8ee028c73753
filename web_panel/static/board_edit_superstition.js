/* The Superstition board editor: how many spaces each path has, where each trap's platform is entered
 * and left, the Graves' front spaces, the gate and the start circles. The board's drawing positions are
 * laid out again from these (two rings round the Wizard's Tomb), as the board page draws them. */
(function () {
  "use strict";
  const E = window.GKEditors;
  const FIELDS = [
    ["brick", "Spaces on the brick path", "brick_path"],
    ["stone", "Spaces on the stone path", "stone_path"],
    ["gate", "The gate is brick space number", "gate"],
    ["ladder_in", "The Ladder is entered from brick space number", "platforms.ladder.brick_entrance"],
    ["ladder_out", "The Ladder leads onto stone space number", "platforms.ladder.stone_exit"],
    ["mirror_in", "The Mirror is entered from brick space number", "platforms.mirror.brick_entrance"],
    ["mirror_out", "The Mirror leads onto stone space number", "platforms.mirror.stone_exit"],
    ["grave1", "The first Grave stands in front of stone space number", "platforms.grave1.front"],
    ["grave2", "The second Grave stands in front of stone space number", "platforms.grave2.front"],
  ];

  // Points round a square ring, starting at the middle of its bottom side and going left (clockwise on screen).
  function ring(n, lo, hi, startSide) {
    const side = hi - lo, per = 4 * side, out = [];
    for (let i = 0; i < n; i++) {
      let d = (startSide + i * per / n) % per;
      let x, y;
      if (d < side) { x = hi - d; y = hi; }
      else if (d < 2 * side) { x = lo; y = hi - (d - side); }
      else if (d < 3 * side) { x = lo + (d - 2 * side); y = lo; }
      else { x = hi; y = lo + (d - 3 * side); }
      out.push([Math.round(x), Math.round(y)]);
    }
    return out;
  }

  E["superstition-board"] = function (root, doc, changed) {
    const at = (path, id) => path.indexOf(id) + 1;
    const P = doc.platforms;
    const model = {
      brick: doc.brick_path.length, stone: doc.stone_path.length, gate: at(doc.brick_path, doc.gate),
      ladder_in: at(doc.brick_path, P.ladder.brick_entrance), ladder_out: at(doc.stone_path, P.ladder.stone_exit),
      mirror_in: at(doc.brick_path, P.mirror.brick_entrance), mirror_out: at(doc.stone_path, P.mirror.stone_exit),
      grave1: at(doc.stone_path, P.grave1.front), grave2: at(doc.stone_path, P.grave2.front),
      colours: Object.keys(doc.start_circles).join(", "),
    };
    E.hint(root, "Count the spaces on your board: the brick path round the outside from the gate, " +
      "the stone path inside it from the space the Ladder leads onto. Numbers start at 1.");
    const box = document.createElement("div");
    box.className = "fields";
    root.appendChild(box);
    const inputs = {};
    for (const [key, words, entry] of FIELDS) {
      const label = document.createElement("label");
      label.textContent = words + " ";
      const input = document.createElement("input");
      input.type = "number"; input.min = "1"; input.max = "200"; input.value = model[key];
      input.id = "sup-" + key; input.dataset.entry = entry;
      input.addEventListener("change", () => { model[key] = Math.floor(Number(input.value) || 0); build(); });
      label.appendChild(input);
      box.appendChild(label);
      inputs[key] = label;
    }
    const cl = document.createElement("label");
    cl.textContent = "Start circles (colours, in order) ";
    const ci = document.createElement("input");
    ci.id = "sup-colours"; ci.value = model.colours; ci.dataset.entry = "start_circles";
    ci.addEventListener("change", () => { model.colours = ci.value; build(); });
    cl.appendChild(ci);
    box.appendChild(cl);
    inputs.colours = cl;

    function build() {
      const spaces = {};
      const brick = [], stone = [];
      ring(Math.max(model.brick, 0), 100, 900, 400).forEach(([x, y], i) => {
        spaces["b" + i] = { kind: "brick", x, y }; brick.push("b" + i);
      });
      ring(Math.max(model.stone, 0), 300, 700, 600).forEach(([x, y], i) => {
        spaces["s" + i] = { kind: "stone", x, y }; stone.push("s" + i);
      });
      const colours = model.colours.split(",").map(s => s.trim()).filter(Boolean);
      const circles = {};
      colours.forEach((c, i) => {
        circles[c] = "start." + c;
        spaces["start." + c] = { kind: "circle", x: 350 + i * 100, y: 990 };
      });
      for (const [id, x, y, kind] of [["ladder", 200, 500, "platform"], ["mirror", 800, 500, "platform"],
                                      ["grave1", 500, 385, "platform"], ["grave2", 500, 615, "platform"],
                                      ["tomb.north", 500, 445, "tomb_side"], ["tomb.south", 500, 555, "tomb_side"]]) {
        spaces[id] = { kind, x, y };
      }
      const b = n => "b" + (n - 1), s = n => "s" + (n - 1);
      doc.spaces = spaces;
      doc.brick_path = brick;
      doc.stone_path = stone;
      doc.gate = b(model.gate);
      doc.start_circles = circles;
      doc.platforms = {
        ladder: { kind: "ladder_mirror", space: "ladder", brick_entrance: b(model.ladder_in), stone_exit: s(model.ladder_out) },
        mirror: { kind: "ladder_mirror", space: "mirror", brick_entrance: b(model.mirror_in), stone_exit: s(model.mirror_out) },
        grave1: { kind: "grave", space: "grave1", front: s(model.grave1), tomb_side: "tomb.north" },
        grave2: { kind: "grave", space: "grave2", front: s(model.grave2), tomb_side: "tomb.south" },
      };
      changed();
    }

    return {
      mark(where, message) {
        const entry = (where && where.entry) || "";
        let label = null;
        for (const [key, , e] of FIELDS) if (entry === e || entry.startsWith(e + ".")) label = inputs[key];
        if (!label && entry.startsWith("start_circles")) label = inputs.colours;
        if (!label && entry.startsWith("spaces.start")) label = inputs.colours;
        // The loader's plain reason names spaces by their numbers on the path, as these fields do.
        E.note(label, message);
      },
    };
  };
})();
