// The board: drawn as SVG from a FEN's piece placement, with highlighted squares and arrows.
// Shared by the page of `perft serve` and the report of `perft diff --html`.
"use strict";

const PerftBoard = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const SIZE = 45;
  // The filled glyphs for both sides (white ones are filled white and outlined), each followed
  // by U+FE0E so that no font draws the pawn as an emoji.
  const GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
  const NAME = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
  const COLORS = { missed: "#1f9d3a", invented: "#d0312d", hover: "#2f6fde", follow: "#b07c00" };

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (parent) parent.appendChild(e);
    return e;
  }

  // "e4" -> [file 0..7, rank 0..7], or null.
  function square(name) {
    if (!/^[a-h][1-8]$/.test(name || "")) return null;
    return [name.charCodeAt(0) - 97, name.charCodeAt(1) - 49];
  }

  // The 64 squares of a FEN's first field: map "e2" -> "P".
  function placement(fen) {
    const pieces = {};
    const rows = String(fen || "").trim().split(/\s+/)[0].split("/");
    rows.forEach((row, i) => {
      let file = 0;
      for (const c of row) {
        if (/[1-8]/.test(c)) file += Number(c);
        else {
          if (file < 8 && i < 8) pieces[String.fromCharCode(97 + file) + (8 - i)] = c;
          file += 1;
        }
      }
    });
    return pieces;
  }

  // The centre of a square in board coordinates.
  function centre(sq, flipped) {
    const [f, r] = sq;
    const x = flipped ? 7 - f : f;
    const y = flipped ? r : 7 - r;
    return [x * SIZE + SIZE / 2, y * SIZE + SIZE / 2];
  }

  // Draws `fen` into `container` (replacing what it held). Options: `arrows`, a list of
  // {move: "e2e4", kind: "missed" | "invented" | "hover" | "follow"}; `highlight`, squares to
  // mark; `check`, the square of a king in check; `flipped`, Black at the bottom.
  function draw(container, fen, options) {
    const o = options || {};
    const flipped = !!o.flipped;
    container.textContent = "";
    const svg = el("svg", {
      viewBox: `0 0 ${8 * SIZE} ${8 * SIZE}`,
      class: "board-svg",
      role: "img",
      "data-fen": fen,
    }, container);
    el("title", {}, svg).textContent = "Board: " + fen;
    const defs = el("defs", {}, svg);
    for (const [kind, color] of Object.entries(COLORS)) {
      const m = el("marker", {
        id: "head-" + kind, viewBox: "0 0 10 10", refX: 5, refY: 5,
        markerWidth: 3, markerHeight: 3, orient: "auto",
      }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", fill: color }, m);
    }
    const marked = new Set(o.highlight || []);
    for (let r = 0; r < 8; r++) {
      for (let f = 0; f < 8; f++) {
        const name = String.fromCharCode(97 + f) + (r + 1);
        const [cx, cy] = centre([f, r], flipped);
        let fill = (f + r) % 2 === 0 ? "#b58863" : "#f0d9b5";
        if (marked.has(name)) fill = (f + r) % 2 === 0 ? "#aaa23a" : "#cdd26a";
        if (o.check === name) fill = "#e06666";
        el("rect", {
          x: cx - SIZE / 2, y: cy - SIZE / 2, width: SIZE, height: SIZE, fill,
          "data-square": name, class: "square",
        }, svg);
      }
    }
    for (let i = 0; i < 8; i++) {
      const file = String.fromCharCode(97 + (flipped ? 7 - i : i));
      const rank = String(flipped ? i + 1 : 8 - i);
      el("text", { x: i * SIZE + SIZE - 3, y: 8 * SIZE - 3, class: "coord", "text-anchor": "end" }, svg)
        .textContent = file;
      el("text", { x: 2, y: i * SIZE + 10, class: "coord" }, svg).textContent = rank;
    }
    for (const [name, c] of Object.entries(placement(fen))) {
      const sq = square(name);
      const kind = c.toLowerCase();
      if (!sq || !GLYPH[kind]) continue;
      const white = c !== kind;
      const [cx, cy] = centre(sq, flipped);
      const t = el("text", {
        x: cx, y: cy + SIZE * 0.33, "text-anchor": "middle",
        class: "piece " + (white ? "white" : "black"),
        "data-square": name, "data-piece": c,
      }, svg);
      t.textContent = GLYPH[kind] + "\uFE0E";
      el("title", {}, t).textContent = (white ? "white " : "black ") + NAME[kind] + " on " + name;
    }
    const arrows = el("g", { class: "arrows" }, svg);
    for (const a of o.arrows || []) arrow(arrows, a, flipped);
    // Whose move it is, which the pieces alone do not show.
    const side = sideToMove(fen);
    const caption = document.createElement("p");
    caption.className = "to-move";
    caption.dataset.side = side;
    caption.textContent = (side === "w" ? "White" : "Black") + " to move" +
      (o.check ? ", in check" : "");
    container.appendChild(caption);
    return svg;
  }

  // "w" or "b": the side to move of `fen`.
  function sideToMove(fen) {
    return (String(fen).trim().split(/\s+/)[1] || "w") === "b" ? "b" : "w";
  }

  function arrow(parent, a, flipped) {
    const from = square(a.move.slice(0, 2));
    const to = square(a.move.slice(2, 4));
    if (!from || !to) return;
    const kind = COLORS[a.kind] ? a.kind : "hover";
    const [x1, y1] = centre(from, flipped);
    const [x2, y2] = centre(to, flipped);
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    // Stop short of the centre, so the head sits inside the target square.
    const ex = x2 - ((x2 - x1) / len) * SIZE * 0.3;
    const ey = y2 - ((y2 - y1) / len) * SIZE * 0.3;
    el("line", {
      x1, y1, x2: ex, y2: ey, stroke: COLORS[kind], "stroke-width": SIZE * 0.16,
      "stroke-linecap": "round", opacity: 0.8, "marker-end": `url(#head-${kind})`,
      class: "arrow " + kind, "data-move": a.move, "data-kind": kind,
    }, parent);
  }

  // Replaces the arrows of a board drawn by `draw`.
  function setArrows(container, arrows, flipped) {
    const g = container.querySelector("g.arrows");
    if (!g) return;
    g.textContent = "";
    for (const a of arrows || []) arrow(g, a, !!flipped);
  }

  // The square of the king of the side to move, for the check mark.
  function kingToMove(fen) {
    const side = sideToMove(fen) === "w" ? "K" : "k";
    for (const [name, c] of Object.entries(placement(fen))) if (c === side) return name;
    return null;
  }

  // The arrows of a failure of `perft diff` (the `failure` object of its JSON): the moves the
  // engine missed and those it invented.
  function failureArrows(failure) {
    return [
      ...(failure.missed || []).map((m) => ({ move: m.move, kind: "missed" })),
      ...(failure.invented || []).map((m) => ({ move: m.move, kind: "invented" })),
    ];
  }

  function html(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  // Writes the account of a failure into `container`: where it is, what kind, the moves missed
  // and invented with their kinds, and the descent as `perft diff` prints it.
  function describeFailure(container, failure) {
    container.textContent = "";
    const where = failure.moves && failure.moves.length
      ? "after " + failure.moves.join(" ") : "at the root";
    container.appendChild(html("h2", "The engine goes wrong " + where));
    const p = html("p");
    p.appendChild(html("span", "Kind: " + failure.category + ". Position: "));
    p.appendChild(html("span", failure.fen, "fen"));
    container.appendChild(p);
    if (failure.in_check) container.appendChild(html("p", "The side to move is in check."));
    for (const [kind, label] of [["missed", "Missed by the engine"], ["invented", "Invented by the engine"]]) {
      const moves = failure[kind] || [];
      if (!moves.length) continue;
      container.appendChild(html("h3", label + " (" + moves.length + ")"));
      const ul = html("ul", undefined, kind);
      for (const m of moves) {
        const li = html("li", m.move + " (" + m.kind + ")", kind);
        li.dataset.move = m.move;
        ul.appendChild(li);
      }
      container.appendChild(ul);
    }
    if (failure.error) container.appendChild(html("p", "The engine failed: " + failure.error));
    if (failure.text && failure.text.length) container.appendChild(html("pre", failure.text.join("\n")));
  }

  return { draw, setArrows, placement, kingToMove, failureArrows, describeFailure, COLORS };
})();
