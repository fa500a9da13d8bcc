// SVG Go board for any size from 5 to 19. No dependencies, no build step.
//
// Coordinates (the same table as fuseki.go.coords):
//   vertex  "D4"   GTP: column letter A..T without I, row 1 at the *bottom*
//   (col, row)     0-based, col from the left, row from the *top*
//   board rows     the server's `board`: one string per row, top row first,
//                  "." empty, "X" black, "O" white
//
// The board draws: grid, star points, coordinates on all four sides, stones,
// a last-move marker, move numbers (optional), a hover ghost stone, a click
// target per point (the whole cell, so that small boards on phones stay easy
// to hit), and for the count dead-stone crosses, territory squares, dame dots,
// open-border marks and "?" on uncertain stones. An analysis overlay shows the
// top moves as labelled circles and an ownership heat map. Every drawn piece
// carries a `data-vertex` attribute and a class, so tests can find it.
//
// With `confirm` on (phones), the first tap on a point shows a candidate
// stone and only a second tap on it plays.

export const COLUMNS = "ABCDEFGHJKLMNOPQRST";
export const MIN_SIZE = 5;
export const MAX_SIZE = 19;

const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 40;
const PAD = 46; // room for the coordinates, clear of the edge stones
const LABEL = 16; // the coordinates' distance from the board's edge

/** Column letters for a board of `size`: columnLetters(9) === "ABCDEFGHJ". */
export function columnLetters(size) {
  checkSize(size);
  return COLUMNS.slice(0, size);
}

export function checkSize(size) {
  if (!Number.isInteger(size) || size < MIN_SIZE || size > MAX_SIZE) {
    throw new RangeError(`board size must be an integer from ${MIN_SIZE} to ${MAX_SIZE}, got ${size}`);
  }
  return size;
}

/** (col, row from the top) -> GTP vertex: toVertex(0, 8, 9) === "A1". */
export function toVertex(col, row, size) {
  checkSize(size);
  if (col < 0 || col >= size || row < 0 || row >= size) {
    throw new RangeError(`(${col}, ${row}) is off a ${size}x${size} board`);
  }
  return COLUMNS[col] + String(size - row);
}

/**
 * GTP vertex -> [col, row from the top], or null for "pass" / null.
 * fromVertex("A1", 9) -> [0, 8]; fromVertex("J9", 9) -> [8, 0].
 */
export function fromVertex(vertex, size) {
  checkSize(size);
  if (vertex == null) return null;
  const v = String(vertex).trim().toUpperCase();
  if (v === "PASS" || v === "") return null;
  const m = /^([A-HJ-T])(\d{1,2})$/.exec(v);
  if (!m) throw new RangeError(`not a vertex: ${vertex}`);
  const col = COLUMNS.indexOf(m[1]);
  const num = Number(m[2]);
  if (col >= size || num < 1 || num > size) {
    throw new RangeError(`${vertex} is off a ${size}x${size} board`);
  }
  return [col, size - num];
}

/**
 * Star points (hoshi) as [col, row] pairs. 19: the nine 4-4/4-10 points;
 * 13: 4-4 corners, sides and centre; 8..12: 3-3 corners (+ centre when odd);
 * 7: 3-3 corners; 5 and 6: the centre only when there is one.
 */
export function starPoints(size) {
  checkSize(size);
  const mid = (size - 1) / 2;
  const odd = size % 2 === 1;
  if (size < 7) return odd ? [[mid, mid]] : [];
  const edge = size >= 13 ? 3 : 2;
  const far = size - 1 - edge;
  const pts = [[edge, edge], [far, edge], [edge, far], [far, far]];
  if (odd && size >= 9) pts.push([mid, mid]);
  if (odd && size >= 15) pts.push([mid, edge], [mid, far], [edge, mid], [far, mid]);
  return pts;
}

/** Parse the server's rows ("top row first", ". X O") into a 2-D array of "", "black", "white". */
export function parseRows(rows, size) {
  checkSize(size);
  if (!Array.isArray(rows) || rows.length !== size) {
    throw new RangeError(`expected ${size} rows, got ${rows && rows.length}`);
  }
  return rows.map((line) => {
    const s = String(line).replace(/\s+/g, "");
    if (s.length !== size) throw new RangeError(`row of length ${s.length}, expected ${size}`);
    return Array.from(s, (ch) => (ch === "X" || ch === "x" ? "black" : ch === "O" || ch === "o" ? "white" : ""));
  });
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  }
  if (parent) parent.appendChild(node);
  return node;
}

