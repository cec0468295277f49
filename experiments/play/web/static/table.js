"use strict";
// The Station Master table: set up a game, play a seat, watch bots, scrub replays.
// Everything drawn comes from the server's JSON (a seat's view); this script keeps no rules.

const SVGNS = "http://www.w3.org/2000/svg";
const CW = 112, CH = 84;            // a station card's cell in the drawing
const PACES = {step: null, slow: 1200, fast: 150};

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVGNS, tag);
  setAttrs(node, attrs);
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
}

async function api(method, url, body) {
  const init = {method, headers: {}};
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["content-type"] = "application/json";
  }
  const response = await fetch(url, init);
  let data = null;
  try { data = await response.json(); } catch (err) { data = {error: `the server answered ${response.status}`}; }
  return {ok: response.ok, status: response.status, data};
}

function say(text, kind = "info") {
  const bar = document.getElementById("message");
  bar.textContent = text || "";
  bar.className = kind;
}

function cellKey(cell) { return `${cell[0]},${cell[1]}`; }
function sameCell(a, b) { return a[0] === b[0] && a[1] === b[1]; }

// ----------------------------------------------------------------------------- the home page

async function homePage() {
  const app = document.getElementById("app");
  const options = (await api("GET", "/api/options")).data;
  const holders = [
    {value: options.human, text: "a person (you)"},
    ...options.levels.map(l => ({value: l.name, text: `${l.name} — ${l.text}`})),
    ...options.bots.map(b => ({value: b, text: `${b} bot`})),
  ];
  const seatRows = h("div", {id: "seat-rows"});
  const offices = h("select", {id: "offices", "data-testid": "offices"});
  for (let n = options.offices[0]; n <= options.offices[1]; n++) offices.append(h("option", {value: n, selected: n === 3}, n));
  const defaults = [options.human, "medium", "hard", "medium", "hard", "expert"];
  function seatSelects() {
    const kept = [...seatRows.querySelectorAll("select")].map(x => x.value);
    seatRows.replaceChildren();
    for (let seat = 0; seat < Number(offices.value); seat++) {
      const select = h("select", {"data-testid": `holder-${seat}`, name: `seat-${seat}`});
      for (const holder of holders) select.append(h("option", {value: holder.value}, holder.text));
      select.value = kept[seat] || defaults[seat];
      seatRows.append(h("label", {}, `Seat ${seat}: `, select));
    }
  }
  offices.addEventListener("change", seatSelects);
  seatSelects();
  const rules = h("div", {id: "house-rules"}, options.house_rules.map(name =>
    h("label", {}, h("input", {type: "checkbox", value: name, "data-testid": `rule-${name}`}), ` ${name.replaceAll("_", " ")}`)));
  const mode = h("select", {id: "mode"}, options.modes.map(m => h("option", {value: m}, m)));
  const form = h("form", {id: "setup", "data-testid": "setup"},
    h("h2", {}, "A new game"),
    h("details", {class: "goal", open: true}, h("summary", {}, "How the game is won"), h("div", {class: "goal-text"}, options.goal)),
    h("label", {}, "Offices (seats): ", offices), seatRows,
    h("label", {}, "Days: ", h("input", {id: "days", type: "number", min: 1, max: 10, value: 2})),
    h("label", {}, "Mode: ", mode),
    h("label", {}, "Target revenue (optional): ", h("input", {id: "target", type: "number", min: 1})),
    h("fieldset", {}, h("legend", {}, "House rules"), rules),
    h("label", {}, "Seed (blank: a random deal): ", h("input", {id: "seed", type: "number", min: 0, "data-testid": "seed"})),
    h("button", {type: "submit", "data-testid": "start"}, "Start the game"));
  form.addEventListener("submit", async event => {
    event.preventDefault();
    const seats = [...seatRows.querySelectorAll("select")].map(x => x.value);
    const body = {seats, days: Number(document.getElementById("days").value), mode: mode.value,
      house_rules: [...rules.querySelectorAll("input:checked")].map(x => x.value)};
    const target = document.getElementById("target").value, seed = document.getElementById("seed").value;
    if (target) body.target = Number(target);
    if (seed) body.seed = Number(seed);
    const answer = await api("POST", "/api/games", body);
    if (!answer.ok) return say(answer.data.error, "error");
    location.href = gameUrl(answer.data.id, answer.data.status.humans);
  });
  const saved = h("div", {id: "saved", "data-testid": "saved"}, h("h2", {}, "Saved games"));
  const list = (await api("GET", "/api/games")).data.games;
  if (!list.length) saved.append(h("p", {}, "No saved games yet."));
  else {
    const table = h("table", {}, h("tr", {}, h("th", {}, "Seats"), h("th", {}, "Days"), h("th", {}, "Decisions"), h("th", {}, "Saved"), h("th", {})));
    for (const game of list) {
      const humans = game.seats.map((x, i) => x === options.human ? i : -1).filter(i => i >= 0);
      table.append(h("tr", {"data-testid": `saved-${game.id}`},
        h("td", {}, game.seats.join(", ")), h("td", {}, game.days), h("td", {}, game.decisions),
        h("td", {}, new Date(game.saved * 1000).toLocaleString()),
        h("td", {}, h("a", {href: gameUrl(game.id, humans), "data-testid": `resume-${game.id}`}, "resume"), " ",
          h("button", {onclick: async () => openReplay(await api("POST", `/api/games/${game.id}/open`))}, "replay"))));
    }
    saved.append(table);
  }
  const file = h("input", {type: "file", accept: ".json,application/json", "data-testid": "replay-file"});
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    openReplay(await api("POST", "/api/replays", {name: chosen.name, text: await chosen.text()}));
  });
  const opener = h("div", {id: "open-replay"}, h("h2", {}, "Open a replay file"),
    h("p", {}, "Any replay: from station-master demo --save-replay, a tournament, the terminal table or this one."), file);
  app.replaceChildren(h("div", {class: "home"}, form, h("div", {}, saved, opener)));
}

