// The organizer's live dashboard on the campaign page (templates/organizer/_dashboard.html). Every poll fetches the
// judging data (dashboard.json) and the leaderboard (leaderboard.json); the history (history.json) is fetched again
// when the data changed, while checkpoints are still being computed, or when K changes. Polling pauses while the
// page is hidden. Text from the server (system, judge and flag texts) only ever goes into textContent.
//
// Accessibility: the organizer can pause the updates ("Pause updates", aria-pressed; WCAG 2.2.2), e.g. to read a
// table with a screen reader while it stays put. The time of the last update is shown but not announced (it
// changes at every poll); a screen reader hears, in the polite region #dashboard-announce, only that an update
// failed and that updates work again. The stopping hint (a polite live region) is written only when its text
// changes.
const root = document.getElementById("dashboard");
const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1f5fbf", "#c0392b", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#2c3e50", "#b7950b", "#e84393",
  "#6d4c41", "#00838f", "#7cb342", "#5e35b1", "#f4511e", "#546e7a", "#ad1457", "#2e7d32", "#283593", "#ef6c00",
  "#00695c"];
const state = { historyKey: null, k: null, timer: null, paused: false, failing: false, status: "Loading…" };

const $ = (id) => document.getElementById(id);
const seconds = (value) => (value === null ? "–" : `${value.toFixed(1)} s`);
const score = (value) => (value === null ? "–" : value.toFixed(3));
const count = (value) => (value === null ? "–" : value.toLocaleString("en"));
// A rater's p-value as gecappraise/p_values.py writes it on the Rater QC page: four decimals, "< 0.0001" below.
const pValue = (value) => (value === null ? "–" : value < 0.00005 ? "< 0.0001" : value.toFixed(4));
// "1 flagged screen", "2 flagged screens": a count with its noun in the singular or the plural.
const counted = (value, noun, plural = `${noun}s`) => `${count(value)} ${value === 1 ? noun : plural}`;

// Writes ``text`` into ``element`` only when it differs, so that a live region is not announced again unchanged.
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

function showStatus(text = state.status) {
  state.status = text;
  $("dashboard-status").textContent = `${state.paused ? "Paused. " : ""}${text}`;
}

function announce(text) {
  $("dashboard-announce").textContent = text;
}

function cell(row, text, className = "", title = "") {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
  if (title) td.title = title;
  return td;
}

function fillTable(id, items, render, emptyText, columns) {
  const body = $(id).tBodies[0];
  body.replaceChildren();
  for (const item of items) render(body.insertRow(), item);
  if (!items.length) cell(body.insertRow(), emptyText).colSpan = columns;
}

function renderPlan({ plan, times, snapshot }) {
  $("plan-bar").max = Math.max(plan.slots, 1);
  $("plan-bar").value = plan.submitted;
  $("plan-slots").textContent = `${count(plan.submitted)} of ${count(plan.slots)} submitted` +
    ` (${count(plan.claimed)} claimed); ${counted(snapshot.judgments, "judgment")} in all`;
  $("plan-screens").textContent = `${counted(plan.screens, "screen")}: ${count(plan.screens_complete)} complete, ` +
    `${count(plan.screens_started)} started, ${count(plan.excluded_screens)} excluded from analysis`;
  $("plan-redundancy").textContent = `${counted(plan.redundancy, "judge")} per screen`;
  $("plan-repeats").textContent = `${count(plan.repeats_submitted)} done, ${count(plan.repeats_due)} due now, ` +
    `${count(plan.repeats_later)} scheduled later`;
  $("plan-flags").textContent = count(plan.flags);
  $("times-median").textContent = times.median === null ? `– (${times.reason})` : seconds(times.median);
  $("times-trimmed").textContent = seconds(times.trimmed_mean);
  $("times-count").textContent = count(times.screens);
}

