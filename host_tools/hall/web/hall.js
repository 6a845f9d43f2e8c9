// The hall's pages (live.html, table.html, arbiter.html): one WebSocket to /ws, whose first
// message ("snapshot") is everything and whose later ones are changes; host_tools/hall/server.py
// sends them. No build step, no library: the boards are SVG strings.
//
// Points are y << 5 | x, x from the left and y from the bottom (row 1 at the bottom), 1023 a
// pass. The clocks are the faces as the server's clock model drew them ("faces"); the running
// face counts down here between the server's pushes, in the faces' own format
// (firmware/clock/clock.py format_time).
"use strict";

const PAGE = document.body.dataset.page;
// The public pages show the public view (--delay behind the boards); the arbiter's page and a
// signed-in page opened with ?live show the live one (host_tools/hall/server.py).
const LIVE = PAGE === "arbiter" || new URLSearchParams(location.search).has("live");
const GO_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
const GOMOKU_COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const PASS = 1023;
const TICK_MS = 100;

const hall = {
  boards: new Map(), // id -> board JSON, with _recv (performance.now() of its faces)
  incidents: [], // newest first
  offline: [],
  relays: [],
  bad: { total: 0, kinds: {}, last: {} },
};

// ---- formats ------------------------------------------------------------------------------

function pad2(n) {
  return (n < 10 ? "0" : "") + n;
}

// A face's time (firmware/clock/clock.py format_time): rounded up; h:mm:ss from an hour,
// m:ss below, m:ss.t in the last ten seconds.
function formatTime(ms) {
  ms = Math.max(0, Math.floor(ms));
  if (ms <= 9900) {
    const t = Math.floor((ms + 99) / 100);
    return "0:" + pad2(Math.floor(t / 10)) + "." + (t % 10);
  }
  const s = Math.floor((ms + 999) / 1000);
  const h = Math.floor(s / 3600);
  if (h) return h + ":" + pad2(Math.floor(s / 60) % 60) + ":" + pad2(s % 60);
  return Math.floor(s / 60) + ":" + pad2(s % 60);
}

function clockOf(ms) {
  const d = new Date(ms);
  return pad2(d.getHours()) + ":" + pad2(d.getMinutes()) + ":" + pad2(d.getSeconds());
}

function esc(text) {
  return String(text == null ? "" : text).replace(/[&<>"']/g, (c) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
  }[c]));
}

function isGomoku(kind) {
  return kind && kind !== "go";
}

function starPoints(size, gomoku) {
  let lines = null;
  let centre = true;
  if (gomoku && size === 15) lines = [3, 11];
  else if (!gomoku && size === 19) lines = [3, 9, 15];
  else if (!gomoku && size === 13) lines = [3, 9];
  else if (!gomoku && size === 9) lines = [2, 6];
  else centre = false;
  const out = [];
  if (lines) for (const x of lines) for (const y of lines) out.push([x, y]);
  if (centre) out.push([Math.floor(size / 2), Math.floor(size / 2)]);
  return out;
}

// ---- the board in SVG ---------------------------------------------------------------------

// Point (x, y) is drawn at (x + 1, size - y): row ``size`` at the top, row 1 at the bottom.
function boardSvg(b, large) {
  const n = b.size || 19;
  const m = large ? 1.6 : 1; // room for the coordinates on the large board
  const w = n - 1 + 2 * m;
  const px = (x) => (x + m).toFixed(2);
  const py = (y) => (n - 1 - y + m).toFixed(2);
  const parts = [];
  parts.push(
    `<svg class="board-svg" data-size="${n}" viewBox="0 0 ${w} ${w}" xmlns="http://www.w3.org/2000/svg">`
  );
  parts.push(`<rect x="0" y="0" width="${w}" height="${w}" class="wood"/>`);
  for (let i = 0; i < n; i++) {
    parts.push(`<line x1="${px(0)}" y1="${py(i)}" x2="${px(n - 1)}" y2="${py(i)}" class="grid"/>`);
    parts.push(`<line x1="${px(i)}" y1="${py(0)}" x2="${px(i)}" y2="${py(n - 1)}" class="grid"/>`);
  }
  for (const [x, y] of starPoints(n, isGomoku(b.kind))) {
    parts.push(`<circle cx="${px(x)}" cy="${py(y)}" r="0.12" class="star"/>`);
  }
  if (large) {
    const cols = isGomoku(b.kind) ? GOMOKU_COLUMNS : GO_COLUMNS;
    for (let i = 0; i < n; i++) {
      for (const y of [-0.9, n - 1 + 0.9]) {
        parts.push(`<text x="${px(i)}" y="${py(y)}" class="coord">${cols[i]}</text>`);
      }
      for (const x of [-1, n - 1 + 1]) {
        parts.push(`<text x="${px(x)}" y="${py(i)}" class="coord">${i + 1}</text>`);
      }
    }
  }
  const last = b.last && b.last.point !== PASS ? b.last.point : null;
  for (const [x, y, c] of b.stones || []) {
    const here = last !== null && (last & 31) === x && last >> 5 === y;
    parts.push(
      `<circle cx="${px(x)}" cy="${py(y)}" r="0.47" class="stone ${c === 1 ? "b" : "w"}"` +
        ` data-point="${(y << 5) | x}"${here ? ' data-last="1"' : ""}/>`
    );
    if (here) parts.push(`<circle cx="${px(x)}" cy="${py(y)}" r="0.18" class="last-mark ${c === 1 ? "on-b" : "on-w"}"/>`);
  }
  parts.push("</svg>");
  return parts.join("");
}

