// The page of `perft serve`: asks the server's JSON API for divides and for the descent to
// where the engine goes wrong, and shows them on the board.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  // The server's token, which its API asks of every request that counts: a page of another
  // site cannot read it from this page, so cannot send it.
  const token = document.querySelector('meta[name="perft-token"]').content;
  const api = (url, init) => {
    const o = init || {};
    return fetch(url, { ...o, headers: { ...(o.headers || {}), "X-Perft-Token": token } });
  };
  const state = {
    root: $("fen").value, // the position the moves start from
    chess960: false,
    played: [], // moves played from it, by clicking
    depth: 3,
    engine: null,
    maxDepth: 7,
    request: 0, // the number of the newest request; older answers are dropped
    last: null, // the last divide shown
  };

  function showError(message) {
    const e = $("error");
    e.textContent = message;
    e.hidden = !message;
  }

  function setStatus(text) {
    $("status").textContent = text || "";
  }

  function query(params) {
    const q = new URLSearchParams();
    q.set("fen", state.root);
    if (state.played.length) q.set("moves", state.played.join(" "));
    q.set("depth", String(params.depth));
    if (state.chess960) q.set("chess960", "1");
    return q.toString();
  }

  // Runs `GET url`, polling the progress meanwhile. Resolves to the JSON answer, or null when
  // a newer request replaced this one; rejects with the server's error message.
  async function ask(url, what) {
    const mine = ++state.request;
    showError("");
    $("cancel-button").disabled = false;
    setStatus(what + "...");
    const bar = $("progress");
    const timer = setInterval(async () => {
      try {
        const p = await (await api("/api/progress")).json();
        if (mine !== state.request || !p.running) return;
        setStatus(p.stage + " (" + p.seconds.toFixed(1) + " s)" + (p.cancelled ? ", cancelling" : ""));
        if (p.total > 0) {
          bar.hidden = false;
          bar.max = p.total;
          bar.value = p.done;
        }
      } catch (_) { /* the answer itself will tell */ }
    }, 250);
    try {
      let response;
      try {
        response = await api(url);
      } catch (e) {
        throw new Error("The server did not answer (is perft serve still running?)");
      }
      const body = exactJson(await response.text());
      if (mine !== state.request) return null;
      if (body === undefined) throw new Error("The server's answer could not be read (HTTP " + response.status + ")");
      if (response.status === 409) {
        setStatus("Cancelled.");
        return null;
      }
      if (!response.ok) throw new Error((body && body.error) || ("HTTP " + response.status));
      setStatus("");
      return { body };
    } catch (e) {
      // An error ends the request: the status no longer says it runs. The error of a request
      // a newer one replaced is not shown.
      if (mine !== state.request) return null;
      setStatus("");
      throw e;
    } finally {
      clearInterval(timer);
      if (mine === state.request) {
        bar.hidden = true;
        $("cancel-button").disabled = true;
      }
    }
  }

  // JSON with every integer of 16 digits or more read as a string: counts are exact at any
  // size, and a JavaScript number is not past 2^53. `undefined` if it is not JSON.
  function exactJson(text) {
    try {
      // Strings and numbers are matched whole, so only long integers outside strings are
      // quoted (not the digits of a string or of a fraction).
      return JSON.parse(text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g,
        (m) => (/^\d{16,}$/.test(m) ? '"' + m + '"' : m)));
    } catch (_) {
      return undefined;
    }
  }

  // A count with thousands separators (a number, or the digits of an exact one).
  function fmt(n) {
    if (n === null || n === undefined) return "";
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  function drawBoard(fen, arrows, inCheck) {
    PerftBoard.draw($("board"), fen, {
      arrows,
      check: inCheck ? PerftBoard.kingToMove(fen) : null,
    });
  }

  function drawPath() {
    const nav = $("path");
    nav.textContent = "";
    const steps = ["start"].concat(state.played);
    steps.forEach((name, i) => {
      if (i > 0) nav.appendChild(document.createTextNode("\u203A"));
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = name;
      b.dataset.ply = String(i);
      if (i === state.played.length) b.className = "current";
      b.title = i === 0 ? "Back to the position as given" : "Back to the position after " + name;
      b.addEventListener("click", () => {
        const back = state.played.length - i;
        if (back <= 0) return;
        state.played = state.played.slice(0, i);
        setDepth(state.depth + back);
        divide();
      });
      nav.appendChild(b);
    });
  }

  // Sets the depth counted, within what the server counts (from 1 to its --max-depth).
  function setDepth(d) {
    state.depth = Math.max(1, Math.min(state.maxDepth, d));
    $("depth").value = String(state.depth);
    $("depth-note").hidden = true;
  }

  // Takes the depth typed in the form, if it changed: one the server does not count is brought
  // within its range, and the page says so (a depth is never changed without a word).
  function takeDepth() {
    const raw = $("depth").value.trim();
    const asked = raw === "" ? NaN : Number(raw);
    if (asked === state.depth) return;
    setDepth(Number.isNaN(asked) ? 1 : Math.trunc(asked));
    if (!(Number.isInteger(asked) && asked >= 1 && asked <= state.maxDepth)) {
      const note = $("depth-note");
      note.textContent = (raw === "" ? "No depth given" : "Depth " + raw + " is not") +
        " a whole number from 1 to " + state.maxDepth + " (this server's --max-depth)" +
        ": counting at depth " + state.depth + ".";
      note.hidden = false;
    }
  }

  // Takes the result of the last count off the page, once it no longer stands for what was
  // asked (its position was refused).
  function clearResult() {
    state.last = null;
    $("divide").hidden = true;
    $("divide").querySelector("tbody").textContent = "";
    $("total").textContent = "";
    $("engine-total").textContent = "";
    $("summary").textContent = "";
    $("difference").hidden = true;
  }

  function showDivide(d) {
    state.last = d;
    drawBoard(d.fen, [], d.in_check);
    drawPath();
    const engine = d.engine_name !== null;
    document.querySelectorAll(".engine-col").forEach((e) => { e.hidden = !engine; });
    const body = $("divide").querySelector("tbody");
    body.textContent = "";
    let differing = 0;
    for (const row of d.moves) {
      const tr = document.createElement("tr");
      tr.dataset.move = row.move;
      const differs = engine && d.engine_error === null && row.nodes !== row.engine;
      if (differs) {
        tr.className = "differs";
        differing += 1;
      }
      for (const [text, cls] of [[row.move, ""], [fmt(row.nodes), "num"], [fmt(row.engine), "num engine-col"]]) {
        const td = document.createElement("td");
        td.textContent = row.nodes === null && cls === "num" ? "not legal" : text;
        if (cls) td.className = cls;
        if (cls.includes("engine-col")) td.hidden = !engine;
        tr.appendChild(td);
      }
      tr.addEventListener("mouseenter", () =>
        PerftBoard.setArrows($("board"), [{ move: row.move, kind: "hover" }]));
      tr.addEventListener("mouseleave", () => PerftBoard.setArrows($("board"), []));
      tr.addEventListener("click", () => play(row));
      body.appendChild(tr);
    }
    $("total").textContent = fmt(d.total);
    $("engine-total").textContent = fmt(d.engine_total);
    $("divide").hidden = false;
    let summary = d.moves.filter((r) => r.nodes !== null).length + " legal moves, " + fmt(d.total) +
      " nodes at depth " + d.depth + " in " + d.seconds.toFixed(3) + " s (" + d.mnps.toFixed(1) + " Mnps).";
    if (engine) {
      if (d.engine_error !== null) summary += " The engine failed: " + d.engine_error;
      else if (differing === 0 && d.engine_total === d.total) summary += " The engine agrees.";
      else summary += " The engine differs on " + differing + " move" + (differing === 1 ? "" : "s") +
        (d.engine_total === d.total ? "." : " (its total: " + fmt(d.engine_total) + ").");
    }
    $("summary").textContent = summary;
  }

  function play(row) {
    if (row.nodes === null) {
      showError(row.move + " is not a legal move here: only the engine lists it.");
      return;
    }
    state.played = state.played.concat([row.move]);
    setDepth(state.depth - 1);
    divide();
  }

  async function divide() {
    $("difference").hidden = true;
    let answer;
    try {
      answer = await ask("/api/divide?" + query({ depth: state.depth }), "Counting");
    } catch (e) {
      clearResult();
      showError(e.message);
      return;
    }
    if (answer) showDivide(answer.body);
  }

  async function findDifference() {
    let answer;
    try {
      answer = await ask("/api/diff?" + query({ depth: state.depth }), "Comparing with the engine");
    } catch (e) {
      showError(e.message);
      return;
    }
    if (!answer) return;
    const box = $("difference");
    box.hidden = false;
    const failure = answer.body;
    if (failure === null) {
      box.className = "agree";
      box.textContent = "No difference: the engine agrees with every count at depth " + state.depth + ".";
      return;
    }
    box.className = "";
    // Go to the position where the engine goes wrong: the moves up to it become the path.
    const extra = failure.moves.length - state.played.length;
    state.played = failure.moves.slice();
    setDepth(Math.max(1, state.depth - extra));
    PerftBoard.describeFailure(box, failure);
    $("divide").hidden = true;
    $("summary").textContent = "";
    drawBoard(failure.fen, PerftBoard.failureArrows(failure), failure.in_check);
    drawPath();
  }

  // Takes the form's depth and, if the FEN or the rules changed, its position (the moves
  // played are then forgotten; otherwise the count is of the position they lead to).
  function readForm() {
    const fen = $("fen").value.trim();
    if (fen !== state.root || $("chess960").checked !== state.chess960) {
      state.root = fen;
      state.chess960 = $("chess960").checked;
      state.played = [];
    }
    takeDepth();
  }

  $("setup").addEventListener("submit", (e) => {
    e.preventDefault();
    readForm();
    divide();
  });
  $("diff-button").addEventListener("click", () => {
    readForm();
    findDifference();
  });
  $("cancel-button").addEventListener("click", () => {
    api("/api/cancel", { method: "POST" }).catch(() => {});
    setStatus("Cancelling...");
  });
  $("preset").addEventListener("change", () => {
    const option = $("preset").selectedOptions[0];
    if (!option.value) {
      $("fen").focus();
      return;
    }
    $("fen").value = option.value;
    $("chess960").checked = option.dataset.chess960 === "1";
    state.played = [];
    readForm();
    divide();
  });
  $("depth").addEventListener("change", takeDepth);

  async function start() {
    try {
      const info = await (await api("/api/info")).json();
      state.engine = info.engine;
      state.maxDepth = info.max_depth;
      $("depth").max = String(info.max_depth);
      // The page's own first depth, within the server's range.
      setDepth(state.depth);
      if (info.engine) {
        $("engine-name").textContent = "comparing with: " + info.engine;
        $("diff-button").disabled = false;
        $("diff-button").title = "Descend to the position where the engine's moves differ";
      } else {
        $("engine-name").textContent = "no engine (start with --engine CMD to compare)";
      }
    } catch (_) {
      showError("The server did not answer (is perft serve still running?)");
    }
    state.root = null;
    readForm();
    drawBoard(state.root, [], false);
    drawPath();
    divide();
  }
  start();
})();
