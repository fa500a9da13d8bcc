// Review: load an SGF, step through it, ask the bot about a position, and
// draw a win-rate graph over the whole game.

import { api, percent } from "./api.js";
import { Board } from "./board.js";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";

export class Review {
  constructor() {
    this.section = $("review");
    this.board = new Board($("review-board"), { label: "Review board" });
    this.board.setSize(19);
    this.review = null; // {id, size, komi, moves, count, ...}
    this.n = 0;
    this.positions = new Map(); // n -> position JSON
    this.winrates = null;
    this.request = 0; // the latest position request; older answers are dropped

    $("load-sgf").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.load();
    });
    $("nav-first").addEventListener("click", () => this.go(0));
    $("nav-prev").addEventListener("click", () => this.go(this.n - 1));
    $("nav-next").addEventListener("click", () => this.go(this.n + 1));
    $("nav-last").addEventListener("click", () => this.go(this.count()));
    $("btn-analyze").addEventListener("click", () => this.analyze());
    $("btn-graph").addEventListener("click", () => this.graph());
  }

  count() {
    return this.review ? this.review.count : 0;
  }

  message(text) {
    $("review-message").textContent = text || "";
  }

  /** Arrow keys: true when the key was used. */
  key(key) {
    if (!this.review) return false;
    const to = { ArrowLeft: this.n - 1, ArrowRight: this.n + 1, Home: 0, End: this.count() }[key];
    if (to === undefined) return false;
    this.go(to);
    return true;
  }

  async load() {
    this.message("");
    const file = $("sgf-file").files[0];
    const text = $("sgf-text").value.trim();
    let body;
    if (file) {
      body = new FormData();
      body.append("file", file, file.name);
    } else if (text) {
      body = { sgf: text };
    } else {
      this.message("Choose an SGF file or paste SGF text first.");
      return;
    }
    $("btn-load").disabled = true;
    try {
      const r = await api("POST", "/api/reviews", body);
      this.review = r;
      this.positions.clear();
      this.winrates = null;
      this.cursor = null;
      this.graphX = null;
      this.n = -1;
      $("sgf-file").value = "";
      this.section.dataset.review = r.id;
      this.section.dataset.count = String(r.count);
      const players = [r.black && `Black: ${r.black}`, r.white && `White: ${r.white}`].filter(Boolean).join(", ");
      $("review-info").textContent =
        `${r.size}×${r.size}, komi ${r.komi}, ${r.count} moves` + (players ? ` · ${players}` : "") + (r.result ? ` · ${r.result}` : "");
      const repairs = $("review-repairs");
      repairs.replaceChildren(...(r.warnings || []).map((w) => Object.assign(document.createElement("li"), { textContent: w })));
      repairs.hidden = !(r.warnings || []).length;
      $("winrate-graph").hidden = true;
      $("winrate-graph").textContent = "";
      $("analysis").textContent = "";
      this.board.setSize(r.size);
      await this.go(0);
    } catch (e) {
      this.message(e.status === 413 ? `The file is too large: ${e.message}` : e.message);
    } finally {
      $("btn-load").disabled = false;
    }
  }

  async position(n) {
    let pos = this.positions.get(n);
    if (!pos) {
      pos = await api("GET", `/api/reviews/${this.review.id}/positions/${n}`);
      this.positions.set(n, pos);
    }
    return pos;
  }

  async go(n) {
    if (!this.review) return;
    n = Math.max(0, Math.min(this.count(), n));
    if (n === this.n) return;
    const ticket = ++this.request;
    let pos;
    try {
      pos = await this.position(n);
    } catch (e) {
      this.message(e.message);
      return;
    }
    if (ticket !== this.request) return; // a later step won
    this.n = n;
    this.current = pos;
    this.section.dataset.n = String(n);
    this.board.render({ board: pos.board, last_move: pos.last_move });
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
  }

  async analyze() {
    if (!this.review) return;
    const n = this.n;
    const seconds = Number($("analyze-seconds").value) || 1;
    this.message("");
    $("btn-analyze").disabled = true;
    $("analysis").textContent = "Thinking…";
    this.section.dataset.analyzing = "true";
    try {
      const a = await api("POST", "/api/analyze", { review: this.review.id, n, seconds });
      if (n !== this.n) return; // the user moved on
      this.board.showAnalysis(a.top);
      const best = a.top && a.top[0];
      $("analysis").textContent =
        `${cap(a.to_move)} to play: win rate ${percent(a.winrate)} after ${a.playouts} playouts` +
        (best ? `; best ${best.vertex} (${best.visits} visits, ${percent(best.winrate)})` : "");
    } catch (e) {
      $("analysis").textContent = "";
      this.message(e.message);
    } finally {
      this.section.dataset.analyzing = "false";
      $("btn-analyze").disabled = false;
    }
  }

  async graph() {
    if (!this.review) return;
    const playouts = Number($("graph-playouts").value) || 200;
    this.message("");
    $("btn-graph").disabled = true;
    const box = $("winrate-graph");
    box.hidden = false;
    box.textContent = `Computing the win rate of ${this.count() + 1} positions…`;
    const id = this.review.id;
    try {
      const r = await api("POST", `/api/reviews/${id}/winrates`, { playouts });
      if (!this.review || this.review.id !== id) return;
      this.winrates = r.winrates;
      this.drawGraph();
    } catch (e) {
      box.hidden = true;
      this.message(e.message);
    } finally {
      $("btn-graph").disabled = false;
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
    svg.setAttribute("aria-label", "Black's win rate over the game; click to jump to a move");
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
    // The line, broken where a position has no value (the game was over).
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

  markGraph() {
    if (!this.cursor || !this.graphX) return;
    const xx = this.graphX(this.n);
    this.cursor.setAttribute("x1", xx);
    this.cursor.setAttribute("x2", xx);
  }
}

function cap(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : "";
}
