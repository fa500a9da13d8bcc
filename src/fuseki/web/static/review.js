// Review: load an SGF (or open a stored game), step through it, see the
// engine's top moves and ownership for each position as you step, and draw a
// win-rate graph over the whole game with its biggest drops marked.
//
// Stepping never waits: each press moves the target position at once and
// steps from the target, not from the last position drawn, so quick presses
// are never lost; the latest answer wins. An analysis in flight is aborted as
// soon as the position changes (the server stops it too: same channel).

import { api, percent, plural, sentence } from "./api.js";
import { Board } from "./board.js";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";
/** Wait this long on a position before analysing it, so that holding an arrow key does not start a search a step. */
const ANALYZE_DELAY_MS = 150;

export class Review {
  constructor(options = {}) {
    this.section = $("review");
    this.channel = `${options.channel || "review"}-review`;
    this.numbers = options.numbers || null;
    this.board = new Board($("review-board"), { label: "Review board" });
    this.board.setSize(19);
    this.review = null; // {id, size, komi, moves, count, ...}
    this.n = -1; // the position drawn
    this.target = 0; // the position asked for last
    this.positions = new Map(); // n -> position JSON
    this.winrates = null;
    this.request = 0; // the latest position request; older answers are dropped
    this.analysisCtl = null;
    this.analysisTimer = null;
    this.graphCtl = null;
    this.analyses = 0; // analyses shown: for the tests

    $("load-sgf").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.load();
    });
    // One input at a time: choosing a file clears the pasted text, typing clears the chosen file.
    $("sgf-file").addEventListener("change", () => {
      const file = $("sgf-file").files[0];
      if (file) {
        $("sgf-text").value = "";
        this.source(`Load will read the file ${file.name}.`);
      }
    });
    $("sgf-text").addEventListener("input", () => {
      if ($("sgf-text").value.trim()) {
        $("sgf-file").value = "";
        this.source("Load will read the pasted SGF.");
      } else {
        this.source("");
      }
    });
    $("nav-first").addEventListener("click", () => this.go(0));
    $("nav-prev").addEventListener("click", () => this.go(this.target - 1));
    $("nav-next").addEventListener("click", () => this.go(this.target + 1));
    $("nav-last").addEventListener("click", () => this.go(this.count()));
    $("btn-analyze").addEventListener("click", () => this.analyze(false));
    $("btn-graph").addEventListener("click", () => this.graph());
    $("analyze-live").addEventListener("change", () => {
      if ($("analyze-live").checked) this.analyzeSoon();
      else this.stopAnalysis(true);
    });
    $("show-ownership").addEventListener("change", () => {
      if (!$("show-ownership").checked) this.board.clearOwnership();
      else if (this.lastAnalysis && this.lastAnalysis.n === this.n) this.board.showOwnership(this.lastAnalysis.ownership);
    });
    if (this.numbers) this.numbers.addEventListener("change", () => this.current && this.draw(this.n, this.current));
  }

  count() {
    return this.review ? this.review.count : 0;
  }

  message(text) {
    $("review-message").textContent = text ? sentence(text) : "";
  }

  source(text) {
    $("sgf-source").textContent = text || "";
  }

  /** Arrow keys: true when the key was used. Steps go from the position asked for last. */
  key(key) {
    if (!this.review) return false;
    const to = { ArrowLeft: this.target - 1, ArrowRight: this.target + 1, Home: 0, End: this.count() }[key];
    if (to === undefined) return false;
    this.go(to);
    return true;
  }

  /** Load the chosen file or the pasted text (whichever the player filled in last). */
  async load() {
    this.message("");
    const file = $("sgf-file").files[0];
    const text = $("sgf-text").value.trim();
    let body;
    let what;
    if (file) {
      body = new FormData();
      body.append("file", file, file.name);
      what = `the file ${file.name}`;
    } else if (text) {
      body = { sgf: text };
      what = "the pasted SGF";
    } else {
      this.message("Choose an SGF file or paste SGF text first.");
      return;
    }
    $("btn-load").disabled = true;
    try {
      const r = await api("POST", "/api/reviews", body);
      $("sgf-file").value = "";
      this.source(`Loaded ${what}.`);
      this.setup(r);
      history.replaceState(null, "", `#review=${r.id}`);
    } catch (e) {
      const why = e.status === 413 ? `it is too large: ${e.message}` : e.message;
      this.message(`Could not load ${what}: ${why}`);
    } finally {
      $("btn-load").disabled = false;
    }
  }

  /** Open a review by its id: an upload's, or `game-ID` for a stored game (the address #review=ID). */
  async open(id) {
    this.message("");
    try {
      this.setup(await api("GET", `/api/reviews/${encodeURIComponent(id)}`));
      $("load-box").open = false;
    } catch (e) {
      this.message(e.message);
    }
  }

  setup(r) {
    this.stopAnalysis(true);
    if (this.graphCtl) this.graphCtl.abort();
    this.review = r;
    this.positions.clear();
    this.winrates = null;
    this.cursor = null;
    this.graphX = null;
    this.lastAnalysis = null;
    this.current = null;
    this.n = -1;
    this.target = 0;
    this.section.dataset.review = r.id;
    this.section.dataset.count = String(r.count);
    const players = [r.black && `Black: ${r.black}`, r.white && `White: ${r.white}`].filter(Boolean).join(", ");
    $("review-info").textContent =
      `${r.size}×${r.size}, komi ${r.komi}, ${plural(r.count, "move")}` + (players ? ` · ${players}` : "") +
      (r.result ? ` · ${r.result}` : "");
    const repairs = $("review-repairs");
    repairs.replaceChildren(...(r.warnings || []).map((w) => Object.assign(document.createElement("li"), { textContent: w })));
    repairs.hidden = !(r.warnings || []).length;
    $("winrate-graph").hidden = true;
    $("winrate-graph").textContent = "";
    $("graph-note").hidden = true;
    $("mistakes").hidden = true;
    $("mistakes").textContent = "";
    $("analysis").textContent = "";
    this.board.setSize(r.size);
    this.go(0);
  }

  async position(n) {
    let pos = this.positions.get(n);
    if (!pos) {
      pos = await api("GET", `/api/reviews/${encodeURIComponent(this.review.id)}/positions/${n}`);
      this.positions.set(n, pos);
    }
    return pos;
  }

  async go(n) {
    if (!this.review) return;
    n = Math.max(0, Math.min(this.count(), n));
    this.target = n;
    this.section.dataset.target = String(n);
    if (n === this.n) return;
    this.stopAnalysis(false);
    const ticket = ++this.request;
    let pos;
    try {
      pos = await this.position(n);
    } catch (e) {
      if (ticket === this.request) this.message(e.message);
      return;
    }
    if (ticket !== this.request) return; // a later step won
    this.draw(n, pos);
  }

  draw(n, pos) {
    this.n = n;
    this.current = pos;
    this.section.dataset.n = String(n);
    const numbers = this.numbers && this.numbers.checked ? moveNumbersOf(this.review.moves, n) : null;
    this.board.render({ board: pos.board, last_move: pos.last_move, numbers });
    const mv = n > 0 ? this.review.moves[n - 1] : null;
    const moveText = mv ? ` · ${mv.color === "black" ? "B" : "W"} ${mv.vertex}` : "";
    $("review-pos").textContent = `Move ${n} / ${this.count()}${moveText} · ${cap(pos.to_move)} to play`;
    $("review-captures").textContent = `Black ${pos.captures.black} · White ${pos.captures.white}`;
    $("review-comment").textContent = pos.comment || "";
    $("analysis").textContent = "";
    $("nav-first").disabled = $("nav-prev").disabled = n === 0;
    $("nav-next").disabled = $("nav-last").disabled = n === this.count();
    $("btn-analyze").disabled = false;
    $("btn-graph").disabled = false;
    this.markGraph();
    if (this.lastAnalysis && this.lastAnalysis.n === n) this.showAnalysis(this.lastAnalysis);
    else if ($("analyze-live").checked) this.analyzeSoon();
  }

  // ---- analysis of the shown position

  analyzeSoon() {
    clearTimeout(this.analysisTimer);
    this.analysisTimer = setTimeout(() => this.analyze(true), ANALYZE_DELAY_MS);
  }

  /** Abort the analysis in flight (the server stops it too); `tell` also asks the server to stop at once. */
  stopAnalysis(tell) {
    clearTimeout(this.analysisTimer);
    this.analysisTimer = null;
    if (this.analysisCtl) {
      this.analysisCtl.abort();
      this.analysisCtl = null;
      if (tell) api("DELETE", `/api/analyze/${this.channel}`).catch(() => {});
    }
    this.section.dataset.analyzing = "false";
  }

  seconds() {
    const raw = $("analyze-seconds").value.trim();
    const x = Number(raw);
    if (raw === "" || !Number.isFinite(x) || x <= 0 || x > 10) {
      throw new Error(`Seconds must be more than 0 and at most 10, not ${raw === "" ? "empty" : raw}`);
    }
    return x;
  }

  async analyze(auto) {
    if (!this.review || this.n < 0) return;
    let seconds;
    try {
      seconds = this.seconds();
    } catch (e) {
      if (!auto) this.message(e.message);
      $("analysis").textContent = "No analysis: " + e.message.charAt(0).toLowerCase() + e.message.slice(1) + ".";
      return;
    }
    const n = this.n;
    const id = this.review.id;
    this.stopAnalysis(false);
    const ctl = (this.analysisCtl = new AbortController());
    if (!auto) this.message("");
    $("analysis").textContent = "Thinking…";
    this.section.dataset.analyzing = "true";
    try {
      const a = await api("POST", "/api/analyze", { review: id, n, seconds, channel: this.channel }, { signal: ctl.signal });
      if (ctl !== this.analysisCtl || n !== this.n || !this.review || this.review.id !== id) return;
      this.lastAnalysis = { ...a, n };
      this.analyses += 1;
      this.showAnalysis(this.lastAnalysis);
    } catch (e) {
      if (e.aborted || ctl !== this.analysisCtl) return;
      if (e.status === 409 && /over/.test(e.message)) $("analysis").textContent = "No analysis: the game is over at this position.";
      else {
        $("analysis").textContent = "";
        this.message(e.message);
      }
    } finally {
      if (ctl === this.analysisCtl) {
        this.analysisCtl = null;
        this.section.dataset.analyzing = "false";
      }
    }
  }

  showAnalysis(a) {
    this.board.showAnalysis(a.top);
    if ($("show-ownership").checked) this.board.showOwnership(a.ownership);
    const best = a.top && a.top[0];
    $("analysis").textContent =
      `${cap(a.to_move)} to play: win rate ${percent(a.winrate)} after ${a.playouts} playouts` +
      (best ? `; best ${best.vertex} (${best.visits} visits, ${percent(best.winrate)})` : "");
    this.section.dataset.analyzed = String(a.n);
  }

  // ---- the win-rate graph

  async graph() {
    if (!this.review) return;
    const raw = $("graph-playouts").value.trim();
    const playouts = Number(raw);
    if (!Number.isInteger(playouts) || playouts < 1 || playouts > 5000) {
      this.message(`Playouts must be a whole number from 1 to 5000, not ${raw === "" ? "empty" : raw}`);
      return;
    }
    this.message("");
    if (this.graphCtl) this.graphCtl.abort();
    const ctl = (this.graphCtl = new AbortController());
    $("btn-graph").disabled = true;
    const box = $("winrate-graph");
    box.hidden = false;
    box.textContent = `Computing the win rate of ${plural(this.count() + 1, "position")}…`;
    const id = this.review.id;
    try {
      const r = await api("POST", `/api/reviews/${encodeURIComponent(id)}/winrates`, { playouts, channel: this.channel },
        { signal: ctl.signal });
      if (!this.review || this.review.id !== id || ctl !== this.graphCtl) return;
      this.winrates = r.winrates;
      this.mistakes = r.mistakes || [];
      const note = $("graph-note");
      note.hidden = false;
      note.textContent = r.capped
        ? `Capped: ${r.playouts} playouts a position, not the ${r.requested_playouts} asked for ` +
          `(the server spends at most ${r.cap.total.toLocaleString("en")} playouts and ${r.cap.seconds} s on a graph).`
        : `${r.playouts} playouts a position.`;
      note.dataset.capped = String(!!r.capped);
      this.drawGraph();
      this.listMistakes();
    } catch (e) {
      if (e.aborted) return;
      box.hidden = true;
      this.message(e.message);
    } finally {
      if (ctl === this.graphCtl) {
        this.graphCtl = null;
        $("btn-graph").disabled = false;
      }
    }
  }

  drawGraph() {
    const box = $("winrate-graph");
    box.textContent = "";
    const w = this.winrates || [];
    const W = 320, H = 140, L = 30, R = 8, T = 8, B = 20;
    const last = Math.max(1, w.length - 1);
    const x = (i) => L + ((W - L - R) * i) / last;
    const y = (p) => T + (H - T - B) * (1 - p);
    const svg = document.createElementNS(SVG_NS, "svg");
    const add = (name, attrs, parent = svg) => {
      const node = document.createElementNS(SVG_NS, name);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
      parent.appendChild(node);
      return node;
    };
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("class", "winrate-plot");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "Black's win rate over the game, mistakes marked; click to jump to a move");
    add("rect", { x: L, y: T, width: W - L - R, height: H - T - B, class: "plot-bg" });
    for (const p of [0, 0.5, 1]) {
      add("line", { x1: L, x2: W - R, y1: y(p), y2: y(p), class: p === 0.5 ? "half" : "axis" });
      const t = add("text", { x: L - 4, y: y(p) + 4, class: "tick", "text-anchor": "end" });
      t.textContent = `${p * 100}%`;
    }
    const xt = add("text", { x: W - R, y: H - 4, class: "tick", "text-anchor": "end" });
    xt.textContent = `move ${w.length - 1}`;
    const x0 = add("text", { x: L, y: H - 4, class: "tick" });
    x0.textContent = "0";
    // The line, broken where a position has no value.
    let d = "";
    let pen = false;
    w.forEach((p, i) => {
      if (p == null) {
        pen = false;
        return;
      }
      d += `${pen ? "L" : "M"}${x(i).toFixed(1)},${y(p).toFixed(1)} `;
      pen = true;
    });
    add("path", { d: d.trim(), class: "winrate-line" });
    w.forEach((p, i) => {
      if (p == null) return;
      add("circle", { cx: x(i), cy: y(p), r: 1.6, class: "winrate-dot", "data-n": i });
    });
    // The biggest drops: a red bar from the win rate before the move to the one after it.
    for (const m of this.mistakes || []) {
      const before = w[m.n - 1];
      const after = w[m.n];
      if (before == null || after == null) continue;
      add("line", { x1: x(m.n), x2: x(m.n), y1: y(before), y2: y(after), class: "mistake-bar", "data-n": m.n });
      add("circle", { cx: x(m.n), cy: y(after), r: 3.2, class: "mistake", "data-n": m.n });
    }
    this.cursor = add("line", { x1: 0, x2: 0, y1: T, y2: H - B, class: "cursor" });
    const label = add("text", { x: L + 4, y: T + 12, class: "tick legend" });
    label.textContent = "Black's win rate";
    svg.addEventListener("click", (ev) => {
      const rect = svg.getBoundingClientRect();
      const vx = ((ev.clientX - rect.left) / rect.width) * W;
      const i = Math.round(((vx - L) / (W - L - R)) * last);
      this.go(Math.max(0, Math.min(last, i)));
    });
    this.graphX = x;
    box.appendChild(svg);
    box.hidden = false;
    this.markGraph();
  }

  listMistakes() {
    const list = $("mistakes");
    list.textContent = "";
    const found = this.mistakes || [];
    list.hidden = found.length === 0;
    for (const m of found) {
      const mv = this.review.moves[m.n - 1];
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "mistake-link";
      b.dataset.n = String(m.n);
      b.textContent = `Move ${m.n} · ${mv.color === "black" ? "B" : "W"} ${mv.vertex} · −${Math.round(m.drop * 100)}%`;
      b.addEventListener("click", () => this.go(m.n));
      li.appendChild(b);
      list.appendChild(li);
    }
  }

  markGraph() {
    if (!this.cursor || !this.graphX || this.n < 0) return;
    const xx = this.graphX(this.n);
    this.cursor.setAttribute("x1", xx);
    this.cursor.setAttribute("x2", xx);
  }
}

function moveNumbersOf(moves, n) {
  const out = {};
  for (let i = 0; i < n && i < moves.length; i++) {
    const v = moves[i].vertex;
    if (v && v !== "pass") out[v] = i + 1;
  }
  return out;
}

function cap(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : "";
}
