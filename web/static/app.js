// The cardarena web table: plays through the JSON API (docs/web_api.md), nothing else.
"use strict";

const $ = (id) => document.getElementById(id);
const page = { envs: [], info: {}, vs: "heuristic", game: null, busy: false, steps: 0, replay: null, at: 0 };

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["content-type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new Error("the server cannot be reached (" + error.message + ")");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    throw new Error("the server answered " + response.status + " without JSON");
  }
  if (!response.ok) throw new Error(data && data.error ? data.error : "error " + response.status);
  return data;
}

function setStatus(id, text, isError) {
  const node = $(id);
  node.textContent = text;
  node.classList.toggle("error", Boolean(isError));
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

// --- tabs ------------------------------------------------------------------------------
function showTab(name) {
  for (const tab of ["play", "replay", "rules"]) {
    $("tab-" + tab).setAttribute("aria-selected", String(tab === name));
    $(tab).hidden = tab !== name;
  }
  if (name === "rules") loadRules($("rules-env").value);
}

// --- the SVG: only drawing elements reach the page --------------------------------------
function safeSvg(markup) {
  const doc = new DOMParser().parseFromString(markup, "image/svg+xml");
  const root = doc.documentElement;
  if (!root || root.nodeName !== "svg" || doc.getElementsByTagName("parsererror").length) {
    const note = document.createElement("p");
    note.textContent = "(the table picture could not be drawn)";
    return note;
  }
  for (const bad of root.querySelectorAll("script, foreignObject, iframe, a")) bad.remove();
  for (const element of [root, ...root.querySelectorAll("*")]) {
    for (const attribute of [...element.attributes]) {
      const name = attribute.name.toLowerCase();
      if (name.startsWith("on") || name === "href" || name === "xlink:href") {
        element.removeAttribute(attribute.name);
      }
    }
  }
  return document.importNode(root, true);
}

// --- a small markdown renderer for the rules (escapes everything first) ----------------
function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function inline(text) {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
}

function markdown(source) {
  const out = [];
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  let list = null;
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) out.push("<p>" + inline(paragraph.join(" ")) + "</p>");
    paragraph = [];
    if (list) out.push("</" + list + ">");
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("```")) {
      flush();
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) code.push(lines[i]);
      out.push("<pre><code>" + escapeHtml(code.join("\n")) + "</code></pre>");
      continue;
    }
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1].length;
      out.push("<h" + level + ">" + inline(heading[2]) + "</h" + level + ">");
      continue;
    }
    if (/^\s*\|.*\|\s*$/.test(line)) {
      flush();
      const rows = [];
      for (; i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i]); i++) rows.push(lines[i]);
      i--;
      const cells = (row) => row.trim().slice(1, -1).split("|").map((c) => inline(c.trim()));
      const body = rows.filter((row) => !/^\s*\|[\s:|-]+\|\s*$/.test(row));
      const html = body.map((row, n) => {
        const tag = n === 0 && rows.length > 1 ? "th" : "td";
        return "<tr>" + cells(row).map((c) => "<" + tag + ">" + c + "</" + tag + ">").join("") + "</tr>";
      });
      out.push("<table>" + html.join("") + "</table>");
      continue;
    }
    const item = /^\s*(?:([-*])|(\d+)\.)\s+(.*)$/.exec(line);
    if (item) {
      const kind = item[1] ? "ul" : "ol";
      if (paragraph.length) { out.push("<p>" + inline(paragraph.join(" ")) + "</p>"); paragraph = []; }
      if (list !== kind) {
        if (list) out.push("</" + list + ">");
        out.push("<" + kind + ">");
        list = kind;
      }
      out.push("<li>" + inline(item[3]) + "</li>");
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    if (list && /^\s+/.test(line)) {  // a list item continued on the next line
      const last = out.pop();
      out.push(last.replace(/<\/li>$/, " " + inline(line.trim()) + "</li>"));
      continue;
    }
    if (list) flush();
    paragraph.push(line.trim());
  }
  flush();
  return out.join("\n");
}

// --- choosing a game ---------------------------------------------------------------------
function fillSeats() {
  const info = page.info[$("env").value];
  if (!info) return;
  const players = info.players_key ? String($("players").value || info.default_players) : String(info.default_players);
  const seats = info.seats[players] || info.seats[String(info.default_players)] || [];
  const seat = $("seat");
  const chosen = seat.value;
  clear(seat);
  seats.forEach((name, index) => {
    const option = document.createElement("option");
    option.value = String(index);
    option.textContent = name;
    seat.appendChild(option);
  });
  if (chosen && Number(chosen) < seats.length) seat.value = chosen;
}