function gameUrl(id, humans) {
  const seat = humans.length === 1 ? humans[0] : humans.length > 1 ? "hotseat" : "watch";
  return `/game/${id}?seat=${seat}`;
}

function openReplay(answer) {
  if (!answer.ok) return say(answer.data.error, "error");
  location.href = `/replay/${answer.data.id}`;
}

// ----------------------------------------------------------------------------- drawing the table

const CAR_COLOURS = {co: "#2f6fb0", bx: "#8a5a2b", ho: "#777", rf: "#3aa6a0", tk: "#222", cb: "#c0392b", E: "#111"};

function carColour(car) {
  const key = car.label.replace(/[^a-zA-Z]/g, "").toLowerCase();
  if (car.label === "E") return CAR_COLOURS.E;
  for (const [prefix, colour] of Object.entries(CAR_COLOURS)) if (key.startsWith(prefix.toLowerCase())) return colour;
  return "#999";
}

function carGlyph(car, x, y, size = 12) {
  const loaded = /loaded/.test(car.name) || car.label !== car.label.toLowerCase();
  const colour = carColour(car);
  return s("rect", {x, y, width: size, height: size * 0.75, rx: 2, fill: loaded || car.label === "E" ? colour : "#fff",
    stroke: colour, "stroke-width": 2}, s("title", {}, car.name));
}

function trainGlyph(train, x, y, opts = {}) {
  const arrow = train.direction === "east" ? "▶" : "◀";
  const group = s("g", {class: "train" + (opts.selectable ? " selectable" : "") + (opts.selected ? " selected" : "") +
    (opts.recent ? " recent" : ""),
    "data-testid": `train-${train.tray}`, transform: `translate(${x},${y})`});
  group.append(s("rect", {x: 0, y: 0, width: Math.max(64, 16 + train.consist.length * 15), height: 30, rx: 4, class: "train-body"}));
  group.append(s("text", {x: 4, y: 11, class: "train-label"}, `${train.label} ${arrow}`));
  train.consist.forEach((car, i) => group.append(carGlyph(car, 4 + i * 15, 15)));
  group.append(s("title", {}, `${train.card.name}, heading ${train.direction}; cars west to east: ` +
    train.consist.map(c => c.name).join(", ")));
  if (opts.onclick) group.addEventListener("click", opts.onclick);
  return group;
}

function drawRailway(scene) {
  const trains = Object.fromEntries(scene.trains.map(t => [t.tray, t]));
  const parts = [];
  let x = 8;
  const box = (w, title, sub, cls, testid) => {
    const g = s("g", {transform: `translate(${x},20)`, "data-testid": testid});
    g.append(s("rect", {width: w, height: 70, rx: 6, class: cls}));
    g.append(s("text", {x: 6, y: 15, class: "strip-title"}, title));
    if (sub) g.append(s("text", {x: 6, y: 29, class: "strip-sub"}, sub));
    parts.push(g);
    x += w + 6;
    return g;
  };
  const atDp = east => scene.trains.filter(t => t.where.at === "division_point" && t.where.east === east);
  const westDp = box(88, "West DP", "Division Point", "dp", "west-dp");
  atDp(false).forEach((t, i) => westDp.append(trainGlyph(t, 4, 34 + i * 32)));
  for (const line of scene.division.lines) {
    const mainline = box(86 * line.regions.length, `Mainline ${line.line}`, `${line.regions.length} region(s)`, "mainline", `line-${line.line}`);
    line.regions.forEach((tray, r) => {
      mainline.append(s("line", {x1: r * 86 + 4, y1: 60, x2: r * 86 + 82, y2: 60, class: "rail"}));
      if (tray !== null && trains[tray]) mainline.append(trainGlyph(trains[tray], r * 86 + 6, 32));
    });
    if (line.line < scene.offices) {
      const station = scene.stations[line.line];
      const here = scene.trains.filter(t => t.where.at === "office" && t.where.office === line.line);
      const seat = scene.seats[station.seat];
      const office = box(Math.max(150, 12 + here.length * 84), `Office ${line.line}: ${station.name}`,
        `${seat.label}${station.control_point ? " · CP" : ""}`, station.seat === scene.seat ? "office mine" : "office", `office-${line.line}`);
      here.forEach((t, i) => office.append(trainGlyph(t, 4 + i * 84, 36)));
    }
  }
  const eastDp = box(88, "East DP", "Division Point", "dp", "east-dp");
  atDp(true).forEach((t, i) => eastDp.append(trainGlyph(t, 4, 34 + i * 32)));
  const height = 20 + 70 + 8;
  return s("svg", {class: "railway", width: "100%", style: `max-width:${x + 8}px`, viewBox: `0 0 ${x + 8} ${height}`, "data-testid": "railway"},
    s("text", {x: 8, y: 14, class: "strip-caption"}, "The railway, west to east"), parts);
}

const END_POINT = {W: [0, 0.5], E: [1, 0.5], NW: [0, 0], NE: [1, 0], SW: [0, 1], SE: [1, 1]};