// The campaign's state in the page's facts: closed (when, as the server writes it) or open, with the way to change
// it, kept current when the campaign is closed or opened elsewhere (another tab, the API, the admin).
function renderClosed({ closed_at: closedAt, closed_at_text: closedText }) {
  setText($("campaign-closed-at"), closedAt === null ? "Open" : `Closed at ${closedText}`);
  $("close-link").hidden = closedAt !== null;
  $("reopen-link").hidden = closedAt === null;
}

function renderJudges(judges) {
  fillTable("judge-progress", judges, (row, judge) => {
    row.dataset.judge = judge.judge;
    cell(row, judge.judge);
    for (const key of ["submitted", "repeats_submitted", "repeats_due", "flags", "checks"]) {
      cell(row, count(judge[key]), "number");
    }
    const rate = judge.attention_rate === null ? "–" : `${Math.round(100 * judge.attention_rate)}%`;
    cell(row, rate, "number rate", judge.attention_rate === null ? "no attention check judged yet" : "");
    cell(row, seconds(judge.times.median), "number", judge.times.reason || "");
    cell(row, seconds(judge.times.trimmed_mean), "number", judge.times.reason || "");
  }, "No judges yet.", 9);
}

// The campaign's screen count and its jobs adding screens in the background, under "Add screens" (outside the
// dashboard; the page lists the jobs, this keeps their progress and status current). A job that failed has its
// "Go on" button (posted with the page's CSRF token), and only such a job.
function renderScreenJobs(jobs, screens) {
  setText($("screens-so-far"), counted(screens, "screen"));
  for (const job of jobs) {
    const row = document.querySelector(`#screen-jobs tr[data-job="${job.id}"]`);
    if (!row) continue;
    const bar = row.querySelector("progress");
    bar.max = job.requested;
    bar.value = job.created;
    bar.textContent = `${count(job.created)} of ${count(job.requested)}`;
    setText(row.querySelector(".job-created"), count(job.created));
    setText(row.querySelector(".job-status"), job.error ? `${job.status_text}: ${job.error}` : job.status_text);
    const resume = row.querySelector("form");
    if (job.status !== "failed") {
      resume?.remove();
    } else if (!resume) {
      const form = document.createElement("form");
      form.method = "post";
      form.className = "inline";
      form.action = row.dataset.resumeUrl;
      form.append(document.querySelector("input[name=csrfmiddlewaretoken]").cloneNode());
      const button = document.createElement("button");
      button.type = "submit";
      button.textContent = "Go on";
      form.append(button);
      row.querySelector(".job-status").after(" ", form);
    }
  }
}

function renderFlags(flags) {
  $("flags-summary").textContent = flags.total > flags.shown.length
    ? `The newest ${flags.shown.length} of ${count(flags.total)} flags.` : `${counted(flags.total, "flagged screen")}.`;
  fillTable("flags", flags.shown, (row, flag) => {
    row.dataset.screen = flag.screen;
    const link = document.createElement("a");
    link.href = flag.url;
    link.textContent = `Screen ${flag.screen} (line ${flag.line})`;
    row.insertCell().append(link);
    cell(row, flag.judge);
    cell(row, flag.reason, "reason");
    cell(row, flag.details || "–", "details");
    // In UTC, as the site's other times ("2026-12-06 21:55", as the screen's page lists its judgments).
    cell(row, flag.flagged_at ? new Date(flag.flagged_at).toISOString().slice(0, 16).replace("T", " ") : "–");
    cell(row, flag.excluded ? "Excluded" : "Counted", flag.excluded ? "excluded" : "");
  }, "No screen has been flagged.", 6);
}