function chooseEnv() {
  const info = page.info[$("env").value];
  if (!info) return;
  $("players-label").hidden = !info.players_key;
  $("players").min = String(info.min_players);
  $("players").max = String(info.max_players);
  $("players").value = String(info.default_players);
  $("seat").value = "0";
  fillSeats();
  $("how-to-win").textContent = "How to win: " + info.how_to_win;
  $("rules-env").value = info.name;
  loadShortRules(info.name);
}

const rulesCache = {};
async function rulesOf(env) {
  if (!rulesCache[env]) rulesCache[env] = await api("GET", "/api/rules/" + encodeURIComponent(env));
  return rulesCache[env];
}

async function loadShortRules(env) {
  const box = $("short-rules").querySelector(".md");
  try {
    const rules = await rulesOf(env);
    box.innerHTML = markdown(rules.short || "");
  } catch (error) {
    box.textContent = "(" + error.message + ")";
  }
}

async function loadRules(env) {
  const box = $("rules-text");
  try {
    const rules = await rulesOf(env);
    box.innerHTML = markdown(rules.markdown || "");
  } catch (error) {
    box.textContent = "(" + error.message + ")";
  }
}

async function startGame(event) {
  event.preventDefault();
  const info = page.info[$("env").value];
  const body = { env: info.name, vs: $("vs").value.trim() || page.vs };
  let config = {};
  const configText = $("config").value.trim();
  if (configText) {
    try {
      config = JSON.parse(configText);
    } catch (error) {
      setStatus("status", "the config is not JSON: " + error.message, true);
      return;
    }
  }
  if (info.players_key && $("players").value && config && typeof config === "object" && !Array.isArray(config)) {
    config[info.players_key] = Number($("players").value);
  }
  body.config = config;
  body.seat = Number($("seat").value || 0);
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  await request(() => api("POST", "/api/games", body), "dealing ...");
}

async function act(action) {
  if (!page.game || page.busy) return;
  await request(() => api("POST", "/api/games/" + encodeURIComponent(page.game.id) + "/act", { action }), "playing ...");
}

async function request(call, note) {
  if (page.busy) return;
  page.busy = true;
  document.body.dataset.busy = "1";
  setStatus("status", note, false);
  try {
    render(await call());
  } catch (error) {
    setStatus("status", error.message, true);
  } finally {
    page.busy = false;
    document.body.dataset.busy = "0";
  }
}

// --- showing a game ----------------------------------------------------------------------
function render(game) {
  page.game = game;
  const table = $("table");
  clear(table);
  table.appendChild(safeSvg(game.svg));
  for (const element of table.querySelectorAll(".act")) {
    if (!element.hasAttribute("tabindex")) element.setAttribute("tabindex", "0");
  }

  const actions = $("actions");
  clear(actions);
  for (const move of game.legal) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "action";
    button.dataset.action = String(move.action);
    button.textContent = move.name;
    button.addEventListener("click", () => act(move.action));
    actions.appendChild(button);
  }
  if (!game.legal.length) actions.textContent = game.over ? "The game is over." : "Waiting for the others.";

  const log = $("log");
  clear(log);
  const fresh = game.events.length - game.new_events.length;
  game.events.forEach((line, index) => {
    const item = document.createElement("li");
    item.textContent = line;
    if (index >= fresh) item.className = "new";
    log.appendChild(item);
  });
  log.scrollTop = log.scrollHeight;

  $("how-to-win").textContent = "How to win: " + game.how_to_win;
  const result = $("result");
  if (game.outcome) {
    result.hidden = false;
    result.textContent = game.outcome.line;
    result.className = game.outcome.result;
  } else {
    result.hidden = true;
    result.textContent = "";
  }
  const who = game.seat + " (seed " + game.seed + ")";
  setStatus(
    "status",
    game.over ? "Game over. You played " + who + "." : game.to_act ? "Your turn, " + who + ": click a highlighted card or box, or a move button." : "Waiting for " + game.turn + ".",
    false,
  );
  page.steps += 1;
  document.body.dataset.step = String(page.steps);
  document.body.dataset.over = game.over ? "1" : "0";
}

function onTableClick(event) {
  const target = event.target.closest ? event.target.closest(".act") : null;
  if (!target || !$("table").contains(target)) return;
  event.preventDefault();
  act(Number(target.getAttribute("data-action")));
}