function pct(x) {
  return `${Math.round(x * 100)}%`;
}

/** Short visit counts: 950 -> "950", 12345 -> "12k". */
export function shortCount(n) {
  if (n < 1000) return String(n);
  if (n < 10000) return `${(n / 1000).toFixed(1)}k`;
  return `${Math.round(n / 1000)}k`;
}

export class Board {
  /**
   * @param {HTMLElement} container  the element the <svg> goes into
   * @param {object} options  { onClick(vertex), label }
   */
  constructor(container, options = {}) {
    this.container = container;
    this.onClick = options.onClick || null;
    this.label = options.label || "Go board";
    this.size = 0;
    this.stones = [];
    this.ghostColor = null; // "black" | "white" | null: the hover stone
    this.svg = null;
    this.confirm = false; // tap twice to play
    this.candidate = null; // the vertex tapped once in confirm mode
  }

  /** Draw an empty board of `size` (grid, stars, coordinates, click targets). */
  setSize(size) {
    checkSize(size);
    this.size = size;
    this.stones = Array.from({ length: size }, () => Array(size).fill(""));
    const span = PAD * 2 + CELL * (size - 1);
    this.container.textContent = "";
    const svg = el("svg", {
      xmlns: SVG_NS,
      viewBox: `0 0 ${span} ${span}`,
      class: "board",
      role: "img",
      "aria-label": `${this.label}, ${size}x${size}`,
      "data-size": size,
    });
    this.svg = svg;
    el("rect", { x: 0, y: 0, width: span, height: span, class: "wood", rx: 6 }, svg);

    const grid = el("g", { class: "grid" }, svg);
    const lo = PAD;
    const hi = PAD + CELL * (size - 1);
    for (let i = 0; i < size; i++) {
      const p = PAD + CELL * i;
      el("line", { x1: lo, y1: p, x2: hi, y2: p }, grid);
      el("line", { x1: p, y1: lo, x2: p, y2: hi }, grid);
    }
    el("rect", { x: lo, y: lo, width: hi - lo, height: hi - lo, class: "edge" }, grid);
    for (const [c, r] of starPoints(size)) {
      el("circle", { cx: this.x(c), cy: this.y(r), r: 4, class: "star" }, grid);
    }

    const coords = el("g", { class: "coords" }, svg);
    const letters = columnLetters(size);
    for (let i = 0; i < size; i++) {
      const p = PAD + CELL * i;
      for (const y of [LABEL, span - LABEL]) {
        const t = el("text", { x: p, y, class: "coord col" }, coords);
        t.textContent = letters[i];
      }
      for (const x of [LABEL, span - LABEL]) {
        const t = el("text", { x, y: p, class: "coord row" }, coords);
        t.textContent = String(size - i);
      }
    }

    this.ownershipLayer = el("g", { class: "ownership-layer" }, svg);
    this.stoneLayer = el("g", { class: "stone-layer" }, svg);
    // Above the stones: territory squares also sit on dead stones.
    this.territoryLayer = el("g", { class: "territory-layer" }, svg);
    this.markLayer = el("g", { class: "mark-layer" }, svg);
    this.analysisLayer = el("g", { class: "analysis-layer" }, svg);
    this.ghost = el("circle", { r: CELL * 0.46, class: "ghost", visibility: "hidden" }, svg);

    const hits = el("g", { class: "hit-layer" }, svg);
    for (let r = 0; r < size; r++) {
      for (let c = 0; c < size; c++) {
        const v = toVertex(c, r, size);
        const hit = el("rect", {
          x: this.x(c) - CELL / 2,
          y: this.y(r) - CELL / 2,
          width: CELL,
          height: CELL,
          class: "pt",
          "data-vertex": v,
        }, hits);
        hit.addEventListener("mouseenter", () => this.showGhost(c, r));
        hit.addEventListener("mouseleave", () => this.hideGhost());
        hit.addEventListener("click", (ev) => {
          ev.preventDefault();
          this.tap(v, c, r);
        });
      }
    }
    this.container.appendChild(svg);
  }

  x(col) {
    return PAD + CELL * col;
  }

  y(row) {
    return PAD + CELL * row;
  }

  /** A click or tap on a point: play it, or in confirm mode show it first and play on the second tap. */
  tap(v, c, r) {
    if (this.confirm && this.ghostColor && !this.stones[r][c] && this.candidate !== v) {
      this.candidate = v;
      this.showGhost(c, r, true);
      return;
    }
    this.candidate = null;
    this.hideGhost();
    if (this.onClick) this.onClick(v);
  }

