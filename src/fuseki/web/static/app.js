// The page: three tabs, Play, Games and Review, and the address that names
// what is shown (#game=ID, #games, #review=ID). Play lives here; Review in
// review.js, the game list in games.js.

import { api, percent, plural, sentence } from "./api.js";
import { Board } from "./board.js";
import { GameList } from "./games.js";
import { Review } from "./review.js";
import { StoneSound } from "./sound.js";

const $ = (id) => document.getElementById(id);
const cap = (s) => (s ? s.charAt(0).toUpperCase() + s.slice(1) : "");

/** Every request of this page's analyses names this channel: a new one cancels the one before. */
const PAGE = Math.random().toString(36).slice(2, 10);
/** How often a game in progress is read again, so that a second window on it stays in step (ms). */
const SYNC_MS = 2000;

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

// ---------------------------------------------------------------- options shared by the boards

/** A checkbox whose state is kept in localStorage. */
function keptCheckbox(id, key, fallback) {
  const box = $(id);
  let value = fallback;
  try {
    const saved = localStorage.getItem(key);
    if (saved !== null) value = saved === "on";
  } catch (e) {
    /* no storage */
  }
  box.checked = value;
  box.addEventListener("change", () => {
    try {
      localStorage.setItem(key, box.checked ? "on" : "off");
    } catch (e) {
      /* not kept */
    }
  });
  return box;
}

/** Move numbers for a position: vertex -> the number of the last move played there. */
export function moveNumbers(moves, upTo = moves.length) {
  const out = {};
  for (let i = 0; i < upTo && i < moves.length; i++) {
    const v = moves[i].vertex;
    if (v && v !== "pass" && v !== "resign") out[v] = i + 1;
  }
  return out;
}

// ---------------------------------------------------------------- clock

/** 75.4 -> "1:15"; 3725 -> "1:02:05". */
function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds - 1e-6));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** One side's clock as shown `elapsed` seconds after the server's view of it (main time, then byo-yomi periods). */
export function sideClock(clock, color, elapsed) {
  const side = clock[color];
  let main = side.main;
  let periods = side.periods;
  let left = side.period_left;
  if (clock.running === color && !clock.flagged) {
    let over = 0;
    if (main > 0) {
      if (elapsed <= main) main -= elapsed;
      else {
        over = elapsed - main;
        main = 0;
        left = clock.byoyomi;
      }
    } else {
      over = elapsed;
    }
    if (over > 0) {
      if (clock.byoyomi > 0 && periods > 0) {
        // Used up periods are lost; a move within the current one keeps it.
        if (over >= left) {
          over -= left;
          periods -= 1;
          const lost = Math.floor(over / clock.byoyomi);
          periods -= lost;
          left = clock.byoyomi - (over - lost * clock.byoyomi);
        } else {
          left -= over;
        }
      } else {
        periods = 0;
      }
    }
  }
  const out = clock.flagged === color || (main <= 0 && periods <= 0);
  let text;
  if (out) text = clock.flagged === color ? "time ran out" : "0:00";
  else if (main > 0 || clock.periods === 0) text = clockText(main) + (clock.periods ? ` + ${periods}×${clockText(clock.byoyomi)}` : "");
  else text = `${periods}×${clockText(clock.byoyomi)} (${clockText(left)})`;
  return { text, out, running: clock.running === color && !clock.flagged, low: !out && main <= 0 };
}

// ---------------------------------------------------------------- play

class FormError extends Error {
  constructor(message, field) {
    super(message);
    this.field = field;
  }
}