function drawStation(station, scene, opts = {}) {
  const cells = station.cells;
  const extra = (opts.targets || []).map(t => t.cell);
  const rows = [...cells.map(c => c.row), ...extra.map(c => c[0])];
  const cols = [...cells.map(c => c.col), ...extra.map(c => c[1])];
  const top = Math.max(...rows), bottom = Math.min(...rows), west = Math.min(...cols), east = Math.max(...cols);
  const width = Math.max(340, (east - west + 1) * CW + 16), height = (top - bottom + 1) * CH + 46;
  const pos = (row, col) => [8 + (col - west) * CW, 38 + (top - row) * CH];
  const trains = Object.fromEntries(scene.trains.map(t => [t.tray, t]));
  const root = s("svg", {class: "station", width, height, viewBox: `0 0 ${width} ${height}`,
    "data-testid": `station-${station.office}`});
  const seat = scene.seats[station.seat];
  root.append(s("text", {x: 8, y: 14, class: "station-title"}, `Office ${station.office} · ${station.name} · ${seat.label}`));
  root.append(s("text", {x: 8, y: 28, class: "station-sub"},
    `A/D tracks ${station.ad_tracks.used}/${station.ad_tracks.total} used · Porters ${station.porters} · Laborers ${station.laborers}` +
    `${station.control_point ? " · Control Point" : ""}`));
  const highlighted = new Set((opts.highlight || []).map(cellKey));
  const recent = new Set((opts.recent || []).filter(m => m.office === station.office).map(m => cellKey(m.cell)));
  for (const cell of cells) {
    const [x, y] = pos(cell.row, cell.col);
    const key = cellKey([cell.row, cell.col]);
    const g = s("g", {transform: `translate(${x},${y})`, class: "cell" + (cell.office ? " office-cell" : "") +
      (cell.locked ? " locked" : "") + (highlighted.has(key) ? " highlight" : "") + (recent.has(key) ? " recent" : ""),
      "data-testid": `cell-${station.office}-${cell.row}-${cell.col}`});
    if (highlighted.has(key) && opts.onCell) g.addEventListener("click", () => opts.onCell([cell.row, cell.col]));
    g.append(s("rect", {width: CW - 4, height: CH - 4, rx: 5, class: "card " + cell.kind}));
    for (const end of cell.ends) {
      const [ex, ey] = END_POINT[end];
      g.append(s("line", {x1: ex * (CW - 4), y1: ey * (CH - 4), x2: (CW - 4) / 2, y2: (CH - 4) / 2, class: "rail"}));
    }
    g.append(s("text", {x: 4, y: 12, class: "card-name"}, cell.name.length > 20 ? cell.name.slice(0, 19) + "…" : cell.name));
    g.append(s("title", {}, `${cell.name} at row ${cell.row}, column ${cell.col}${cell.rotated ? " (turned 180°)" : ""}: ${cell.text}` +
      (cell.locked ? " — locked: loads are being worked here" : "")));
    cell.cars.forEach((car, i) => g.append(carGlyph(car, 4 + i * 15, CH - 20)));
    if (cell.boxes) {
      const b = cell.boxes;
      g.append(s("rect", {x: CW - 40, y: 16, width: 16, height: 14, class: "green-box"}, s("title", {}, `green box (outbound): ${b.green.map(c => c.name).join(", ") || "empty"}`)));
      g.append(s("text", {x: CW - 36, y: 27, class: "box-count"}, b.green.length));
      g.append(s("rect", {x: CW - 22, y: 16, width: 16, height: 14, class: "red-box"}, s("title", {}, `red box (inbound): ${b.red.map(c => c.name).join(", ") || "empty"}`)));
      g.append(s("text", {x: CW - 18, y: 27, class: "box-count"}, b.red.length));
      b.work.forEach((car, i) => {
        g.append(s("rect", {x: 4 + i * 14, y: 36, width: 12, height: 9, class: "work-slot"}, s("title", {}, "MEN|AT|WORK: " + (car ? car.name : "free"))));
        if (car) g.append(carGlyph(car, 4 + i * 14, 36, 12));
      });
      g.append(s("text", {x: 4, y: 58, class: "workers"}, `${b.workers} worker(s)`));
    }
    if (cell.office) g.append(s("text", {x: 4, y: 26, class: "workers"}, `A/D ${station.ad_tracks.used}/${station.ad_tracks.total}`));
    root.append(g);
    for (const tray of cell.trays) {
      const train = trains[tray];
      if (!train) continue;
      const selectable = opts.trays && opts.trays.includes(tray);
      root.append(trainGlyph(train, x + 2, y + 30, {selectable, selected: opts.selectedTray === tray,
        recent: (opts.recentTrays || []).includes(tray),
        onclick: selectable ? () => opts.onTray(tray) : null}));
    }
  }
  for (const target of opts.targets || []) {
    const [x, y] = pos(target.cell[0], target.cell[1]);
    const g = s("g", {transform: `translate(${x},${y})`, class: "target", "data-testid": `target-${target.cell[0]}-${target.cell[1]}`});
    g.append(s("rect", {width: CW - 4, height: CH - 4, rx: 5}));
    g.append(s("text", {x: 6, y: CH / 2, class: "target-label"}, target.label));
    g.addEventListener("click", target.onclick);
    root.append(g);
  }
  return root;
}

function cardFace(card, opts = {}) {
  return h("div", {class: "card-face " + card.kind + (opts.selected ? " selected" : "") + (opts.disabled ? " disabled" : ""),
    "data-testid": opts.testid, title: opts.why || card.text, onclick: opts.onclick},
    h("div", {class: "card-title"}, card.name), h("div", {class: "card-text"}, card.text),
    opts.why ? h("div", {class: "why"}, opts.why) : null);
}

function revenuePanel(scene) {
  const kinds = [["boarded", "board"], ["detrained", "detrain"], ["loaded", "load"], ["unloaded", "unload"], ["penalties", "penalty"]];
  if (scene.seats.some(x => x.breakdown.other)) kinds.push(["other", "other"]);
  return h("section", {id: "revenue", "data-testid": "revenue"}, h("h3", {}, scene.clock.over ? "Final revenue" : "Revenue"),
    h("table", {}, h("tr", {}, h("th", {}, "Seat"), kinds.map(k => h("th", {}, k[1])), h("th", {}, "total")),
      scene.seats.map(seat => h("tr", {class: seat.seat === scene.seat ? "mine" : "", "data-testid": `revenue-${seat.seat}`},
        h("td", {}, seat.label, scene.winners.includes(seat.seat) ? h("b", {class: "winner"}, " ★ wins") : null),
        kinds.map(k => h("td", {}, seat.breakdown[k[0]])), h("td", {class: "total"}, seat.revenue)))),
    scene.target ? h("p", {}, `Target: ${scene.target}${scene.coop ? " (the team together)" : ""}`) : null);
}