  showGhost(c, r, candidate = false) {
    if (this.candidate && !candidate) return; // keep the candidate shown while the mouse moves on
    if (!this.ghostColor || this.stones[r][c]) return;
    this.ghost.setAttribute("cx", this.x(c));
    this.ghost.setAttribute("cy", this.y(r));
    this.ghost.setAttribute("class", `ghost ${this.ghostColor}${candidate ? " candidate" : ""}`);
    this.ghost.setAttribute("data-vertex", toVertex(c, r, this.size));
    this.ghost.setAttribute("visibility", "visible");
  }

  hideGhost() {
    if (this.candidate) return;
    if (this.ghost) this.ghost.setAttribute("visibility", "hidden");
  }

  clearCandidate() {
    this.candidate = null;
    this.hideGhost();
  }

  setGhostColor(color) {
    this.ghostColor = color || null;
    if (!this.ghostColor) this.hideGhost();
  }

  /**
   * Draw a position.
   * @param {object} pos  { board: rows, last_move, dead: [vertex], territory: {black, white},
   *                        dame: [vertex], open: [vertex], uncertain: [vertex], numbers: {vertex: n} }
   */
  render(pos) {
    const size = pos.board.length;
    if (size !== this.size) this.setSize(size);
    this.stones = parseRows(pos.board, size);
    this.stoneLayer.textContent = "";
    this.markLayer.textContent = "";
    this.territoryLayer.textContent = "";
    this.clearAnalysis();
    this.clearOwnership();
    this.candidate = null;
    this.hideGhost();

    const dead = new Set((pos.dead || []).map((v) => String(v).toUpperCase()));
    for (let r = 0; r < size; r++) {
      for (let c = 0; c < size; c++) {
        const color = this.stones[r][c];
        if (!color) continue;
        const v = toVertex(c, r, size);
        const isDead = dead.has(v);
        el("circle", {
          cx: this.x(c),
          cy: this.y(r),
          r: CELL * 0.47,
          class: `stone ${color}${isDead ? " dead-stone" : ""}`,
          "data-vertex": v,
        }, this.stoneLayer);
      }
    }

    for (const v of dead) {
      const cr = safeVertex(v, size);
      if (!cr) continue;
      const [c, r] = cr;
      const d = CELL * 0.22;
      const g = el("g", { class: "dead", "data-vertex": v }, this.markLayer);
      el("line", { x1: this.x(c) - d, y1: this.y(r) - d, x2: this.x(c) + d, y2: this.y(r) + d }, g);
      el("line", { x1: this.x(c) - d, y1: this.y(r) + d, x2: this.x(c) + d, y2: this.y(r) - d }, g);
    }

    const territory = pos.territory || {};
    for (const color of ["black", "white"]) {
      for (const v of territory[color] || []) {
        const cr = safeVertex(v, size);
        if (!cr) continue;
        const [c, r] = cr;
        const s = CELL * 0.32;
        el("rect", {
          x: this.x(c) - s / 2,
          y: this.y(r) - s / 2,
          width: s,
          height: s,
          class: `territory ${color}`,
          "data-vertex": String(v).toUpperCase(),
        }, this.territoryLayer);
      }
    }

    for (const v of pos.dame || []) {
      const cr = safeVertex(v, size);
      if (!cr) continue;
      el("circle", { cx: this.x(cr[0]), cy: this.y(cr[1]), r: CELL * 0.09, class: "dame", "data-vertex": v },
        this.territoryLayer);
    }
    for (const v of pos.open || []) {
      const cr = safeVertex(v, size);
      if (!cr) continue;
      const s = CELL * 0.3;
      el("rect", {
        x: this.x(cr[0]) - s / 2, y: this.y(cr[1]) - s / 2, width: s, height: s,
        transform: `rotate(45 ${this.x(cr[0])} ${this.y(cr[1])})`, class: "open", "data-vertex": v,
      }, this.territoryLayer);
    }
    for (const v of pos.uncertain || []) {
      const cr = safeVertex(v, size);
      if (!cr) continue;
      const under = this.stones[cr[1]][cr[0]];
      const t = el("text", { x: this.x(cr[0]), y: this.y(cr[1]), class: `uncertain on-${under || "empty"}`,
        "data-vertex": v }, this.markLayer);
      t.textContent = "?";
    }

    const numbers = pos.numbers || {};
    for (const [v, n] of Object.entries(numbers)) {
      const cr = safeVertex(v, size);
      if (!cr) continue;
      const under = this.stones[cr[1]][cr[0]];
      if (!under) continue;
      const t = el("text", {
        x: this.x(cr[0]), y: this.y(cr[1]), class: `move-number on-${under}${n >= 100 ? " small" : ""}`,
        "data-vertex": v, "data-n": n,
      }, this.markLayer);
      t.textContent = String(n);
    }

    const last = safeVertex(pos.last_move, size);
    if (last && !numbers[toVertex(last[0], last[1], size)]) {
      const [c, r] = last;
      const under = this.stones[r][c];
      el("circle", {
        cx: this.x(c),
        cy: this.y(r),
        r: CELL * 0.2,
        class: `last-move on-${under || "empty"}`,
        "data-vertex": toVertex(c, r, size),
      }, this.markLayer);
    }
  }