class Play {
  constructor(sound, numbers) {
    this.section = $("play");
    this.sound = sound;
    this.numbers = numbers;
    this.board = new Board($("play-board"), { onClick: (v) => this.click(v), label: "Game board" });
    this.board.setSize(9);
    this.game = null;
    this.busy = false;
    this.pollTimer = null;
    this.syncing = false;
    this.komiTouched = false;
    this.defaults = { komi: { chinese: 7.5, japanese: 6.5, "tromp-taylor": 7.5, book: 7.5, gnugo: 7.5 }, handicapKomi: 0.5 };
    this.hintCtl = null;

    $("new-game").addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.newGame();
    });
    $("opt-bot").addEventListener("change", () => this.showBotOptions());
    $("opt-clock").addEventListener("change", () => this.showClockOptions());
    $("opt-komi").addEventListener("input", () => {
      this.komiTouched = true;
    });
    for (const id of ["opt-rules", "opt-handicap"]) $(id).addEventListener("change", () => this.followKomi());
    $("opt-handicap").addEventListener("input", () => this.followKomi());
    $("btn-pass").addEventListener("click", () => this.act("pass"));
    $("btn-undo").addEventListener("click", () => this.act("undo"));
    $("btn-hint").addEventListener("click", () => this.hint());
    $("btn-resign").addEventListener("click", () => {
      if (window.confirm("Resign this game?")) this.act("resign");
    });
    $("btn-accept").addEventListener("click", () => this.act("accept"));
    $("btn-resume").addEventListener("click", () => this.act("resume"));
    this.numbers.addEventListener("change", () => this.game && this.draw(this.game));
    const confirmBox = keptCheckbox("opt-confirm", "fuseki.confirm", window.matchMedia("(pointer: coarse)").matches);
    this.board.confirm = confirmBox.checked;
    confirmBox.addEventListener("change", () => {
      this.board.confirm = confirmBox.checked;
      this.board.clearCandidate();
    });
    this.showBotOptions();
    this.showClockOptions();
    this.loadChoices();
    // A second window (or tab) on the same game: read the game again now and then, and when the page comes back.
    setInterval(() => this.sync(), SYNC_MS);
    document.addEventListener("visibilitychange", () => this.sync());
    window.addEventListener("focus", () => this.sync());
    setInterval(() => this.drawClock(), 250);
  }

  showBotOptions() {
    const bot = $("opt-bot").value;
    for (const label of document.querySelectorAll(".bot-opt")) {
      label.hidden = !label.dataset.for.split(" ").includes(bot);
    }
  }

  showClockOptions() {
    const on = $("opt-clock").checked;
    for (const label of document.querySelectorAll(".clock-opt")) label.hidden = !on;
  }

  defaultKomi() {
    const rules = $("opt-rules").value || "chinese";
    const handicap = Number($("opt-handicap").value);
    if (Number.isInteger(handicap) && handicap >= 2) return this.defaults.handicapKomi;
    return this.defaults.komi[rules] ?? 7.5;
  }

  /** The komi field follows the rules and the handicap until the player changes it. */
  followKomi() {
    if (!this.komiTouched) $("opt-komi").value = String(this.defaultKomi());
  }

  async loadChoices() {
    try {
      const info = await api("GET", "/api/bots");
      const list = $("models");
      for (const name of info.models || []) {
        const opt = document.createElement("option");
        opt.value = name;
        list.appendChild(opt);
      }
      // No model filled in: the server plays the shipped network of the game's size (9x9 and 19x19 each have one).
      const rules = $("opt-rules");
      for (const name of info.rules || []) {
        if ([...rules.options].some((o) => o.value === name)) continue;
        const opt = document.createElement("option");
        opt.value = opt.textContent = name;
        rules.appendChild(opt);
      }
      const bots = $("opt-bot");
      for (const b of info.bots || []) {
        let opt = [...bots.options].find((o) => o.value === b.name);
        if (!opt) {
          opt = document.createElement("option");
          opt.value = opt.textContent = b.name;
          bots.appendChild(opt);
        }
        if (b.help) opt.title = b.help;
      }
      if (info.komi) this.defaults.komi = info.komi;
      if (info.handicap_komi != null) this.defaults.handicapKomi = info.handicap_komi;
      this.followKomi();
      if (this.game) this.fillForm(this.game);
    } catch (e) {
      /* the lists are a convenience only */
    }
  }

  /** The new game's settings from the form, every field the chosen options use checked; throws FormError. */
  settings() {
    const num = (id, what, { min, max, whole = true, step = null }) => {
      const raw = $(id).value.trim();
      const x = Number(raw);
      if (raw === "" || !Number.isFinite(x)) throw new FormError(`${what} must be a number`, id);
      if (whole && !Number.isInteger(x)) throw new FormError(`${what} must be a whole number`, id);
      if (step && Math.round(x / step) * step !== x) throw new FormError(`${what} must be a multiple of ${step}`, id);
      if (x < min || x > max) throw new FormError(`${what} must be from ${min} to ${max}, not ${raw}`, id);
      return x;
    };
    const bot = $("opt-bot").value;
    const body = {
      size: num("opt-size", "Size", { min: 5, max: 19 }),
      handicap: num("opt-handicap", "Handicap", { min: 0, max: 9 }),
      rules: $("opt-rules").value || "chinese",
      dead_stones: $("opt-dead-stones").value || "playouts",
      human: $("opt-color").value,
      bot,
      bot_options: {},
    };
    // Komi only when the player chose one: otherwise the server gives the rule set's (0.5 with handicap).
    if (this.komiTouched) body.komi = num("opt-komi", "Komi", { min: -100, max: 100, whole: false, step: 0.5 });
    if (bot === "mcts" || bot === "mcts-book") {
      body.bot_options = { seconds: num("opt-seconds", "Seconds per move", { min: 0.1, max: 10, whole: false }) };
    }
    if (bot === "policy" && $("opt-model").value.trim()) body.bot_options = { model: $("opt-model").value.trim() };
    if ($("opt-clock").checked) {
      const main = num("opt-main", "Minutes each", { min: 0, max: 180, whole: false }) * 60;
      const byoyomi = num("opt-byoyomi", "Byo-yomi seconds", { min: 0, max: 600 });
      const periods = num("opt-periods", "Periods", { min: 0, max: 30 });
      if ((byoyomi > 0) !== (periods > 0)) throw new FormError("Byo-yomi seconds and periods go together: both above 0, or both 0", "opt-periods");
      if (main <= 0 && periods === 0) throw new FormError("A clock needs some time: minutes, or byo-yomi periods", "opt-main");
      body.clock = { main, byoyomi, periods };
    }
    return body;
  }

  /** Show a game's settings in the form: after a reload the form says what this game is. */
  fillForm(g) {
    $("opt-size").value = String(g.size);
    $("opt-rules").value = g.rules;
    $("opt-handicap").value = String(g.handicap);
    $("opt-dead-stones").value = g.dead_stones || "playouts";
    $("opt-color").value = g.human;
    const bots = $("opt-bot");
    if (![...bots.options].some((o) => o.value === g.bot)) {
      const opt = document.createElement("option");
      opt.value = opt.textContent = g.bot;
      bots.appendChild(opt);
    }
    bots.value = g.bot;
    const opts = g.bot_options || {};
    if (opts.seconds != null) $("opt-seconds").value = String(opts.seconds);
    if (opts.model) $("opt-model").value = opts.model;
    $("opt-komi").value = String(g.komi);
    this.komiTouched = g.komi !== this.defaultKomi();
    $("opt-clock").checked = !!g.clock;
    if (g.clock) {
      $("opt-main").value = String(g.clock.main / 60);
      $("opt-byoyomi").value = String(g.clock.byoyomi);
      $("opt-periods").value = String(g.clock.periods);
    }
    this.showBotOptions();
    this.showClockOptions();
  }

  setBusy(busy, text) {
    this.busy = busy;
    this.section.dataset.busy = String(busy);
    if (text) $("play-status").textContent = text;
    this.updateButtons();
  }

  updateButtons() {
    const g = this.game;
    const yourTurn = !!g && g.status === "your_turn" && !this.busy;
    const scoring = !!g && g.status === "scoring";
    $("btn-pass").disabled = !yourTurn;
    $("btn-resign").disabled = !yourTurn;
    $("btn-hint").disabled = !yourTurn;
    $("btn-undo").disabled = !g || this.busy || g.status === "bot_thinking" || !g.can_undo;
    $("btn-accept").disabled = !scoring || this.busy;
    $("btn-resume").disabled = !scoring || this.busy;
    $("btn-new").disabled = this.busy;
    this.board.setGhostColor(yourTurn ? g.human : null);
  }

  message(text) {
    $("play-message").textContent = text ? sentence(text) : "";
  }

  async newGame() {
    this.message("");
    let body;
    try {
      body = this.settings();
    } catch (e) {
      if (!(e instanceof FormError)) throw e;
      this.message(`Not started: ${e.message}.`);
      const field = $(e.field);
      if (field) field.focus();
      return;
    }
    this.stopPolling();
    this.setBusy(true, "Starting a new game…");
    try {
      this.show(await api("POST", "/api/games", body));
      $("new-game-box").open = false;
    } catch (e) {
      this.message(e.message);
      this.setBusy(false, this.game ? this.statusText(this.game) : "Choose the settings and start a new game.");
    }
  }

  /** A click on the board: a move, or in the scoring phase a group marked dead or alive. */
  click(vertex) {
    const g = this.game;
    if (g && g.status === "scoring") {
      this.toggleDead(vertex);
      return;
    }
    this.move(vertex);
  }

  /** The server refused with 409 and sent the game as it stands: show it, and say why. */
  refused(e) {
    if (e.status === 409 && e.data && e.data.game) {
      this.show(e.data.game);
      this.message(e.message);
      return true;
    }
    return false;
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
      this.show(await api("POST", `/api/games/${g.id}/moves`, { vertex, revision: g.revision }));
    } catch (e) {
      if (!this.refused(e)) {
        this.show(g); // take the previewed stone away again
        this.message(e.message);
      }
    }
  }

  async toggleDead(vertex) {
    const g = this.game;
    if (!g || this.busy) return;
    this.message("");
    this.setBusy(true, "Counting…");
    try {
      this.show(await api("POST", `/api/games/${g.id}/dead`, { vertex, revision: g.revision }));
    } catch (e) {
      if (!this.refused(e)) {
        this.message(e.message);
        this.setBusy(false, this.statusText(g));
      }
    }
  }

  async act(what) {
    const g = this.game;
    if (!g || this.busy) return;
    this.message("");
    const doing = { pass: "Bot thinking…", resume: "Resuming…", accept: "Accepting the count…" }[what];
    this.setBusy(true, doing || `${cap(what)}…`);
    try {
      this.show(await api("POST", `/api/games/${g.id}/${what}`, { revision: g.revision }));
    } catch (e) {
      if (!this.refused(e)) {
        this.message(e.message);
        this.setBusy(false, this.statusText(g));
      }
    }
  }

  /** The bot's opinion of the position: top moves drawn on the board. */
  async hint() {
    const g = this.game;
    if (!g || this.busy || g.over) return;
    this.message("");
    this.setBusy(true, "Analyzing…");
    if (this.hintCtl) this.hintCtl.abort();
    this.hintCtl = new AbortController();
    try {
      const a = await api("POST", "/api/analyze", { game: g.id, seconds: 1, channel: `${PAGE}-hint` },
        { signal: this.hintCtl.signal });
      this.setBusy(false, this.statusText(g));
      if (this.game !== g) return;
      this.board.showAnalysis(a.top);
      $("play-status").textContent =
        `${this.statusText(g)} Win rate for ${cap(a.to_move)}: ${percent(a.winrate)} (${a.playouts} playouts).`;
    } catch (e) {
      if (!e.aborted) this.message(e.message);
      this.setBusy(false, this.statusText(g));
    }
  }

  statusText(g) {
    if (g.over) return `Game over: ${resultText(g.result)}.`;
    if (g.status === "scoring") return "Counting: click a group to mark it dead or alive.";
    if (g.status === "bot_thinking") return "Bot thinking…";
    const last = g.last_move === "pass" ? " The bot passed." : "";
    return `Your turn (${cap(g.human)}).${last}`;
  }

  infoText(g) {
    const opts = g.bot_options || {};
    const extra = opts.seconds != null ? ` (${opts.seconds} s a move)` : opts.model ? ` (${opts.model})` : "";
    const parts = [
      `${g.size}×${g.size}`,
      `You: ${cap(g.human)} vs ${g.bot}${extra}`,
      `komi ${g.komi}`,
      `${g.rules} rules`,
    ];
    if (g.handicap) parts.push(`handicap ${g.handicap}`);
    parts.push(`dead stones by ${g.dead_stones || "playouts"}`);
    if (g.clock) {
      const c = g.clock;
      parts.push(`clock ${clockText(c.main)}${c.periods ? ` + ${c.periods}×${clockText(c.byoyomi)}` : ""}`);
    }
    return parts.join(" · ");
  }

  /** Draw the board of game `g` (move numbers, and the count in the scoring phase or at the end). */
  draw(g) {
    const s = g.score;
    const counting = !!s && (g.status === "scoring" || g.over);
    this.board.render({
      board: g.board,
      last_move: g.last_move,
      dead: counting ? s.dead : [],
      territory: counting ? s.territory : null,
      dame: counting ? s.dame : [],
      open: counting ? s.open : [],
      uncertain: g.status === "scoring" && s ? s.uncertain : [],
      numbers: this.numbers.checked ? moveNumbers(g.moves) : null,
    });
  }

  show(g) {
    const before = this.game;
    this.game = g;
    this.fetchedAt = performance.now();
    if (before && before.id === g.id && g.moves.length > before.moves.length) {
      const fresh = g.moves.slice(before.moves.length).filter((m) => m.vertex !== "pass");
      if (fresh.length) this.sound.play();
    }
    if (!before || before.id !== g.id) this.fillForm(g);
    this.draw(g);
    this.section.dataset.moves = String(g.moves.length);
    this.section.dataset.status = g.status;
    this.section.dataset.game = g.id;
    this.section.dataset.revision = String(g.revision);
    $("play-captures").textContent = `Black ${g.captures.black} · White ${g.captures.white}`;
    $("play-movecount").textContent = String(g.moves.length);
    const info = $("play-info");
    info.hidden = false;
    info.textContent = this.infoText(g);

    const scoring = $("scoring");
    scoring.hidden = g.status !== "scoring";
    if (g.status === "scoring" && g.score) {
      $("scoring-line").textContent = scoreLine(g);
      $("scoring-note").textContent = g.score.note || "";
    }
    const score = $("play-score");
    if (g.over) {
      score.hidden = false;
      score.textContent = g.score
        ? `${scoreLine(g)} · dead stones by: ${g.score.dead_stones || g.dead_stones || "playouts"}`
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
    this.drawClock();
    if (document.body.dataset.tab === "play" && location.hash !== `#game=${g.id}`) {
      history.replaceState(null, "", `#game=${g.id}`);
    }
    if (g.status === "bot_thinking") this.poll();
  }

  drawClock() {
    const g = this.game;
    const box = $("play-clock");
    if (!g || !g.clock) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const elapsed = (performance.now() - (this.fetchedAt || performance.now())) / 1000;
    let ranOut = false;
    for (const color of ["black", "white"]) {
      const c = sideClock(g.clock, color, elapsed);
      const el = $(`clock-${color}`);
      el.textContent = `${cap(color)} ${c.text}`;
      el.classList.toggle("running", c.running);
      el.classList.toggle("low", c.low);
      el.classList.toggle("out", c.out);
      if (c.out && c.running) ranOut = true;
    }
    // The running clock reached zero here: ask the server, which decides.
    if (ranOut && !g.over) this.sync(true);
  }

  /** Pick up a game from the address (#game=ID): a reload, a shared link, the game list. */
  async resume(id) {
    this.stopPolling();
    this.setBusy(true, "Loading the game…");
    try {
      this.show(await api("GET", `/api/games/${encodeURIComponent(id)}`));
      $("new-game-box").open = false;
    } catch (e) {
      this.message(e.message);
      this.setBusy(false, "Choose the settings and start a new game.");
    }
  }

  /** Read the game again; show it when it changed (another window played, the bot moved, a clock ran out). */
  async sync(force = false) {
    const g = this.game;
    if (!g || this.busy || this.syncing || this.pollTimer) return;
    if (!force && (g.over || document.hidden)) return;
    this.syncing = true;
    try {
      const now = await api("GET", `/api/games/${g.id}`);
      if (this.game && this.game.id === now.id && !this.busy && (now.revision !== this.game.revision || force)) this.show(now);
    } catch (e) {
      /* the next sync tries again */
    } finally {
      this.syncing = false;
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

function scoreLine(g) {
  const s = g.score;
  return `Black ${s.black}, White ${s.white} (komi ${g.komi}, ${g.rules} rules): ${s.result}`;
}

/** "B+3.5" -> "Black wins by 3.5"; "W+R" -> "White wins by resignation"; "B+T" -> "Black wins on time". */
export function resultText(result) {
  if (!result) return "no result";
  const m = /^([BW])\+(.*)$/.exec(result);
  if (!m) return result === "0" || result === "Draw" ? "a draw" : result;
  const who = m[1] === "B" ? "Black" : "White";
  if (m[2] === "T" || m[2] === "Time") return `${who} wins on time`;
  const how = m[2] === "R" || m[2] === "Resign" ? "resignation" : m[2];
  return `${who} wins by ${how}`;
}

// ---------------------------------------------------------------- start

const sound = new StoneSound($("opt-sound"));
const numbers = keptCheckbox("opt-numbers", "fuseki.numbers", false);
const play = new Play(sound, numbers);
const review = new Review({ channel: PAGE, numbers, sound });
const list = new GameList();

/** Show what the address names: #game=ID (Play), #games, #review=ID (or #review), anything else Play. */
function route() {
  const h = location.hash;
  let m;
  if ((m = /^#game=([\w-]+)$/.exec(h))) {
    showTab("play");
    if (!play.game || play.game.id !== m[1]) play.resume(m[1]);
  } else if ((m = /^#review=([\w-]+)$/.exec(h))) {
    showTab("review");
    if (!review.review || review.review.id !== m[1]) review.open(m[1]);
  } else if (h === "#games") {
    showTab("games");
    list.load();
  } else if (h === "#review") {
    showTab("review");
  } else {
    showTab("play");
  }
}

for (const tab of document.querySelectorAll("[role=tab]")) {
  tab.addEventListener("click", () => {
    const name = tab.dataset.tab;
    let hash = "#play";
    if (name === "play" && play.game) hash = `#game=${play.game.id}`;
    if (name === "games") hash = "#games";
    if (name === "review") hash = review.review ? `#review=${review.review.id}` : "#review";
    if (location.hash === hash) route();
    else location.hash = hash;
  });
}
window.addEventListener("hashchange", route);
document.addEventListener("keydown", (ev) => {
  if (document.body.dataset.tab !== "review") return;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
  if (review.key(ev.key)) ev.preventDefault();
});
route();
window.fuseki = { play, review, list, sound }; // for the console and the browser tests
