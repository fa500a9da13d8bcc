// The page: two tabs, Play and Review. Play lives here; Review in review.js.

import { api, percent } from "./api.js";
import { Board } from "./board.js";
import { Review } from "./review.js";

const $ = (id) => document.getElementById(id);
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// ---------------------------------------------------------------- tabs

function showTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
  }
  for (const panel of document.querySelectorAll(".mode")) {
    panel.hidden = panel.id !== name;
  }
  document.body.dataset.tab = name;
}

// ---------------------------------------------------------------- play

class Play {
  constructor() {
    this.section = $("play");
    this.board = new Board($("play-board"), { onClick: (v) => this.move(v), label: "Game board" });
    this.board.setSize(9);
    this.game = null;
    this.busy = false;
    this.pollTimer = null;

    $("new-game").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.newGame();
    });
    $("opt-bot").addEventListener("change", () => this.showBotOptions());
    $("btn-pass").addEventListener("click", () => this.act("pass"));
    $("btn-undo").addEventListener("click", () => this.act("undo"));
    $("btn-hint").addEventListener("click", () => this.hint());
    $("btn-resign").addEventListener("click", () => {
      if (window.confirm("Resign this game?")) this.act("resign");
    });
    this.showBotOptions();
    this.loadModels();
  }

  showBotOptions() {
    const bot = $("opt-bot").value;
    for (const label of document.querySelectorAll(".bot-opt")) {
      label.hidden = label.dataset.for !== bot;
    }
  }

  async loadModels() {
    try {
      const info = await api("GET", "/api/bots");
      const list = $("models");
      for (const name of info.models || []) {
        const opt = document.createElement("option");
        opt.value = name;
        list.appendChild(opt);
      }
      if (info.models && info.models.length && !$("opt-model").value) $("opt-model").value = info.models[0];
      const rules = $("opt-rules");
      for (const name of info.rules || []) {
        if ([...rules.options].some((o) => o.value === name)) continue;
        const opt = document.createElement("option");
        opt.value = opt.textContent = name;
        rules.appendChild(opt);
      }
    } catch (e) {
      /* the list is a convenience only */
    }
  }

  settings() {
    const bot = $("opt-bot").value;
    const body = {
      size: Number($("opt-size").value),
      komi: Number($("opt-komi").value),
      handicap: Number($("opt-handicap").value),
      rules: $("opt-rules").value || "chinese",
      dead_stones: $("opt-dead-stones").value || "playouts",
      human: $("opt-color").value,
      bot,
      bot_options: {},
    };
    if (bot === "mcts") body.bot_options = { seconds: Number($("opt-seconds").value) };
    if (bot === "policy" && $("opt-model").value.trim()) body.bot_options = { model: $("opt-model").value.trim() };
    return body;
  }

  setBusy(busy, text) {
    this.busy = busy;
    this.section.dataset.busy = String(busy);
    if (text) $("play-status").textContent = text;
    this.updateButtons();
  }

  updateButtons() {
    const g = this.game;
    const yourTurn = !!g && !g.over && g.status === "your_turn" && !this.busy;
    $("btn-pass").disabled = !yourTurn;
    $("btn-resign").disabled = !yourTurn;
    $("btn-hint").disabled = !yourTurn;
    $("btn-undo").disabled = !g || this.busy || g.status === "bot_thinking" || g.moves.length === 0;
    $("btn-new").disabled = this.busy;
    this.board.setGhostColor(yourTurn ? g.human : null);
  }

  message(text) {
    $("play-message").textContent = text || "";
  }

  async newGame() {
    this.message("");
    this.stopPolling();
    this.setBusy(true, "Starting a new game…");
    try {
      this.show(await api("POST", "/api/games", this.settings()));
    } catch (e) {
      this.message(e.message);
      this.setBusy(false, this.game ? this.statusText(this.game) : "Choose the settings and start a new game.");
    }
  }

  async move(vertex) {
    const g = this.game;
    if (!g || this.busy) return;
    if (g.over) {
      this.message("The game is over. Start a new game to play again.");
      return;
    }
    if (g.status !== "your_turn") return;
    this.message("");
    this.setBusy(true, "Bot thinking…");
    this.board.preview(vertex, g.human);
    try {
      this.show(await api("POST", `/api/games/${g.id}/moves`, { vertex }));
    } catch (e) {
      this.show(g); // take the previewed stone away again
      this.message(e.status === 409 ? `Illegal move ${vertex}: ${e.message}` : e.message);
    }
  }

  async act(what) {
    const g = this.game;
    if (!g || this.busy) return;
    this.message("");
    this.setBusy(true, what === "pass" ? "Bot thinking…" : `${cap(what)}…`);
    try {
      this.show(await api("POST", `/api/games/${g.id}/${what}`));
    } catch (e) {
      this.message(e.message);
      this.setBusy(false, this.statusText(g));
    }
  }

  /** The bot's opinion of the position: top moves drawn on the board. */
  async hint() {
    const g = this.game;
    if (!g || this.busy || g.over) return;
    this.message("");
    this.setBusy(true, "Analyzing…");
    try {
      const a = await api("POST", "/api/analyze", { game: g.id, seconds: 1 });
      this.setBusy(false, this.statusText(g));
      if (this.game !== g) return;
      this.board.showAnalysis(a.top);
      $("play-status").textContent =
        `${this.statusText(g)} Win rate for ${cap(a.to_move)}: ${percent(a.winrate)} (${a.playouts} playouts).`;
    } catch (e) {
      this.message(e.message);
      this.setBusy(false, this.statusText(g));
    }
  }

  statusText(g) {
    if (g.over) return `Game over: ${resultText(g.result)}`;
    if (g.status === "bot_thinking") return "Bot thinking…";
    const last = g.last_move === "pass" ? " The bot passed." : "";
    return `Your turn (${cap(g.human)}).${last}`;
  }

  show(g) {
    this.game = g;
    this.board.render({
      board: g.board,
      last_move: g.last_move,
      dead: g.score ? g.score.dead : [],
      territory: g.score ? g.score.territory : null,
    });
    this.section.dataset.moves = String(g.moves.length);
    this.section.dataset.status = g.status;
    this.section.dataset.game = g.id;
    $("play-captures").textContent = `Black ${g.captures.black} · White ${g.captures.white}`;
    $("play-movecount").textContent = String(g.moves.length);

    const score = $("play-score");
    if (g.over) {
      score.hidden = false;
      score.textContent = g.score
        ? `Black ${g.score.black}, White ${g.score.white} (komi ${g.komi}, ${g.rules} rules): ${g.result}` +
          ` · dead stones by: ${g.score.dead_stones || g.dead_stones || "playouts"}`
        : `Result: ${g.result} (${resultText(g.result)})`;
    } else {
      score.hidden = true;
      score.textContent = "";
    }

    const link = $("play-sgf");
    link.href = `/api/games/${g.id}/sgf`;
    link.setAttribute("download", `fuseki-${g.id}.sgf`);
    link.hidden = false;

    this.setBusy(false, this.statusText(g));
    if (location.hash !== `#game=${g.id}`) history.replaceState(null, "", `#game=${g.id}`);
    if (g.status === "bot_thinking") this.poll();
  }

  /** Pick up a game from the address (#game=ID): a reload or a shared link. */
  async resume(id) {
    this.setBusy(true, "Loading the game…");
    try {
      this.show(await api("GET", `/api/games/${encodeURIComponent(id)}`));
    } catch (e) {
      this.message(e.message);
      this.setBusy(false, "Choose the settings and start a new game.");
    }
  }

  // The bot moves first (White with a handicap, or a human White) or is still
  // thinking after a reload: ask again until it is our turn.
  poll() {
    this.stopPolling();
    this.pollTimer = setTimeout(async () => {
      this.pollTimer = null;
      if (!this.game) return;
      try {
        this.show(await api("GET", `/api/games/${this.game.id}`));
      } catch (e) {
        this.message(e.message);
      }
    }, 400);
  }

  stopPolling() {
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }
}

/** "B+3.5" -> "Black wins by 3.5"; "W+R" -> "White wins by resignation". */
export function resultText(result) {
  if (!result) return "no result";
  const m = /^([BW])\+(.*)$/.exec(result);
  if (!m) return result === "0" || result === "Draw" ? "a draw" : result;
  const who = m[1] === "B" ? "Black" : "White";
  const how = m[2] === "R" || m[2] === "Resign" ? "resignation" : m[2] === "T" ? "time" : m[2];
  return `${who} wins by ${how}`;
}

// ---------------------------------------------------------------- start

const play = new Play();
const review = new Review();
for (const tab of document.querySelectorAll("[role=tab]")) {
  tab.addEventListener("click", () => showTab(tab.dataset.tab));
}
document.addEventListener("keydown", (ev) => {
  if (document.body.dataset.tab !== "review") return;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
  if (review.key(ev.key)) ev.preventDefault();
});
showTab(location.hash === "#review" ? "review" : "play");
const resumeId = /^#game=([\w-]+)$/.exec(location.hash);
if (resumeId) play.resume(resumeId[1]);
window.fuseki = { play, review }; // for the console and the browser tests
