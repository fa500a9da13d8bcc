// The game list: every game in the server's store, the most recent first,
// with a link to resume it in Play (#game=ID) and one to review it
// (#review=game-ID, the stored game as it stands).

import { api, plural, sentence } from "./api.js";

const $ = (id) => document.getElementById(id);
const PAGE_SIZE = 25;

function cell(row, text, cls, label) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  if (label) td.dataset.label = label; // shown before the value where the list is laid out as cards (phones)
  row.appendChild(td);
  return td;
}

function link(parent, href, text, cls) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  a.className = cls;
  parent.appendChild(a);
  return a;
}

function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
}

export class GameList {
  constructor() {
    this.offset = 0;
    this.total = 0;
    this.loading = false;
    $("games-more").addEventListener("click", () => this.load(true));
  }

  async load(more = false) {
    if (this.loading) return;
    this.loading = true;
    const body = $("games-table").tBodies[0];
    if (!more) this.offset = 0;
    $("games-message").textContent = "";
    try {
      const r = await api("GET", `/api/games?limit=${PAGE_SIZE}&offset=${this.offset}`);
      if (!more) body.textContent = "";
      for (const g of r.games) body.appendChild(this.row(g));
      this.offset += r.games.length;
      this.total = r.total;
      $("games-more").hidden = this.offset >= r.total;
      $("games-status").textContent = r.total
        ? `${plural(r.total, "game")}, the most recent first.`
        : "No games yet: start one in Play.";
      $("games").dataset.loaded = String(this.offset);
    } catch (e) {
      $("games-message").textContent = sentence(e.message);
    } finally {
      this.loading = false;
    }
  }

  row(g) {
    const tr = document.createElement("tr");
    tr.dataset.game = g.id;
    tr.dataset.phase = g.phase;
    cell(tr, when(g.created), "date");
    cell(tr, `${g.size}×${g.size}` + (g.handicap ? ` H${g.handicap}` : ""), "size");
    cell(tr, g.bot, "bot", "vs");
    cell(tr, g.human === "black" ? "Black" : "White", "you", "you:");
    const result = g.result || (g.phase === "scoring" ? "counting" : "in play");
    cell(tr, result, "result");
    cell(tr, String(g.moves), "moves", "moves:");
    const actions = cell(tr, "", "actions");
    link(actions, `#game=${g.id}`, g.phase === "over" ? "Open" : "Resume", "resume");
    link(actions, `#review=game-${g.id}`, "Review", "review");
    return tr;
  }
}