function onTableKey(event) {
  if (event.key !== "Enter" && event.key !== " ") return;
  onTableClick(event);
}

// --- the replay viewer -------------------------------------------------------------------
// The server sends one page of frames at a time (frame 0 is the deal, frame k the table after
// move k) and keeps nothing between requests: the page holds the record text and sends it
// again for each page it needs, keeping the last few pages it got (docs/web_api.md).
const REPLAY_PAGE = 200; // frames asked for at a time (the server's default; at most 500)
const REPLAY_KEEP = 8; // pages kept in the browser
const REPLAY_AHEAD = 40; // fetch the next page this many frames before the end of one
let replayLoads = 0;

async function loadReplay(event) {
  event.preventDefault();
  let text = $("record").value;
  const file = $("record-file").files[0];
  if (file && !text.trim()) text = await file.text();
  if (!text.trim()) {
    setStatus("replay-status", "paste a record or choose a file first", true);
    return;
  }
  setStatus("replay-status", "replaying ...", false);
  const replay = {
    load: ++replayLoads,
    request: { record: text, game: Number($("replay-game").value || 0), any_version: $("any-version").checked },
    pages: new Map(), // first frame -> frames, oldest first
    pending: new Map(), // first frame -> the request in flight
    total: 0,
    fetches: 0,
    timer: null,
  };
  let first;
  try {
    first = await replayFetch(replay, 0, true);
  } catch (error) {
    if (replay.load !== replayLoads) return;
    $("replay-view").hidden = true;
    setStatus("replay-status", error.message, true);
    return;
  }
  if (replay.load !== replayLoads) return; // another record was loaded meanwhile
  page.replay = replay;
  replay.total = first.total_steps;
  const count = first.games.length;
  setStatus("replay-status", count > 1 ? "game " + first.game + " of the " + count + " in the text (0.." + (count - 1) + ")" : "", false);
  const lineup = Object.entries(first.lineup).map(([seat, spec]) => seat + ": " + spec).join(", ");
  $("replay-summary").textContent = first.env + ", seed " + first.seed + " (" + lineup + "), " + replay.total + " moves";
  $("replay-result").textContent = first.result;
  $("replay-slider").max = String(replay.total);
  $("replay-goto").max = String(replay.total);
  $("replay-view").hidden = false;
  showStep(0);
}

// One page of frames from `from` on; `loud` requests report their error to the caller.
function replayFetch(replay, from, loud) {
  if (replay.pending.has(from)) return replay.pending.get(from);
  const body = Object.assign({}, replay.request, { from, count: REPLAY_PAGE });
  const call = api("POST", "/api/replays", body)
    .then((answer) => {
      replay.fetches += 1;
      document.body.dataset.replayFetches = String(replay.fetches);
      replay.pages.delete(answer.from);
      replay.pages.set(answer.from, answer.frames);
      while (replay.pages.size > REPLAY_KEEP) replay.pages.delete(replay.pages.keys().next().value);
      return answer;
    })
    .finally(() => replay.pending.delete(from));
  replay.pending.set(from, call);
  if (!loud) call.catch(() => {});
  return call;
}

// The frame at `step` if a kept page holds it (and that page's first frame), else null.
function replayFrame(replay, step) {
  for (const [from, frames] of replay.pages) {
    if (from <= step && step < from + frames.length) return { frame: frames[step - from], from, frames };
  }
  return null;
}

// Show frame `position` (clamped to 0..total). `by` is +1 or -1 when the person steps one
// frame: then the neighbouring page is fetched ahead, before it is needed.
function showStep(position, by = 0) {
  const replay = page.replay;
  if (!replay) return;
  page.at = Math.max(0, Math.min(Number.isFinite(position) ? Math.trunc(position) : position > 0 ? replay.total : 0, replay.total));
  $("replay-slider").value = String(page.at);
  $("replay-back").disabled = $("replay-first").disabled = page.at === 0;
  $("replay-forward").disabled = $("replay-last").disabled = page.at === replay.total;
  $("replay-position").textContent = "step " + page.at + " of " + replay.total;
  const found = replayFrame(replay, page.at);
  clearTimeout(replay.timer);
  if (found) {
    drawFrame(found.frame);
    if (by) prefetch(replay, found.from, found.frames.length, by);
    return;
  }
  $("replay-move").textContent = "loading step " + page.at + " ...";
  $("replay-view").classList.add("loading");
  document.body.dataset.replayLoading = "1";
  // The slider may be moving: ask only for where it stops.
  replay.timer = setTimeout(() => fetchFor(replay, page.at), 120);
}

