// The report of `perft diff --html`: one section per position, and for each failure the board
// at the point of difference with the moves missed and invented drawn as arrows.
"use strict";

(() => {
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const root = document.getElementById("report");
  const add = (parent, tag, text, cls) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    parent.appendChild(e);
    return e;
  };
  add(root, "p", data.summary);
  // Each position's heading first, then its board (with whose move it is) beside the account
  // of the failure, so that a board is never read as the position above it.
  for (const p of data.positions) {
    const section = add(root, "section", undefined, "report-position");
    section.dataset.pass = String(p.pass);
    add(section, "h2", p.name + (p.pass ? ": passed" : ": failed"));
    const fen = add(section, "p");
    fen.appendChild(document.createTextNode("FEN: "));
    add(fen, "span", p.fen, "fen");
    if (!p.failure) continue;
    const row = add(section, "div", undefined, "report-row");
    const board = add(row, "div", undefined, "board");
    PerftBoard.draw(board, p.failure.fen, {
      arrows: PerftBoard.failureArrows(p.failure),
      check: p.failure.in_check ? PerftBoard.kingToMove(p.failure.fen) : null,
    });
    PerftBoard.describeFailure(add(row, "div"), p.failure);
  }
})();