function timetablePanel(scene, warnings) {
  const slot = (scene.clock.stage - 1);
  return h("section", {id: "timetable", "data-testid": "timetable"}, h("h3", {}, "Timetable"),
    scene.timetable.length ? h("ul", {}, scene.timetable.map(t =>
      h("li", {class: t.slot < slot ? "past" : ""}, `${t.label} departs ${t.clock} (Stage ${t.stage_no})`))) :
      h("p", {}, "No train is timetabled yet."),
    (warnings || []).map(w => h("p", {class: "warning"}, "⚠ " + w)),
    scene.held.length ? h("p", {}, "Held (no free Crew Tray): " + scene.held.join(", ")) : null,
    scene.extras.length ? h("p", {}, "Extras waiting: " + scene.extras.map(e => `${e.label} (seat ${e.seat})`).join(", ")) : null,
    h("p", {}, `Crew Trays free: ${scene.crew_trays.free} of ${scene.crew_trays.total}`),
    h("p", {class: "yards"}, `Division Yard: ${scene.yards.division}`),
    h("p", {class: "yards"}, `Classification Yard: ${scene.yards.classification}`));
}

function clockText(scene) {
  const c = scene.clock;
  const fedora = scene.seats[c.fedora].label;
  return c.over ? `Game over after ${c.stages_played} Stages` :
    `Day ${c.day} of ${c.days} · Stage ${c.stage} (${c.time}) · ${c.phase.replaceAll("_", " ")} · Fedora: ${fedora}`;
}

function departmentsPanel(scene) {
  return h("section", {id: "departments"}, h("h3", {}, `Departments (Home Office: ${scene.home_office} cards, Salvage Yard: ${scene.salvage})`),
    h("div", {class: "cards"}, scene.departments.map(d => d.top ? cardFace(d.top, {testid: `department-${d.department}`}) :
      h("div", {class: "card-face empty"}, `Department ${d.department}: empty`))));
}

// ----------------------------------------------------------------------------- a game

const G = {id: null, mode: "seat", seat: null, shownHuman: null, data: null, pace: "slow", timer: null, poll: null,
  card: null, move: null, rules: false, covered: false};

async function gamePage(id) {
  G.id = id;
  const wanted = new URLSearchParams(location.search).get("seat") || "watch";
  G.mode = wanted === "hotseat" ? "hotseat" : wanted === "watch" ? "watch" : "seat";
  G.seat = G.mode === "seat" ? Number(wanted) : null;
  G.pace = localStorage.getItem("sm-pace") || "slow";
  G.goal = (await api("GET", "/api/options")).data.goal;
  document.addEventListener("keydown", event => { if (event.key === "Escape") { G.card = null; G.move = null; G.choices = null; render(); } });
  await refresh();
}

async function refresh() {
  clearTimeout(G.timer);
  const status = await api("GET", `/api/games/${G.id}`);
  if (!status.ok) return fail(status.data.error);
  if (G.mode === "hotseat") {
    const st = status.data;
    const human = !st.over && st.humans.includes(st.current) ? st.current : null;
    if (human !== null && human !== G.shownHuman) return cover(human);
    G.seat = human === null ? null : human;
  }
  await loadTable();
}

function fail(message) {
  document.getElementById("app").replaceChildren(h("p", {class: "error"}, message, " ", h("a", {href: "/"}, "Back to the start")));
}

function cover(seat) {
  // Nothing of the previous seat stays in the page: the table is emptied before the cover shows.
  document.getElementById("app").replaceChildren();
  G.data = null; G.card = null; G.move = null; G.seat = null;
  document.getElementById("cover-title").textContent = `Seat ${seat}'s turn`;
  const box = document.getElementById("cover");
  box.hidden = false;
  document.getElementById("cover-ready").onclick = async () => {
    box.hidden = true;
    G.shownHuman = seat;
    G.seat = seat;
    await loadTable();
  };
}

async function loadTable() {
  const seatParam = G.seat === null ? "watch" : G.seat;
  const answer = await api("GET", `/api/games/${G.id}/table?seat=${seatParam}${G.rules ? "&rules=1" : ""}`);
  if (!answer.ok) return fail(answer.data.error);
  show(answer.data);
}

function show(data) {
  const before = G.data ? G.data.status.number : null;
  G.data = data;
  if (before !== null && before !== data.status.number) { G.card = null; G.move = null; G.hint = null; G.choices = null; }
  render();
  schedule();
}

function schedule() {
  clearTimeout(G.timer);
  const st = G.data.status;
  if (st.over) return;
  if (st.bot_to_move) {
    const delay = PACES[G.pace];
    if (delay !== null) G.timer = setTimeout(advance, delay);
  } else if (G.seat === null || st.current !== G.seat) {
    G.timer = setTimeout(poll, 1500);  // another person's turn: look again soon
  }
}

async function poll() {
  const status = await api("GET", `/api/games/${G.id}`);
  if (status.ok && status.data.number !== G.data.status.number) return refresh();
  G.timer = setTimeout(poll, 1500);
}

async function advance() {
  const answer = await api("POST", `/api/games/${G.id}/advance`, {number: G.data.status.number, seat: G.seat});
  if (answer.status === 409) return refresh();
  if (!answer.ok) return say(answer.data.error, "error");
  if (G.mode === "hotseat") {
    const st = answer.data.status;
    if (!st.over && st.humans.includes(st.current) && st.current !== G.shownHuman) return cover(st.current);
  }
  show(answer.data);
}

async function decide(choice) {
  const answer = await api("POST", `/api/games/${G.id}/decide`, {seat: G.seat, number: G.data.status.number, decision: choice, rules: G.rules});
  if (answer.status === 409) {
    say(answer.data.error, "error");
    return loadTable();
  }
  if (!answer.ok) return say(answer.data.error, "error");
  say("");
  G.card = null; G.move = null;
  if (G.mode === "hotseat") {
    const st = answer.data.status;
    if (!st.over && st.humans.includes(st.current) && st.current !== G.shownHuman) return cover(st.current);
    if (!st.humans.includes(st.current)) { G.seat = null; }
  }
  show(answer.data);
}