function renderRaterQc(qc) {
  const rule = qc.rule;
  $("rater-qc-summary").textContent = `${counted(qc.raters.length, "rater")}, ${count(qc.excluded)} left out of the ` +
    `analyses. Pass: (a) at least ${Math.round(100 * rule.control_threshold)}%, (b) p ≤ ${rule.p_value}` +
    (rule.min_total_seconds > 0 ? `, (c) at least ${rule.min_total_seconds} s in total` : "") +
    (rule.min_median_seconds > 0 ? `, a median of at least ${rule.min_median_seconds} s per screen` : "") + ".";
  fillTable("rater-qc", qc.raters, (row, rater) => {
    row.dataset.rater = rater.rater;
    cell(row, rater.rater);
    cell(row, count(rater.attempt), "number");
    cell(row, count(rater.screens), "number");
    const share = rater.control_rate === null ? "–"
      : `${count(rater.control_passed)} of ${count(rater.control_screens)} (${Math.round(100 * rater.control_rate)}%)`;
    cell(row, share, "number", rater.control_rate === null ? "no control screen judged yet" : "");
    cell(row, pValue(rater.p_value), "number", rater.reason || "");
    cell(row, rater.total_seconds === null ? "–" : `${Math.round(rater.total_seconds)} s`, "number");
    cell(row, seconds(rater.median_seconds), "number");
    cell(row, rater.excluded ? "Excluded" : "Included", rater.excluded ? "excluded verdict" : "verdict");
    cell(row, rater.why, "why");
  }, "No rater has judged yet.", 9);
}

function renderLeaderboard(board) {
  const reason = $("leaderboard-reason");
  reason.hidden = board.reason === null;
  reason.textContent = board.reason === null ? "" : `No ranking yet: ${board.reason}.`;
  if (board.rater_qc_url) {
    // Every judgment so far is one rater QC leaves out: the organizer decides on the raters on its page.
    const link = document.createElement("a");
    link.href = board.rater_qc_url;
    link.textContent = "rater QC page";
    reason.append(" Include a rater by hand or offer a fresh attempt on the ", link, ".");
  }
  fillTable("leaderboard", board.systems, (row, system) => {
    row.dataset.system = system.system;
    cell(row, system.range === null ? "–" : system.range.join("–"), "number range", system.reason || "");
    cell(row, system.system);
    cell(row, score(system.score), "number score", system.score === null ? system.reason || board.reason : "");
    cell(row, score(system.full_data_score), "number");
    cell(row, system.cluster === null ? "–" : String(system.cluster), "number cluster");
    cell(row, count(system.pairs), "number", system.pairs === 0 ? "never compared yet" : "");
    cell(row, system.unresolved_with.join(", ") || "–", "unresolved");
  }, "No systems.", 7);
  const pairs = board.system_pairs;
  $("separated-pairs").textContent = pairs.separated === null
    ? `Separated system pairs: – (${pairs.reason}).`
    : `${count(pairs.separated)} of ${counted(pairs.total, "system pair")} separated; ` +
      `${count(pairs.unresolved.length)} still unresolved (overlapping rank ranges).` +
      separationEstimate(pairs.more_judgments);
}

// The estimate of more judgments the unresolved pairs need (ranking/core/separation.py), as one sentence.
function separationEstimate(more) {
  if (!more || more.pairs.length === 0) return "";
  const unknown = more.without_estimate;
  const tied = unknown ? ` ${count(unknown)} of them ${unknown === 1 ? "has" : "have"} no estimate (never compared, ` +
    "or even so far: perhaps ties)." : "";
  if (more.all === null) return tied;
  const which = unknown ? "the pairs with an estimate" : "them";
  return ` About ${counted(more.all, "more judgment", "more judgments")} would separate ${which} at this rate ` +
    `(${Math.round(100 * more.confidence)}% confidence, ${Math.round(100 * more.power)}% power).` + tied;
}

function renderRaters(raters) {
  const box = $("rater-checks");
  box.hidden = !raters;
  if (!raters) return;
  $("rater-threshold").textContent = `${Math.round(100 * raters.threshold)}%`;
  const body = box.querySelector("tbody");
  body.replaceChildren();
  for (const rater of raters.checks) {
    const row = body.insertRow();
    row.dataset.judge = rater.judge;
    cell(row, rater.judge);
    cell(row, count(rater.screens), "number");
    cell(row, rater.rate === null ? "–" : `${Math.round(100 * rater.rate)}%`, "number", rater.reason || "");
    cell(row, rater.excluded ? "Left out" : "Counted");
  }
}

