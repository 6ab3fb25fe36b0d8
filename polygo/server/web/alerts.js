// Telling a player it is his turn when he is looking elsewhere: the tab's title always says so
// (it is what a row of tabs shows), and, while the page is in the background, an optional short
// tone and a browser notification when the page has the permission (prefs.js).

import { prefs } from "./prefs.js";

const BASE_TITLE = "polygo";

export class TurnAlert {
  constructor() {
    this.mine = false;
    this.audio = null;
  }

  // Called after every redraw with whether it is the player's turn and a few words on the room.
  update(mine, what) {
    document.title = mine ? `▶ Your turn · ${what} · ${BASE_TITLE}` : `${what} · ${BASE_TITLE}`;
    if (mine && !this.mine && document.hidden) this.ring(what);
    this.mine = mine;
  }

  clear() {
    this.mine = false;
    document.title = BASE_TITLE;
  }

  ring(what) {
    const p = prefs();
    if (p.sound) this.tone();
    if (p.notify && "Notification" in window && Notification.permission === "granted") {
      try {
        const n = new Notification("Your turn", { body: what, tag: "polygo-turn" });
        n.onclick = () => { window.focus(); n.close(); };
      } catch (e) { /* some browsers allow notifications from a service worker only */ }
    }
  }

  // Two short notes, made on the spot (no sound file to fetch).
  tone() {
    try {
      this.audio = this.audio || new AudioContext();
      const ctx = this.audio, now = ctx.currentTime;
      for (const [f, t] of [[660, 0], [880, 0.16]]) {
        const osc = ctx.createOscillator(), gain = ctx.createGain();
        osc.frequency.value = f;
        gain.gain.setValueAtTime(0.0001, now + t);
        gain.gain.exponentialRampToValueAtTime(0.2, now + t + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + t + 0.14);
        osc.connect(gain).connect(ctx.destination);
        osc.start(now + t);
        osc.stop(now + t + 0.15);
      }
    } catch (e) { /* no audio here: the title and the notification remain */ }
  }
}
