// The page's one websocket to the server, speaking docs/protocol.md with the JSON subprotocol.
// request(type, fields) -> Promise of the direct reply (an error reply rejects);
// events go to onEvent(event); the session token lives in localStorage so a reload is the same
// session (and so the same seats). A dropped connection is retried with backoff; once back, the
// owner's onReconnect() re-watches its rooms with `since` and resends unacknowledged moves.
// In cluster mode (docs/cluster.md) a room's request may be answered `moved` (reconnect at the
// owner node's path) or `unavailable` (reconnect after `retry_after`); either way the page
// reconnects as after a drop, and any later drop goes back to `/`.

export const PROTOCOL = 3;
const TOKEN_KEY = "polygo.token";
const NAME_KEY = "polygo.name";

export class Connection {
  constructor({ onEvent, onStatus, onReconnect, onWelcome, onNotice }) {
    this.onEvent = onEvent;
    this.onNotice = onNotice;   // server messages sent unasked: `matched`, `challenge`
    this.onStatus = onStatus;
    this.onReconnect = onReconnect;
    this.onWelcome = onWelcome;
    this.nextId = 1;
    this.waiting = new Map();   // id -> {resolve, reject}
    this.ws = null;
    this.welcome = null;
    this.attempt = 0;
    this.ready = null;          // Promise resolved at each successful hello
    this.everConnected = false;
    this.nextPath = null;       // the node a `moved` error named, for the next connection only
    this.waitAtLeast = 0;       // ms an `unavailable` error asked us to wait before reconnecting
  }

  get token() { return localStorage.getItem(TOKEN_KEY); }
  get name() { return localStorage.getItem(NAME_KEY); }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const path = this.nextPath || "/";
    this.nextPath = null;
    if (/^wss?:/.test(path)) return path;
    return `${scheme}//${location.host}${path.startsWith("/") ? path : "/" + path}`;
  }

  start() {
    this.ready = new Promise((resolve) => { this._readyResolve = resolve; });
    this._open();
    return this.ready;
  }

  _open() {
    this.onStatus(this.everConnected ? "reconnecting" : "connecting", this.attempt);
    let ws;
    try {
      ws = new WebSocket(this.url(), ["polygo.json"]);
    } catch (e) {
      this._retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => this._hello();
    ws.onmessage = (msg) => this._receive(msg.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      for (const { reject } of this.waiting.values()) reject({ code: "disconnected", message: "connection lost" });
      this.waiting.clear();
      if (this.welcome) {
        this.welcome = null;
        this.ready = new Promise((resolve) => { this._readyResolve = resolve; });
      }
      this._retry();
    };
  }

  _retry() {
    this.attempt += 1;
    this.onStatus("reconnecting", this.attempt);
    const base = Math.max(this.waitAtLeast, Math.min(10000, 200 * 2 ** Math.min(this.attempt, 6)));
    this.waitAtLeast = 0;
    setTimeout(() => this._open(), base / 2 + Math.random() * base / 2);
  }

  async _hello() {
    let welcome;
    try {
      if (this.token) {
        try {
          welcome = await this._send("hello", { protocol: PROTOCOL, token: this.token, client: "polygo web" });
        } catch (e) {
          if (e.code !== "bad-token") throw e;
          localStorage.removeItem(TOKEN_KEY);
        }
      }
      if (!welcome) {
        const name = this.name || "guest" + Math.floor(1000 + Math.random() * 9000);
        welcome = await this._send("hello", { protocol: PROTOCOL, name, client: "polygo web" });
      }
    } catch (e) {
      return;   // the close handler retries
    }
    this._welcomed(welcome);
    const again = this.everConnected;
    this.everConnected = true;
    this.attempt = 0;
    this.onStatus("connected", 0);
    this._readyResolve(welcome);
    if (again && this.onReconnect) this.onReconnect();
  }

  _welcomed(welcome) {
    this.welcome = welcome;
    localStorage.setItem(TOKEN_KEY, welcome.token);
    localStorage.setItem(NAME_KEY, welcome.name);
    if (this.onWelcome) this.onWelcome(welcome);
  }

  // A new guest session under another name (the old one keeps its seats, unreachable from here).
  async rename(name) {
    await this.ready;
    const welcome = await this._send("hello", { protocol: PROTOCOL, name, client: "polygo web" });
    this._welcomed(welcome);
    return welcome;
  }

  async login(user, password) {
    await this.ready;
    const welcome = await this._send("hello", { protocol: PROTOCOL, user, password, client: "polygo web" });
    this._welcomed(welcome);
    return welcome;
  }

  _receive(data) {
    let message;
    try { message = JSON.parse(data); } catch (e) { return; }
    if (message.type === "event") { this.onEvent(message); return; }
    if (message.type === "error" && (message.code === "moved" || message.code === "unavailable")) {
      this._elsewhere(message);
      return;
    }
    if (message.id === undefined && (message.type === "matched" || message.type === "challenge")) {
      if (this.onNotice) this.onNotice(message);
      return;
    }
    if (message.id !== undefined && this.waiting.has(message.id)) {
      const { resolve, reject } = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.type === "error") reject(message); else resolve(message);
    }
  }

  // The room lives on another node, or its node is not answering yet: drop this connection; the
  // close handler fails what is waiting and reconnects, and onReconnect re-watches and resends.
  _elsewhere(error) {
    if (error.code === "moved") {
      this.nextPath = error.url;
      this.attempt = 0;
    } else {
      this.waitAtLeast = 2000 * (error.retry_after || 1);
    }
    if (this.ws) this.ws.close();
  }

  _send(type, fields = {}) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.reject({ code: "disconnected", message: "not connected" });
    const id = this.nextId++;
    ws.send(JSON.stringify({ type, id, ...fields }));
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  // A request once connected and welcomed.
  async request(type, fields = {}) {
    await this.ready;
    return this._send(type, fields);
  }

  // For tests and the "network drop" button: close the socket as a lost network would.
  drop() { if (this.ws) this.ws.close(); }
}