function renderStopping(hint) {
  const box = $("stopping-hint");
  box.classList.toggle("met", hint.met);
  if (hint.reason) {
    setText(box, `Stopping hint: not yet (${hint.reason}).`);
  } else if (hint.met) {
    setText(box, `Clusters unchanged over the last ${counted(hint.k, "judgment")} (the same since ` +
      `${count(hint.stable_since)}): more judgments are unlikely to change them.`);
  } else if (hint.stable_for === 0) {
    setText(box, `The clusters are new at the newest checkpoint (${counted(hint.stable_since, "judgment")}); ` +
      `the hint waits until they stay the same over ${counted(hint.k, "judgment")}.`);
  } else {
    setText(box, `Clusters unchanged over the last ${counted(hint.stable_for, "judgment")} (since ` +
      `${count(hint.stable_since)}); the hint waits for ${count(hint.k)}.`);
  }
}

function svgElement(name, attributes, parent) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  parent.append(element);
  return element;
}

// A line chart of series [{name, color, points: [[x, y], ...]}] with y from 0 to yMax, x from 0 to xMax.
function lineChart(svg, series, xMax, yMax, yLabel) {
  svg.replaceChildren();
  const [left, top, width, height] = [48, 12, 576, 210];
  const x = (value) => left + (width * value) / Math.max(xMax, 1);
  const y = (value) => top + height - (height * value) / Math.max(yMax, 1e-9);
  svgElement("line", { x1: left, y1: top + height, x2: left + width, y2: top + height, class: "axis" }, svg);
  svgElement("line", { x1: left, y1: top, x2: left, y2: top + height, class: "axis" }, svg);
  for (const [value, anchor] of [[0, "end"], [yMax, "end"]]) {
    svgElement("text", { x: left - 6, y: y(value) + 4, "text-anchor": anchor, class: "tick" }, svg).textContent =
      Number.isInteger(value) ? count(value) : value.toFixed(2);
  }
  svgElement("text", { x: left + width, y: top + height + 30, "text-anchor": "end", class: "tick" }, svg)
    .textContent = `${count(xMax)} judgments`;
  svgElement("text", { x: left, y: top + height + 30, "text-anchor": "start", class: "tick" }, svg).textContent = "0";
  svgElement("text", { x: 12, y: top + height / 2, class: "tick", transform: `rotate(-90 12 ${top + height / 2})`,
    "text-anchor": "middle" }, svg).textContent = yLabel;
  for (const line of series) {
    if (!line.points.length) continue;
    const path = line.points.map(([px, py], i) => `${i ? "L" : "M"}${x(px).toFixed(1)},${y(py).toFixed(1)}`);
    const drawn = svgElement("path", { d: path.join(" "), stroke: line.color, class: "series" }, svg);
    svgElement("title", {}, drawn).textContent = line.name;
    for (const [px, py] of line.points.length <= 60 ? line.points : []) {
      svgElement("circle", { cx: x(px), cy: y(py), r: 2.5, fill: line.color }, svg);
    }
  }
}