async function undo() {
  const seat = G.seat !== null ? G.seat : G.shownHuman;
  const answer = await api("POST", `/api/games/${G.id}/undo`, {seat, number: G.data.status.number});
  if (!answer.ok) { say(answer.data.error, "error"); return answer.status === 409 ? loadTable() : null; }
  say(`Undone: ${answer.data.taken} decision(s) taken back.`);
  G.card = null; G.move = null;
  show(answer.data);
}

async function hint() {
  const answer = await api("GET", `/api/games/${G.id}/hint?seat=${G.seat}`);
  if (!answer.ok) return say(answer.data.error, "error");
  G.hint = answer.data;
  render();
}

async function ahead() {
  say("Estimating each seat's chance to win from your seat (a few seconds)…");
  const answer = await api("GET", `/api/games/${G.id}/ahead?seat=${G.seat}`);
  if (!answer.ok) return say(answer.data.error, "error");
  const labels = G.data.scene.seats.map(x => x.label);
  say("Chance to win, as your seat can judge it: " + answer.data.chances.map((c, i) => `${labels[i]} ${Math.round(c * 100)}%`).join(", "));
}

function render() {
  const data = G.data, scene = data.scene, st = data.status;
  document.getElementById("clock").textContent = clockText(scene);
  const mine = G.seat !== null ? scene.seats[G.seat].office : null;
  const decisions = data.decisions;
  const myTurn = G.seat !== null && st.current === G.seat && !st.over;

  // what the board offers for the chosen card or the Move being built
  let targets = [], trays = [], highlight = [];
  if (myTurn && G.card !== null) {
    const places = decisions.filter(d => (d.kind === "place_card" || d.kind === "place_modifier") && d.card === G.card);
    const byCell = {};
    for (const d of places) (byCell[cellKey(d.cell)] = byCell[cellKey(d.cell)] || []).push(d);
    targets = Object.values(byCell).map(ds => ({cell: ds[0].cell, label: ds.length > 1 ? `lay here (${ds.length} ways)` : "lay here",
      onclick: () => ds.length === 1 ? decide(ds[0].id) : chooseAmong(ds)}));
  }
  const moves = decisions.filter(d => d.kind === "move_tray");
  if (myTurn && moves.length) trays = [...new Set(moves.map(d => d.tray))];
  if (G.move) highlight = G.move.candidates.map(d => d.path[d.path.length - 1]);

  const railway = h("section", {id: "railway-panel"}, drawRailway(scene));
  const stationOrder = [...scene.stations].sort((a, b) => (b.office === mine) - (a.office === mine));
  const stations = h("section", {id: "stations"}, stationOrder.map(station => {
    const here = station.office === mine;
    const marks = {recent: data.recent.cells, recentTrays: data.recent.trays};
    const opts = here ? {...marks, targets, trays, highlight, selectedTray: G.move ? G.move.tray : null, onTray: startMove,
      onCell: chooseDestination} : marks;
    if (here && G.move && G.move.preview) {
      return h("div", {class: "station-wrap mine"}, h("h4", {}, "Your station after this Move (preview)"),
        drawStation(G.move.preview.station, {...scene, trains: G.move.preview.trains}, {}),
        h("h4", {}, "Your station now"), drawStation(station, scene, opts));
    }
    return h("div", {class: "station-wrap" + (here ? " mine" : "")}, drawStation(station, scene, opts));
  }));

  const hand = G.seat !== null ? scene.seats[G.seat].hand || [] : [];
  const handPanel = h("section", {id: "hand", "data-testid": "hand"}, h("h3", {}, G.seat !== null ? `Your hand (${hand.length})` : "Hands"),
    G.seat !== null ? h("div", {class: "cards"}, hand.map((card, i) => cardFace(card, {
      testid: `hand-${i}`, selected: G.card === card.card,
      why: data.hand_reasons[String(card.card)] || (data.hand_warnings || {})[String(card.card)],
      disabled: Boolean(data.hand_reasons[String(card.card)]),
      onclick: () => {
        if (data.hand_reasons[String(card.card)]) return say(data.hand_reasons[String(card.card)]);
        G.card = G.card === card.card ? null : card.card; G.move = null; G.choices = null; render();
      },
    }))) : null,
    h("p", {}, scene.seats.filter(x => x.seat !== G.seat).map(x => `${x.label}: ${x.hand_count} card(s)`).join(" · ")));

  const help = h("details", {class: "goal", "data-testid": "how-to-win"}, h("summary", {}, "How the game is won"),
    h("div", {class: "goal-text"}, G.goal || ""));
  const side = h("aside", {id: "side"}, turnPanel(data, myTurn), sincePanel(data), revenuePanel(scene), help,
    timetablePanel(scene, data.warnings), logPanel(data));
  const main = h("div", {id: "board"}, railway, stations, handPanel, departmentsPanel(scene));
  document.getElementById("app").replaceChildren(h("div", {class: "table"}, main, side));
  document.getElementById("seats-bar").replaceChildren(...scene.seats.map(x =>
    h("span", {class: "chip" + (x.seat === st.current ? " deciding" : "")}, `${x.label}: ${x.revenue}`)));
}

function chooseAmong(ds) {
  G.choices = ds;
  render();
}