// Fetch the page that holds `step`: the one starting at a multiple of REPLAY_PAGE, or, when
// the server cut that page short (long table texts), the one starting at `step` itself.
function fetchFor(replay, step, from = Math.floor(step / REPLAY_PAGE) * REPLAY_PAGE) {
  replayFetch(replay, from, true)
    .then((answer) => {
      if (page.replay !== replay) return;
      if (answer.from + answer.frames.length <= step && from !== step) return fetchFor(replay, step, step);
      if (page.at === step) showStep(step);
    })
    .catch((error) => {
      if (page.replay === replay) setStatus("replay-status", error.message, true);
    });
}

// Stepping near the end (or, backwards, the start) of a kept page: fetch the page beyond it.
function prefetch(replay, from, length, by) {
  const end = from + length;
  if (by > 0 && page.at >= end - REPLAY_AHEAD && end <= replay.total && !replayFrame(replay, end)) {
    replayFetch(replay, end, false);
  }
  if (by < 0 && from > 0 && page.at < from + REPLAY_AHEAD && !replayFrame(replay, from - 1)) {
    replayFetch(replay, Math.floor((from - 1) / REPLAY_PAGE) * REPLAY_PAGE, false);
  }
}

function drawFrame(frame) {
  $("replay-text").textContent = frame.text;
  $("replay-move").textContent = frame.step === 0 ? "The deal, before the first move." : frame.seat + ": " + frame.name;
  const events = $("replay-events");
  clear(events);
  for (const line of frame.events) {
    const item = document.createElement("li");
    item.textContent = line;
    events.appendChild(item);
  }
  $("replay-view").classList.remove("loading");
  document.body.dataset.replayStep = String(frame.step);
  document.body.dataset.replayLoading = "0";
}

// --- start -------------------------------------------------------------------------------
async function main() {
  for (const tab of ["play", "replay", "rules"]) $("tab-" + tab).addEventListener("click", () => showTab(tab));
  $("new-game").addEventListener("submit", startGame);
  $("env").addEventListener("change", chooseEnv);
  $("players").addEventListener("input", fillSeats);
  $("table").addEventListener("click", onTableClick);
  $("table").addEventListener("keydown", onTableKey);
  $("rules-env").addEventListener("change", () => loadRules($("rules-env").value));
  $("replay-form").addEventListener("submit", loadReplay);
  $("replay-first").addEventListener("click", () => showStep(0));
  $("replay-back").addEventListener("click", () => showStep(page.at - 1, -1));
  $("replay-forward").addEventListener("click", () => showStep(page.at + 1, 1));
  $("replay-last").addEventListener("click", () => showStep(Infinity));
  $("replay-slider").addEventListener("input", (event) => showStep(Number(event.target.value)));
  $("replay-goto").addEventListener("change", (event) => {
    if (event.target.value !== "") showStep(Number(event.target.value));
  });
  $("record-file").addEventListener("change", () => { if ($("record-file").files[0]) $("record").value = ""; });
  const keys = { ArrowRight: 1, ArrowLeft: -1, PageDown: 100, PageUp: -100 };
  document.addEventListener("keydown", (event) => {
    if ($("replay").hidden || !page.replay || event.target.closest("input, textarea, select")) return;
    if (event.key in keys) showStep(page.at + keys[event.key], Math.sign(keys[event.key]));
    else if (event.key === "Home") showStep(0);
    else if (event.key === "End") showStep(Infinity);
    else return;
    event.preventDefault(); // the page does not scroll too
  });

  let data;
  try {
    data = await api("GET", "/api/envs");
  } catch (error) {
    setStatus("status", error.message, true);
    return;
  }
  page.envs = data.envs;
  page.vs = data.vs;
  $("vs").value = data.vs;
  for (const agent of data.agents) {
    const option = document.createElement("option");
    option.value = agent.name;
    option.textContent = agent.doc;
    $("agents").appendChild(option);
  }
  for (const info of data.envs) {
    page.info[info.name] = info;
    for (const select of [$("env"), $("rules-env")]) {
      const option = document.createElement("option");
      option.value = info.name;
      option.textContent = info.title + " (" + info.name + ")";
      select.appendChild(option);
    }
  }
  const wanted = new URLSearchParams(location.search).get("env");
  if (wanted && page.info[wanted]) $("env").value = wanted;
  chooseEnv();
  document.body.dataset.ready = "1";
}

main();
