// The reader's own settings, kept in this browser (localStorage): when a move asks for a
// confirmation, and how a turn is announced while the page is in the background.

import { h } from "./dom.js";

const KEY = "polygo.prefs";
const DEFAULTS = { confirm: "touch", sound: false, notify: false };

export const CONFIRM_CHOICES = [
  ["touch", "on touch screens (tap, then confirm)"],
  ["always", "always"],
  ["never", "never (play at once)"],
];

export function prefs() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) || "{}") };
  } catch (e) {
    return { ...DEFAULTS };
  }
}

export function setPref(name, value) {
  localStorage.setItem(KEY, JSON.stringify({ ...prefs(), [name]: value }));
}

// Whether a stone played by `pointerType` ("mouse", "touch", "pen", "" for keys) waits for a
// confirmation.
export function confirmsFor(pointerType) {
  const mode = prefs().confirm;
  if (mode === "always") return true;
  if (mode === "never") return false;
  return pointerType === "touch" || pointerType === "pen";
}

// The settings as a small form: confirmation of moves, sound, notifications.
export function prefsPanel() {
  const p = prefs();
  const confirm = h("select#pref-confirm", { "aria-label": "confirm moves", onchange: () => setPref("confirm", confirm.value) },
    CONFIRM_CHOICES.map(([v, t]) => h("option", { value: v, selected: v === p.confirm }, t)));
  const sound = h("input#pref-sound", { type: "checkbox", checked: p.sound, onchange: () => setPref("sound", sound.checked) });
  const note = h("span.hint");
  const notify = h("input#pref-notify", { type: "checkbox", checked: p.notify, onchange: async () => {
    setPref("notify", notify.checked);
    if (notify.checked && "Notification" in window && Notification.permission === "default") {
      await Notification.requestPermission();
    }
    note.textContent = notify.checked && "Notification" in window && Notification.permission === "denied"
      ? " (this browser refuses notifications to this page: allow them in its site settings)" : "";
  } });
  return h("details.prefs", {}, h("summary", {}, "Settings"),
    h("label", {}, "Confirm moves ", confirm),
    h("label", {}, sound, " a sound when it is my turn and the page is in the background"),
    h("label", {}, notify, " a notification then (the browser asks once)", note));
}