// The charts' numbers as a table (a screen reader's and a colour-blind reader's way into them): a row per point,
// headed by its number of judgments (a row header, so a reader moving along a column hears which point a score is
// of), the Expected Wins of each system and the separated pairs ("–" where a point is not computed yet).
function renderHistoryTable(history) {
  const head = $("history-table").tHead.rows[0];
  head.replaceChildren();
  for (const name of ["Judgments", ...history.systems, "Separated pairs"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.className = "number";
    th.textContent = name;
    head.append(th);
  }
  fillTable("history-table", history.points, (row, point) => {
    const judgments = document.createElement("th");
    judgments.scope = "row";
    judgments.className = "number";
    judgments.textContent = count(point.rankings);
    row.append(judgments);
    for (const i of history.systems.keys()) cell(row, score(point.scores === null ? null : point.scores[i]), "number");
    cell(row, count(point.separated_pairs), "number");
  }, "The first point comes after 100 judgments.", history.systems.length + 2);
}

function renderHistory(history) {
  const points = history.points;
  const xMax = Math.max(points.length ? points[points.length - 1].rankings : 0, history.parameters.step);
  const defined = points.filter((point) => point.scores !== null);
  const scores = history.systems.map((name, i) => ({
    name, color: COLORS[i % COLORS.length], points: defined.map((point) => [point.rankings, point.scores[i]]),
  }));
  lineChart($("history-scores"), scores, xMax, 1, "Expected Wins");
  const separated = points.filter((point) => point.separated_pairs !== null)
    .map((point) => [point.rankings, point.separated_pairs]);
  lineChart($("history-separated"), [{ name: "separated pairs", color: COLORS[0], points: separated }], xMax,
    Math.max(history.system_pairs, 1), "Separated pairs");
  const legend = $("history-legend");
  legend.replaceChildren(...scores.map((line) => {
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = line.color;
    item.append(swatch, line.name);
    return item;
  }));
  renderHistoryTable(history);
  $("history-bootstrap").textContent = count(history.parameters.bootstrap);
  $("history-status").textContent = !points.length ? "The first point comes after 100 judgments."
    : history.pending ? `Computing: ${count(history.pending)} of ${count(points.length)} points to go.` : "";
  renderStopping(history.stopping);
}

async function fetchJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

function historyUrl() {
  const url = new URL(root.dataset.historyUrl, window.location.href);
  url.searchParams.set("k", state.k);
  return url;
}

async function refresh() {
  try {
    const [judging, board] = await Promise.all([
      fetchJSON(root.dataset.dashboardUrl), fetchJSON(root.dataset.leaderboardUrl),
    ]);
    renderPlan(judging);
    renderClosed(judging);
    renderJudges(judging.judges);
    renderFlags(judging.flags);
    renderScreenJobs(judging.screen_jobs, judging.plan.screens);
    renderRaterQc(judging.rater_qc);
    renderLeaderboard(board);
    renderRaters(board.raters);
    const key = `${board.snapshot.last_judgment_id}/${board.snapshot.judgments}/${board.snapshot.excluded_screens}/${state.k}`;
    if (key !== state.historyKey) {
      const history = await fetchJSON(historyUrl());
      renderHistory(history);
      state.historyKey = history.pending ? null : key;
    }
    // The site's times are UTC on a 24-hour clock ("Progress at 04:04:13" on this page): this one too.
    showStatus(`Last update ${new Date().toISOString().slice(11, 19)}.`);
    if (state.failing) announce("The dashboard updates again.");
    state.failing = false;
  } catch (error) {
    showStatus(`Could not update: ${error.message}`);
    if (!state.failing) announce(`The dashboard could not update: ${error.message}`);
    state.failing = true;
  }
}

function schedule() {
  clearTimeout(state.timer);
  if (!document.hidden && !state.paused) {
    state.timer = setTimeout(async () => { await refresh(); schedule(); }, Number(root.dataset.pollMs));
  }
}

async function togglePause(button) {
  state.paused = !state.paused;
  button.setAttribute("aria-pressed", String(state.paused));
  showStatus();
  if (state.paused) {
    clearTimeout(state.timer);
  } else {
    await refresh();
    schedule();
  }
}

function setK(value) {
  const k = Number(value);
  if (!Number.isInteger(k) || k < 1) {
    setText($("stopping-hint"), "K must be a whole number of judgments, at least 1.");
    return false;
  }
  state.k = k;
  state.historyKey = null;
  return true;
}

if (root) {
  const input = $("stopping-k");
  const fromQuery = new URLSearchParams(window.location.search).get("k");
  if (fromQuery !== null) input.value = fromQuery;
  setK(input.value);
  $("stopping-form").addEventListener("submit", (event) => event.preventDefault());
  input.addEventListener("change", async () => { if (setK(input.value)) await refresh(); });
  document.addEventListener("visibilitychange", async () => {
    if (!document.hidden && !state.paused) await refresh();
    schedule();
  });
  const pause = $("dashboard-pause");
  pause.hidden = false;
  pause.addEventListener("click", () => togglePause(pause));
  refresh().then(schedule);
}