  /** Show the player's stone at once, while the server answers (class "pending"). */
  preview(vertex, color) {
    const cr = safeVertex(vertex, this.size);
    if (!cr || this.stones[cr[1]][cr[0]]) return;
    const [c, r] = cr;
    el("circle", {
      cx: this.x(c),
      cy: this.y(r),
      r: CELL * 0.47,
      class: `stone ${color} pending`,
      "data-vertex": vertex,
    }, this.stoneLayer);
  }

  clearAnalysis() {
    if (this.analysisLayer) this.analysisLayer.textContent = "";
  }

  clearOwnership() {
    if (this.ownershipLayer) this.ownershipLayer.textContent = "";
  }

  /**
   * The ownership heat map: a square on each point, black or white, as opaque as the owner is sure
   * (+1 Black's, -1 White's; points below 0.1 either way are left clear).
   * @param {number[][]} own  one row per board row, top first
   */
  showOwnership(own) {
    this.clearOwnership();
    if (!own || own.length !== this.size) return;
    const s = CELL * 0.9;
    for (let r = 0; r < this.size; r++) {
      for (let c = 0; c < this.size; c++) {
        const x = own[r][c];
        if (x == null || Math.abs(x) < 0.1) continue;
        el("rect", {
          x: this.x(c) - s / 2, y: this.y(r) - s / 2, width: s, height: s, rx: 3,
          class: `own ${x > 0 ? "black" : "white"}`,
          "fill-opacity": (0.15 + 0.55 * Math.min(1, Math.abs(x))).toFixed(2),
          "data-vertex": toVertex(c, r, this.size), "data-own": x,
        }, this.ownershipLayer);
      }
    }
  }

  /**
   * Overlay the bot's top moves: a circle per move, the best one highlighted,
   * labelled with its win rate (for the side to move) and its visit count.
   * @param {Array<{vertex, visits, winrate}>} top
   */
  showAnalysis(top) {
    this.clearAnalysis();
    const size = this.size;
    const moves = (top || []).filter((m) => safeVertex(m.vertex, size));
    const maxVisits = Math.max(1, ...moves.map((m) => m.visits || 0));
    moves.forEach((m, i) => {
      const [c, r] = safeVertex(m.vertex, size);
      const v = toVertex(c, r, size);
      const g = el("g", {
        class: `analysis${i === 0 ? " best" : ""}`,
        "data-vertex": v,
        "data-visits": m.visits,
        "data-winrate": m.winrate,
      }, this.analysisLayer);
      const strength = 0.35 + 0.65 * ((m.visits || 0) / maxVisits);
      el("circle", {
        cx: this.x(c),
        cy: this.y(r),
        r: CELL * 0.46,
        "fill-opacity": strength.toFixed(2),
      }, g);
      const wr = el("text", { x: this.x(c), y: this.y(r) - 3, class: "wr" }, g);
      wr.textContent = m.winrate == null ? "" : pct(m.winrate);
      const vis = el("text", { x: this.x(c), y: this.y(r) + 11, class: "visits" }, g);
      vis.textContent = shortCount(m.visits || 0);
      const title = el("title", {}, g);
      title.textContent = `${v}: ${m.visits} visits` + (m.winrate == null ? "" : `, win rate ${(m.winrate * 100).toFixed(1)}%`);
    });
  }
}

function safeVertex(v, size) {
  try {
    return fromVertex(v, size);
  } catch (e) {
    return null;
  }
}
