// The stone sound: a short click made with the Web Audio API when a stone is
// placed (no sound file to load). Off unless the player turns it on; the
// choice is kept in localStorage.

const KEY = "fuseki.sound";

export class StoneSound {
  constructor(checkbox) {
    this.checkbox = checkbox;
    this.context = null;
    this.played = 0; // stones clicked so far: the browser tests read it
    this.enabled = false;
    try {
      this.enabled = localStorage.getItem(KEY) === "on";
    } catch (e) {
      /* no storage: the default */
    }
    if (checkbox) {
      checkbox.checked = this.enabled;
      checkbox.addEventListener("change", () => this.set(checkbox.checked));
    }
  }

  set(on) {
    this.enabled = !!on;
    try {
      localStorage.setItem(KEY, this.enabled ? "on" : "off");
    } catch (e) {
      /* not kept: fine */
    }
  }

  /** A wooden click: a burst of filtered noise, 60 ms. Silent (and not counted) when turned off. */
  play() {
    if (!this.enabled) return;
    this.played += 1;
    try {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return;
      if (!this.context) this.context = new Ctx();
      const ctx = this.context;
      if (ctx.state === "suspended") ctx.resume();
      const length = Math.floor(ctx.sampleRate * 0.06);
      const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
      const data = buffer.getChannelData(0);
      for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / length, 6);
      const source = ctx.createBufferSource();
      source.buffer = buffer;
      const filter = ctx.createBiquadFilter();
      filter.type = "bandpass";
      filter.frequency.value = 1800;
      filter.Q.value = 1.2;
      const gain = ctx.createGain();
      gain.gain.value = 0.6;
      source.connect(filter).connect(gain).connect(ctx.destination);
      source.start();
    } catch (e) {
      /* a browser without audio: the game goes on */
    }
  }
}