function turnPanel(data, myTurn) {
  const st = data.status, scene = data.scene;
  const panel = h("section", {id: "turn", "data-testid": "turn"});
  const deciding = st.over ? null : scene.seats[st.current].label;
  panel.append(h("h3", {}, st.over ? "The game is over" : myTurn ? "Your decision" : `${deciding} is deciding`));
  panel.append(h("p", {class: "phase"}, data.phase_words));
  const building = scene.building !== null ? scene.trains.find(t => t.tray === scene.building) : null;
  if (building) {
    panel.append(h("div", {class: "building", "data-testid": "building"},
      h("div", {}, `Making up ${building.label}: `, building.consist.map(c => c.name).join(", ") || "no cars yet"),
      h("div", {class: "card-text"}, building.card.text)));
  }
  const controls = h("div", {class: "controls"});
  if (G.seat !== null || G.shownHuman !== null) controls.append(h("button", {onclick: undo, "data-testid": "undo"}, "Undo"));
  if (myTurn) {
    controls.append(h("button", {onclick: hint, "data-testid": "hint"}, "Hint"));
    controls.append(h("button", {onclick: ahead, "data-testid": "ahead"}, "Who is ahead?"));
  }
  const pace = h("select", {"data-testid": "pace", title: "how fast the bots play"},
    Object.keys(PACES).map(p => h("option", {value: p, selected: p === G.pace}, `bots: ${p}`)));
  pace.addEventListener("change", () => { G.pace = pace.value; localStorage.setItem("sm-pace", G.pace); schedule(); render(); });
  controls.append(pace);
  if (st.bot_to_move && G.pace === "step") controls.append(h("button", {onclick: advance, "data-testid": "step"}, "Next bot decision"));
  const rules = h("label", {}, h("input", {type: "checkbox", checked: G.rules, "data-testid": "show-rules"}), " rule ids");
  rules.querySelector("input").addEventListener("change", event => { G.rules = event.target.checked; loadTable(); });
  controls.append(rules);
  controls.append(h("a", {href: `/api/games/${G.id}/replay`, download: `${G.id}.json`}, "replay file"));
  panel.append(controls);
  if (st.save_problem) panel.append(h("p", {class: "warning"}, st.save_problem));
  if (G.hint && myTurn) {
    panel.append(h("p", {class: "hint", "data-testid": "hint-text"}, `The ${G.hint.bot} bot would ${G.hint.label}: ${G.hint.reason}.`));
  }
  if (!myTurn) return panel;

  const decisions = data.decisions;
  const buttons = h("div", {class: "buttons"});
  const BUTTONS = [["switch", "Switch", ["choose_switch"]], ["draw", "Draw", ["draw_home_office", "draw_department"]],
    ["freight_agent", "Freight Agent", ["stock_outbound", "clear_inbound", "unjam"]], ["pass", "Pass", ["pass"]],
    ["clearance", "Clearance", ["clearance"]], ["red_flag", "RED FLAG", ["red_flag"]],
    ["end", "End", ["end_switching", "end_turn", "end_consist", "end_cargo"]]];
  let listed = decisions;
  if (G.choices) listed = G.choices;
  else if (G.card !== null) listed = decisions.filter(d => d.card === G.card);
  else if (G.group) listed = decisions.filter(d => G.group.includes(d.kind));
  for (const [name, label, kinds] of BUTTONS) {
    const matching = decisions.filter(d => kinds.includes(d.kind));
    const why = data.unavailable[name];
    buttons.append(h("button", {class: matching.length ? "" : "greyed", "aria-disabled": matching.length ? null : "true",
      title: why || null, "data-testid": `button-${name}`,
      onclick: () => {
        if (!matching.length) return say(why || "Not possible now.", "error");
        if (matching.length === 1) return decide(matching[0].id);
        G.group = kinds; G.card = null; G.move = null; render(); G.group = null;
      }}, label));
  }
  panel.append(buttons);
  if (G.choices) panel.append(h("h4", {"data-testid": "choices"}, "Which way? (both fit here)"));
  if (G.move) panel.append(moveBuilder());
  else {
    const groups = {};
    for (const d of listed) {
      if (d.kind === "move_tray") continue;
      (groups[d.group] = groups[d.group] || []).push(d);
    }
    if (trayList(decisions).length && !G.card) panel.append(h("div", {class: "group"}, h("h4", {}, "Your trains"),
      trayList(decisions).map(tray => h("button", {class: "decision", onclick: () => startMove(tray), "data-testid": `move-tray-${tray}`},
        `Move ${trainName(tray)}… (click its train on your station)`))));
    for (const [group, ds] of Object.entries(groups)) {
      panel.append(h("div", {class: "group"}, h("h4", {}, group), ds.map(d =>
        h("button", {class: "decision", onclick: () => decide(d.id), "data-testid": `decision-${d.id}`}, d.label))));
    }
    if (G.card !== null && !listed.length) panel.append(h("p", {}, "Nothing can be done with this card now."));
  }
  return panel;
}

function trayList(decisions) { return [...new Set(decisions.filter(d => d.kind === "move_tray").map(d => d.tray))]; }

function trainName(tray) {
  const train = G.data.scene.trains.find(t => t.tray === tray);
  return train ? `${train.label} (Crew Tray ${tray})` : `Crew Tray ${tray}`;
}

// A Move is chosen as a person thinks of it: the train, the card to go to, the route if several
// lead there, the cars to leave on each card and to push off at the end. Each choice offers only
// values some remaining legal Move has, so the last one always leaves exactly one legal Move.
function startMove(tray) {
  const candidates = G.data.decisions.filter(d => d.kind === "move_tray" && d.tray === tray);
  G.move = {tray, all: candidates, candidates, dest: null, route: null, drops: [], push: null, preview: null};
  G.card = null;
  render();
}

function chooseDestination(cell) {
  const m = G.move;
  m.dest = cell;
  m.candidates = m.all.filter(d => sameCell(d.path[d.path.length - 1], cell));
  settle();
}

function settle() {
  const m = G.move;
  let c = m.all;
  if (m.dest) c = c.filter(d => sameCell(d.path[d.path.length - 1], m.dest));
  if (m.route !== null) c = c.filter(d => JSON.stringify(d.path) === m.route);
  m.drops.forEach((value, i) => { if (value !== null) c = c.filter(d => d.drops[i] === value); });
  if (m.push !== null) c = c.filter(d => d.push === m.push);
  m.candidates = c;
  m.preview = null;
  if (c.length === 1) previewMove(c[0]);
  render();
}

