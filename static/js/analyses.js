// The analyses page follows its runs without a reload. While a run is queued or running it fetches the page's
// status endpoint (data-status-url of #analysis-runs) every second and redraws each run's status and report cells,
// and the banner of the run just started, from the same entry of that JSON, so the banner and the table always
// say the same. It stops when no run is queued or running.
const table = document.getElementById("analysis-runs");
const banner = document.getElementById("analysis-banner");
const ACTIVE = new Set(["queued", "running"]);
const POLL_MS = 1000;

function span(className, text) {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}

// The same markup as templates/ranking/_run_status.html.
function drawStatus(cell, run) {
  cell.dataset.status = run.status;
  cell.replaceChildren();
  if (ACTIVE.has(run.status)) {
    const bar = document.createElement("progress");
    bar.max = 100;
    bar.value = Math.round(run.progress);
    bar.textContent = `${Math.round(run.progress)}%`;
    cell.append(bar, " ");
  }
  cell.append(span("run-label", run.label));
  if (run.stage && ACTIVE.has(run.status)) cell.append(" ", span("run-stage", `(${run.stage})`));
  if (run.error) {
    const error = document.createElement("div");
    error.className = "errors";
    error.textContent = run.error;
    cell.append(error);
  }
}

function drawReports(cell, run) {
  cell.replaceChildren();
  run.reports.forEach((report, index) => {
    if (index) cell.append(" · ");
    const link = document.createElement("a");
    link.href = report.url;
    link.textContent = report.label;
    cell.append(link);
  });
}

function anyActive() {
  return [...table.querySelectorAll("td.run-status")].some((cell) => ACTIVE.has(cell.dataset.status));
}

async function poll() {
  try {
    const response = await fetch(table.dataset.statusUrl, { headers: { Accept: "application/json" } });
    if (response.ok) {
      for (const run of (await response.json()).runs) {
        const row = table.querySelector(`tr[data-run="${run.id}"]`);
        if (row) {
          drawStatus(row.querySelector("td.run-status"), run);
          drawReports(row.querySelector("td.run-reports"), run);
        }
        if (banner && banner.dataset.run === String(run.id)) banner.querySelector(".run-label").textContent = run.label;
      }
    }
  } catch {
    // a dropped request: the next tick asks again
  }
  if (anyActive()) setTimeout(poll, POLL_MS);
}

if (table && anyActive()) setTimeout(poll, POLL_MS);