// ---- clocks -------------------------------------------------------------------------------

function faceNow(b, k) {
  const f = (b.faces || [])[k];
  if (!f) return { text: "", overtime: "", running: false, flagged: false };
  let text = f.time;
  if (f.running && b.clock === "running" && b._recv !== undefined) {
    text = formatTime(f.ms - (performance.now() - b._recv));
  }
  return { text, overtime: f.overtime || "", running: !!f.running, flagged: !!f.flagged };
}

function showClocks(root, b) {
  ["black", "white"].forEach((side, k) => {
    const f = faceNow(b, k);
    const el = root.querySelector(".clock-" + side);
    if (!el) return;
    if (el.textContent !== f.text) el.textContent = f.text;
    el.classList.toggle("running", f.running);
    el.classList.toggle("flagged", f.flagged);
    const ot = root.querySelector(".ot-" + side);
    if (ot && ot.textContent !== f.overtime) ot.textContent = f.overtime;
  });
}

// ---- the live page ------------------------------------------------------------------------

function tableKey(b) {
  const t = String(b.table || "");
  if (/^\d+$/.test(t)) return [0, Number(t), "", b.id];
  return [t ? 1 : 2, 0, t, b.id];
}

function compareKeys(a, b) {
  for (let i = 0; i < a.length; i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
}

function cardHtml(b) {
  const title = b.table ? "Table " + esc(b.table) : esc(b.id);
  return (
    `<div class="head"><span class="table-no">${title}</span>` +
    `<span class="board-id">${esc(b.id)}</span>` +
    `<span class="offline-badge"${b.online ? " hidden" : ""}>offline</span></div>` +
    boardSvg(b, false) +
    `<div class="players">` +
    `<div class="player black"><span class="stone-icon b"></span><span class="name name-black">${esc(b.black)}</span>` +
    `<span class="clock clock-black"></span><span class="ot ot-black"></span></div>` +
    `<div class="player white"><span class="stone-icon w"></span><span class="name name-white">${esc(b.white)}</span>` +
    `<span class="clock clock-white"></span><span class="ot ot-white"></span></div></div>` +
    `<div class="foot"><span class="ply">${b.ply ? "move " + b.ply : ""}</span> ` +
    `<span class="last-move">${esc(b.last ? b.last.name : "")}</span> ` +
    `<span class="result">${esc(b.result || "")}</span></div>`
  );
}

function renderCard(b) {
  const box = document.getElementById("tables");
  let card = box.querySelector(`[data-board="${CSS.escape(b.id)}"]`);
  if (!card) {
    card = document.createElement("a");
    card.className = "table-card";
    card.dataset.board = b.id;
    card.href = "/table/" + encodeURIComponent(b.id) + (LIVE ? "?live" : "");
    placeCard(box, card, b);
  } else if (card.dataset.table !== String(b.table || "")) {
    placeCard(box, card, b);
  }
  card.dataset.table = String(b.table || "");
  card.dataset.ply = String(b.ply || 0);
  card.classList.toggle("offline", !b.online);
  card.innerHTML = cardHtml(b);
  showClocks(card, b);
  document.getElementById("empty").hidden = hall.boards.size > 0;
}

function placeCard(box, card, b) {
  const key = tableKey(b);
  for (const other of box.children) {
    if (other === card) continue;
    const ob = hall.boards.get(other.dataset.board);
    if (ob && compareKeys(key, tableKey(ob)) < 0) {
      box.insertBefore(card, other);
      return;
    }
  }
  box.appendChild(card);
}

function renderLive() {
  document.getElementById("tables").innerHTML = "";
  const boards = [...hall.boards.values()].sort((a, b) => compareKeys(tableKey(a), tableKey(b)));
  for (const b of boards) renderCard(b);
  document.getElementById("empty").hidden = boards.length > 0;
}

// ---- the table page -----------------------------------------------------------------------

const TABLE_BOARD = PAGE === "table" ? decodeURIComponent(location.pathname.split("/")[2] || "") : "";
let movesTimer = null;

function renderTable() {
  const b = hall.boards.get(TABLE_BOARD);
  const root = document.getElementById("table-side");
  document.body.dataset.board = TABLE_BOARD;
  if (!b) {
    document.getElementById("table-title").textContent = "Board " + TABLE_BOARD + " (not seen yet)";
    return;
  }
  document.getElementById("table-title").textContent =
    (b.table ? "Table " + b.table + " · " : "") + "board " + b.id + (b.game ? " · game " + b.game : "");
  document.querySelector(".offline-badge").hidden = !!b.online;
  document.getElementById("big-board").innerHTML = boardSvg(b, true);
  root.querySelector(".name-black").textContent = b.black || "Black";
  root.querySelector(".name-white").textContent = b.white || "White";
  root.querySelector(".ply").textContent = b.ply ? "move " + b.ply : "";
  root.querySelector(".last-move").textContent = b.last ? b.last.name : "";
  root.querySelector(".result").textContent = b.result || "";
  const link = document.getElementById("sgf-link");
  link.href = b.game ? `/feed/${encodeURIComponent(b.id)}/${b.game}.sgf` : "#";
  showClocks(root, b);
}

function fetchMoves() {
  clearTimeout(movesTimer);
  movesTimer = setTimeout(async () => {
    try {
      const r = await fetch((LIVE ? "/api/live/boards/" : "/api/boards/") + encodeURIComponent(TABLE_BOARD), { cache: "no-store" });
      if (r.ok) renderMoves(await r.json());
    } catch (e) {
      /* the next change asks again */
    }
  }, 50);
}

function renderMoves(b) {
  const list = document.getElementById("moves");
  const items = (b.moves || []).map((m) => {
    const who = m.colour === 1 ? "B" : "W";
    const ct = m.clock_text || ["", ""];
    const clocks = ct[0] || ct[1] ? `<span class="mv-clocks">● ${esc(ct[0])} ○ ${esc(ct[1])}</span>` : "";
    return (
      `<li data-ply="${m.ply}" data-point="${m.point}"><span class="mv-no">${m.ply}.</span> ` +
      `<span class="mv-side ${who === "B" ? "b" : "w"}">${who}</span> <span class="mv-name">${esc(m.name)}</span> ` +
      clocks + "</li>"
    );
  });
  list.innerHTML = items.join("");
  list.dataset.count = String(items.length);
}

// ---- the arbiter's page -------------------------------------------------------------------

function incidentRow(i) {
  const when = i.received ? clockOf(i.received) : "";
  return (
    `<tr class="incident ${esc(i.what)}" data-board="${esc(i.board)}" data-game="${i.game}" data-seq="${i.seq}">` +
    `<td class="when">${when}</td><td class="table">${esc(i.table)}</td><td class="board">${esc(i.board)}</td>` +
    `<td class="game">${i.game}</td><td class="move">${i.move}</td>` +
    `<td class="words">${i.what === "arbiter" ? "arbiter: " : ""}${esc(i.words)}${i.zh ? " · " + esc(i.zh) : ""}</td></tr>`
  );
}

function renderIncidents() {
  document.querySelector("#incidents tbody").innerHTML = hall.incidents.map(incidentRow).join("");
}

function renderOffline() {
  const ul = document.getElementById("offline");
  if (!ul) return;
  ul.innerHTML = hall.offline
    .map(
      (o) =>
        `<li data-board="${esc(o.board)}">${o.table ? "table " + esc(o.table) + ": " : ""}board ${esc(o.board)}` +
        (o.since ? ` <span class="since">offline since ${clockOf(o.since)}</span>` : "") +
        (o.seen ? "" : " <span class=\"since\">(not seen yet)</span>") +
        "</li>"
    )
    .join("");
  document.getElementById("offline-count").textContent = String(hall.offline.length);
  document.getElementById("relays").innerHTML = hall.relays
    .map((r) => `<li data-relay="${esc(r.relay)}">${esc(r.relay)}: ${r.online ? "online" : "offline"}, ${r.boards.length} boards</li>`)
    .join("");
}

// Each board's game as the board proved it: verified, pending (every record shown proven by the
// board's HMAC; "held" wait for one), unverified (no key: the relay's word) or failed.
function renderVerification() {
  const ul = document.getElementById("verification");
  if (!ul) return;
  const boards = [...hall.boards.values()].sort((a, b) => compareKeys(tableKey(a), tableKey(b)));
  ul.innerHTML = boards
    .map(
      (b) =>
        `<li data-board="${esc(b.id)}" data-verified="${esc(b.verified)}">${b.table ? "table " + esc(b.table) + ": " : ""}board ${esc(b.id)}` +
        ` game ${b.game}: ${esc(b.verified)}` +
        (b.held ? ` <span class="since">${b.held} record(s) wait for the board's HMAC</span>` : "") +
        "</li>"
    )
    .join("");
  const doubtful = boards.filter((b) => b.verified === "unverified" || b.verified === "failed");
  document.getElementById("unproven-count").textContent = String(doubtful.length);
}

function renderBad() {
  const el = document.getElementById("bad-count");
  if (!el) return;
  el.textContent = String(hall.bad.total || 0);
  document.getElementById("bad").innerHTML = Object.entries(hall.bad.kinds || {})
    .map(([k, n]) => `<li data-kind="${esc(k)}">${esc(k)}: ${n} <span class="bad-last">${esc((hall.bad.last || {})[k] || "")}</span></li>`)
    .join("");
  // By relay or board (the door's counts), and what the hall keeps against its bounds.
  const by = document.getElementById("bad-by");
  if (by) {
    by.innerHTML = Object.entries(hall.bad.by || {})
      .map(([who, n]) => `<li data-from="${esc(who)}">${esc(who)}: ${n}</li>`)
      .join("");
  }
  const kept = document.getElementById("kept");
  if (kept && hall.bad.kept) {
    const k = hall.bad.kept, l = hall.bad.limits || {};
    kept.textContent = `kept: ${k.boards} boards (${k.unpaired} not paired, at most ${l.unknown_boards}), ` +
      `${k.games} games (at most ${l.games}), ${k.records} records (at most ${l.records}), ` +
      `${k.bytes} bytes (at most ${l.bytes})`;
  }
}

// ---- messages -----------------------------------------------------------------------------

function takeBoard(b) {
  b._recv = performance.now();
  hall.boards.set(b.id, b);
  if (PAGE === "live") renderCard(b);
  else if (PAGE === "arbiter") renderVerification();
  else if (PAGE === "table" && b.id === TABLE_BOARD) {
    renderTable();
    fetchMoves();
  }
}

function onMessage(msg) {
  switch (msg.type) {
    case "snapshot":
      hall.boards.clear();
      for (const b of msg.boards) {
        b._recv = performance.now();
        hall.boards.set(b.id, b);
      }
      hall.incidents = msg.incidents;
      hall.offline = msg.offline;
      hall.relays = msg.relays || [];
      hall.bad = msg.bad;
      document.getElementById("hall-name").textContent = "hall " + msg.hall;
      if (PAGE === "live") renderLive();
      if (PAGE === "table") {
        renderTable();
        fetchMoves();
      }
      if (PAGE === "arbiter") {
        renderIncidents();
        renderOffline();
        renderBad();
        renderVerification();
      }
      break;
    case "board":
      takeBoard(msg.board);
      break;
    case "clocks":
      for (const [id, faces] of Object.entries(msg.faces)) {
        const b = hall.boards.get(id);
        if (!b) continue;
        b.faces = faces;
        b._recv = performance.now();
      }
      break;
    case "record":
      if (PAGE === "table" && msg.board === TABLE_BOARD) fetchMoves();
      break;
    case "incident":
      hall.incidents.unshift(msg);
      if (hall.incidents.length > 2000) hall.incidents.length = 2000;
      if (PAGE === "arbiter") {
        document.querySelector("#incidents tbody").insertAdjacentHTML("afterbegin", incidentRow(msg));
      }
      break;
    case "offline-list":
      hall.offline = msg.offline;
      if (PAGE === "arbiter") renderOffline();
      break;
    case "bad":
      hall.bad = msg.bad;
      if (PAGE === "arbiter") renderBad();
      break;
    default:
      break; // "state", "online", "offline": the "board" message that follows shows them
  }
}

function tick() {
  if (PAGE === "live") {
    for (const card of document.querySelectorAll(".table-card")) {
      const b = hall.boards.get(card.dataset.board);
      if (b && b.clock === "running") showClocks(card, b);
    }
  } else if (PAGE === "table") {
    const b = hall.boards.get(TABLE_BOARD);
    if (b) showClocks(document.getElementById("table-side"), b);
  }
}

function connect() {
  const link = document.getElementById("link");
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + (LIVE ? "/ws?live=1" : "/ws"));
  ws.onopen = () => {
    link.textContent = "live";
    link.className = "link-up";
  };
  ws.onmessage = (e) => {
    try {
      onMessage(JSON.parse(e.data));
    } catch (err) {
      console.error("hall: a message not shown", err);
    }
  };
  ws.onclose = () => {
    link.textContent = "reconnecting…";
    link.className = "link-down";
    setTimeout(connect, 1000);
  };
}

setInterval(tick, TICK_MS);
connect();