async function previewMove(decision) {
  const answer = await api("POST", `/api/games/${G.id}/preview`, {seat: G.seat, number: G.data.status.number, decision: decision.id});
  if (!answer.ok) return say(answer.data.error, "error");
  if (G.move && G.move.candidates.length === 1 && G.move.candidates[0].id === decision.id) {
    G.move.preview = answer.data;
    render();
  }
}

function distinct(values) {
  const seen = new Map();
  for (const v of values) seen.set(JSON.stringify(v), v);
  return [...seen.values()];
}

function moveBuilder() {
  const m = G.move;
  const box = h("div", {class: "move-builder", "data-testid": "move-builder"}, h("h4", {}, `Moving ${trainName(m.tray)}`));
  const dests = distinct(m.all.map(d => d.path[d.path.length - 1]));
  box.append(h("p", {}, "Go to: ", dests.map(cell => h("button", {class: m.dest && sameCell(m.dest, cell) ? "chosen" : "",
    "data-testid": `dest-${cell[0]}-${cell[1]}`, onclick: () => chooseDestination(cell)}, cellName(cell)))));
  if (m.dest) {
    const routes = distinct(m.candidates.map(d => JSON.stringify(d.path)));
    const routeOf = m.all.filter(d => sameCell(d.path[d.path.length - 1], m.dest));
    const allRoutes = distinct(routeOf.map(d => JSON.stringify(d.path)));
    if (allRoutes.length > 1) {
      box.append(h("p", {}, "Route: ", allRoutes.map(route => h("button", {class: m.route === route ? "chosen" : "",
        onclick: () => { m.route = route; m.drops = []; m.push = null; settle(); }},
        JSON.parse(route).map(cellName).join(" → ")))));
    } else if (routes.length === 1) m.route = routes[0];
    if (m.route !== null) {
      const path = JSON.parse(m.route);
      const onRoute = routeOf.filter(d => JSON.stringify(d.path) === m.route);
      path.forEach((cell, i) => {
        let pool = onRoute;
        for (let j = 0; j < i; j++) if (m.drops[j] !== undefined && m.drops[j] !== null) pool = pool.filter(d => d.drops[j] === m.drops[j]);
        const values = distinct(pool.map(d => d.drops[i])).sort((a, b) => a - b);
        if (values.length < 2) return;
        const select = h("select", {"data-testid": `drop-${i}`}, h("option", {value: ""}, "choose"),
          values.map(v => h("option", {value: v, selected: m.drops[i] === v}, `${v} car(s)`)));
        select.addEventListener("change", () => { m.drops[i] = select.value === "" ? null : Number(select.value); m.drops.length = i + 1; m.push = null; settle(); });
        box.append(h("label", {class: "step"}, `Leave behind at ${cellName(cell)}: `, select));
      });
      const pushes = distinct(m.candidates.map(d => d.push)).sort((a, b) => a - b);
      if (pushes.length > 1 || m.push !== null) {
        const select = h("select", {"data-testid": "push"}, h("option", {value: ""}, "choose"),
          distinct(onRoute.map(d => d.push)).sort((a, b) => a - b).map(v => h("option", {value: v, selected: m.push === v}, `${v} car(s)`)));
        select.addEventListener("change", () => { m.push = select.value === "" ? null : Number(select.value); settle(); });
        box.append(h("label", {class: "step"}, `Push off ahead at ${cellName(path[path.length - 1])}: `, select));
      }
    }
  }
  if (m.candidates.length === 1 && m.dest) {
    box.append(h("p", {class: "preview-label"}, m.preview ? m.preview.label : "…"));
    box.append(h("button", {class: "confirm", "data-testid": "confirm-move", onclick: () => decide(m.candidates[0].id)}, "Confirm the Move"));
  } else if (m.dest) box.append(h("p", {}, `${m.candidates.length} Moves fit so far: choose above.`));
  box.append(h("button", {onclick: () => { G.move = null; render(); }, "data-testid": "cancel-move"}, "Cancel"));
  return box;
}

function cellName(cell) {
  const mine = G.data.scene.stations[G.data.scene.seats[G.seat].office];
  const found = mine.cells.find(c => c.row === cell[0] && c.col === cell[1]);
  return `${found ? found.name : "card"} (${cell[0]},${cell[1]})`;
}

function sincePanel(data) {
  if (G.seat === null || !data.since || !data.since.length) return null;
  return h("section", {id: "since", "data-testid": "since"}, h("h3", {}, "Since your last turn"),
    h("ul", {}, data.since.map(line => h("li", {class: /^[+-]\d/.test(line) ? "money" : ""}, line))));
}

function logPanel(data) {
  const items = data.log.slice(-60).reverse();
  return h("section", {id: "log", "data-testid": "log"}, h("h3", {}, "Log"),
    h("ol", {reversed: true}, items.map(e => h("li", {class: e.seat === G.seat ? "mine" : ""},
      h("div", {}, e.text),
      e.events.filter(x => x.text !== e.text).map(x => h("div", {class: "event" + (/^[+-]\d/.test(x.text) ? " money" : "")},
        x.text + (x.rule ? ` [${x.rule}]` : "")))))));
}

// ----------------------------------------------------------------------------- a replay

const R = {id: null, head: null, index: 0, reveal: new Set(), chances: null};

async function replayPage(id) {
  R.id = id;
  const head = await api("GET", `/api/replays/${id}`);
  if (!head.ok) return fail(head.data.error);
  R.head = head.data;
  document.addEventListener("keydown", event => {
    if (event.target.tagName === "INPUT" && event.target.type !== "range") return;
    if (event.key === "ArrowRight") { event.preventDefault(); go(R.index + 1); }
    if (event.key === "ArrowLeft") { event.preventDefault(); go(R.index - 1); }
  });
  await go(0);
}

async function go(index) {
  R.index = Math.max(0, Math.min(R.head.total, index));
  const reveal = [...R.reveal].join(",");
  const answer = await api("GET", `/api/replays/${R.id}/at/${R.index}?reveal=${reveal}`);
  if (!answer.ok) return say(answer.data.error, "error");
  renderReplay(answer.data);
}

function renderReplay(pos) {
  const scene = pos.scene;
  document.getElementById("clock").textContent = clockText(scene);
  const slider = h("input", {type: "range", min: 0, max: R.head.total, value: pos.index, "data-testid": "scrub", id: "scrub"});
  slider.addEventListener("input", () => go(Number(slider.value)));
  const reveal = h("div", {class: "reveal"}, "Show hands: ", scene.seats.map(x => {
    const box = h("input", {type: "checkbox", checked: R.reveal.has(x.seat), "data-testid": `reveal-${x.seat}`});
    box.addEventListener("change", () => { box.checked ? R.reveal.add(x.seat) : R.reveal.delete(x.seat); go(R.index); });
    return h("label", {}, box, ` ${x.label} `);
  }));
  const bar = h("div", {class: "scrubber"},
    h("button", {onclick: () => go(R.index - 1), "data-testid": "prev"}, "◀"), slider,
    h("button", {onclick: () => go(R.index + 1), "data-testid": "next"}, "▶"),
    h("span", {"data-testid": "position"}, `Decision ${pos.index} of ${pos.total}`), reveal);
  const happened = h("section", {id: "happened"}, h("h3", {}, pos.decision ? pos.decision : "The start of the game"),
    h("ul", {}, pos.events.map(e => h("li", {}, e))));
  const hands = h("section", {id: "hands"}, scene.seats.filter(x => x.hand).map(x =>
    h("div", {}, h("h4", {}, `${x.label}'s hand`), h("div", {class: "cards"}, x.hand.map(c => cardFace(c, {}))))));
  const chartBox = h("section", {id: "charts"}, h("h3", {}, "Revenue over the game"), revenueChart(R.head.revenue, pos.index, R.head.labels));
  if (R.chances) chartBox.append(h("h3", {}, "Chance to win (each seat's own estimate, by rollouts)"), chanceChart(R.chances, pos.index, R.head.labels));
  else chartBox.append(h("button", {"data-testid": "estimate", onclick: estimateChances}, "Estimate each seat's chance to win over the game"));
  const main = h("div", {id: "board"}, bar, h("section", {}, drawRailway(scene)),
    h("section", {id: "stations"}, scene.stations.map(st => h("div", {class: "station-wrap"}, drawStation(st, scene)))), hands);
  const side = h("aside", {id: "side"}, happened, chartBox, revenuePanel(scene), timetablePanel(scene));
  document.getElementById("app").replaceChildren(h("div", {class: "table"}, main, side));
  const again = document.getElementById("scrub");
  again.focus();
}

async function estimateChances() {
  say("Estimating the chances at every Stage (rollouts; this can take a little while)…");
  const answer = await api("GET", `/api/replays/${R.id}/chances`);
  if (!answer.ok) return say(answer.data.error, "error");
  R.chances = answer.data.points;
  say("");
  go(R.index);
}

const SEAT_COLOURS = ["#d35400", "#2980b9", "#27ae60", "#8e44ad", "#c0392b", "#16a085"];

function lineChart(series, xmax, ymin, ymax, cursor, labels, testid) {
  const W = 360, H = 150, L = 30, B = 18;
  const sx = x => L + (W - L - 6) * (xmax ? x / xmax : 0), sy = y => H - B - (H - B - 6) * ((y - ymin) / ((ymax - ymin) || 1));
  const root = s("svg", {width: W, height: H + 18, class: "chart", "data-testid": testid});
  root.append(s("line", {x1: L, y1: H - B, x2: W - 6, y2: H - B, class: "axis"}));
  root.append(s("line", {x1: L, y1: 6, x2: L, y2: H - B, class: "axis"}));
  root.append(s("text", {x: 2, y: 12, class: "tick"}, ymax), s("text", {x: 2, y: H - B, class: "tick"}, ymin));
  series.forEach((points, seat) => {
    root.append(s("polyline", {points: points.map(([x, y]) => `${sx(x)},${sy(y)}`).join(" "), fill: "none",
      stroke: SEAT_COLOURS[seat % SEAT_COLOURS.length], "stroke-width": 2}));
  });
  root.append(s("line", {x1: sx(cursor), y1: 6, x2: sx(cursor), y2: H - B, class: "cursor"}));
  labels.forEach((label, seat) => root.append(s("text", {x: L + (seat % 3) * 110, y: H + 14 + Math.floor(seat / 3) * 12, fill: SEAT_COLOURS[seat % SEAT_COLOURS.length], class: "legend"}, label)));
  return root;
}

function revenueChart(curve, cursor, labels) {
  const seats = curve[0].length;
  const series = [...Array(seats).keys()].map(seat => curve.map((row, i) => [i, row[seat]]));
  const values = curve.flat();
  return lineChart(series, curve.length - 1, Math.min(0, ...values), Math.max(1, ...values), cursor, labels, "revenue-chart");
}

function chanceChart(points, cursor, labels) {
  const seats = points.length ? points[0].chances.length : 0;
  const series = [...Array(seats).keys()].map(seat => points.map(p => [p.decisions, p.chances[seat]]));
  return lineChart(series, R.head.total, 0, 1, cursor, labels, "chance-chart");
}

// ----------------------------------------------------------------------------- start

(function start() {
  const path = location.pathname;
  const game = path.match(/^\/game\/([A-Za-z0-9_-]+)$/);
  const replay = path.match(/^\/replay\/([A-Za-z0-9_-]+)$/);
  if (game) gamePage(game[1]);
  else if (replay) replayPage(replay[1]);
  else homePage();
})();
