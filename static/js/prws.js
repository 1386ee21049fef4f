// The judge's PRWS screen (N19 section 4.2, METHODS 11): sliders that must be moved, keyboard, dialogs, active time.
//
// - Each slider starts unmoved (faded, no value shown, hidden moved_k empty). Moving it by pointer or key marks it
//   moved (moved_k = "1"); a click or drag that ends where it started counts too. Submit is enabled only when every
//   slider was moved; "k of n scored" is announced. The server refuses an unmoved slider as well.
// - Keys: ArrowUp/ArrowDown move between corrections; ArrowLeft/ArrowRight (and PageUp/PageDown, Home/End) change
//   the focused slider as range inputs do; digits 0-9 set it to 0, 10, ... 90; "m" ticks "Meaning changed";
//   Enter submits; "?" opens the guidelines; Escape closes a dialog.
// - Reset puts every slider back unmoved at its start and clears the boxes.
// - One submit per page, and active time in the hidden field active_ms, as on the ranking screen (judge.js).

const config = JSON.parse(document.getElementById("judge-config").textContent);
const form = document.getElementById("ranking-form");
const candidates = Array.from(form.querySelectorAll(".candidate"));
const submitButton = document.getElementById("submit");
const status = document.getElementById("ranked-status");
const helpDialog = document.getElementById("help-dialog");
const flagDialog = document.getElementById("flag-dialog");

const TICK_MS = 1000;
const timerKey = `gecappraise-active:${location.pathname}`;
let activeMs = Number(sessionStorage.getItem(timerKey)) || 0;
let lastActivity = Date.now();
let lastTick = Date.now();

const slider = (candidate) => candidate.querySelector("input[type=range]");
const movedField = (candidate) => candidate.querySelector("input.moved");
const isMoved = (candidate) => movedField(candidate).value === "1";

function show(candidate) {
  const moved = isMoved(candidate);
  const range = slider(candidate);
  candidate.classList.toggle("moved", moved);
  candidate.querySelector(".score-value").textContent = moved ? range.value : "–";
  range.setAttribute("aria-valuetext", moved ? `${range.value} of 100` : "not scored yet");
}

function markMoved(candidate) {
  movedField(candidate).value = "1";
  show(candidate);
  updateState();
}

function updateState() {
  const moved = candidates.filter(isMoved).length;
  const complete = moved === candidates.length;
  submitButton.disabled = !complete || form.dataset.submitting === "true";
  status.textContent = complete
    ? "Every correction has a score."
    : `${moved} of ${candidates.length} corrections scored.`;
}

function focusedCandidate() {
  return candidates.find((candidate) => candidate.contains(document.activeElement)) || null;
}

function focusCandidate(candidate) {
  slider(candidate).focus();
  candidate.scrollIntoView({ block: "nearest" });
}

function move(step) {
  const current = focusedCandidate();
  const index = current ? candidates.indexOf(current) : -1;
  const next = candidates[Math.min(Math.max(index + step, 0), candidates.length - 1)];
  if (next) focusCandidate(next);
}

function openDialog(dialog) {
  if (dialog && !dialog.open) dialog.showModal();
}

function dialogOpen() {
  return (helpDialog && helpDialog.open) || (flagDialog && flagDialog.open);
}

function recordActiveTime(target) {
  activeMs = Math.round(activeMs);
  sessionStorage.setItem(timerKey, String(activeMs));
  const field = target.querySelector("input[name=active_ms]");
  if (field) field.value = String(activeMs);
}

function onKeyDown(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || dialogOpen()) return;
  if (event.target.closest("textarea, input[type=text], select")) return;
  if (event.key === "?") {
    event.preventDefault();
    openDialog(helpDialog);
    return;
  }
  const candidate = focusedCandidate();
  if (/^[0-9]$/.test(event.key)) {
    const target = candidate || candidates.find((c) => !isMoved(c)) || candidates[0];
    event.preventDefault();
    slider(target).value = String(Number(event.key) * 10);
    markMoved(target);
    focusCandidate(target);
    return;
  }
  if ((event.key === "m" || event.key === "M") && candidate) {
    event.preventDefault();
    const box = candidate.querySelector("input[type=checkbox]");
    box.checked = !box.checked;
    return;
  }
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    move(event.key === "ArrowDown" ? 1 : -1);
    return;
  }
  if (event.key === "Enter" && !event.target.closest("button, a, dialog")) {
    event.preventDefault();
    form.requestSubmit();
  }
}

function onSubmit(event) {
  if (form.dataset.submitting === "true") {
    event.preventDefault();
    return;
  }
  const unmoved = candidates.find((candidate) => !isMoved(candidate));
  if (unmoved) {
    event.preventDefault();
    const label = unmoved.querySelector(".candidate-label").textContent;
    status.textContent = `Move every slider first: ${label} has no score yet.`;
    focusCandidate(unmoved);
    return;
  }
  recordActiveTime(form);
  form.dataset.submitting = "true";
  submitButton.disabled = true;
  submitButton.textContent = "Saving…";
}

function onReset() {
  setTimeout(() => {
    candidates.forEach((candidate) => {
      slider(candidate).value = String(config.start);
      movedField(candidate).value = "";
      candidate.querySelector("input[type=checkbox]").checked = false;
      show(candidate);
    });
    updateState();
    focusCandidate(candidates[0]);
  }, 0);
}

function tick() {
  const now = Date.now();
  const elapsed = Math.min(now - lastTick, TICK_MS);
  lastTick = now;
  const idle = now - lastActivity > config.idleCapSeconds * 1000;
  if (document.visibilityState === "visible" && document.hasFocus() && !idle) {
    activeMs += elapsed;
    sessionStorage.setItem(timerKey, String(Math.round(activeMs)));
  }
}

function markActivity() {
  lastActivity = Date.now();
}

function forgetOtherPages() {
  for (let i = sessionStorage.length - 1; i >= 0; i -= 1) {
    const key = sessionStorage.key(i);
    if (key && key.startsWith("gecappraise-active:") && key !== timerKey) sessionStorage.removeItem(key);
  }
}

candidates.forEach((candidate) => {
  const range = slider(candidate);
  ["input", "change", "pointerup"].forEach((type) => range.addEventListener(type, () => markMoved(candidate)));
});
form.addEventListener("submit", onSubmit);
form.addEventListener("reset", onReset);
document.addEventListener("keydown", onKeyDown);
["keydown", "pointerdown", "pointermove", "wheel", "scroll", "touchstart"].forEach((type) =>
  window.addEventListener(type, markActivity, { passive: true, capture: true }),
);
window.addEventListener("focus", () => {
  lastTick = Date.now();
  markActivity();
});
document.addEventListener("visibilitychange", () => {
  lastTick = Date.now();
});
setInterval(tick, TICK_MS / 4);

document.getElementById("help-open").addEventListener("click", () => openDialog(helpDialog));
if (flagDialog) {
  const flagForm = document.getElementById("flag-form");
  document.getElementById("flag-open").addEventListener("click", () => openDialog(flagDialog));
  document.getElementById("flag-cancel").addEventListener("click", () => flagDialog.close());
  flagForm.addEventListener("submit", (event) => {
    if (flagForm.dataset.submitting === "true") {
      event.preventDefault();
      return;
    }
    recordActiveTime(flagForm);
    flagForm.dataset.submitting = "true";
  });
  if (flagDialog.open) {
    flagDialog.close();
    flagDialog.showModal();
  }
}
window.addEventListener("pageshow", (event) => {
  if (event.persisted) {
    delete form.dataset.submitting;
    submitButton.textContent = "Submit";
    updateState();
  }
});

forgetOtherPages();
candidates.forEach(show);
updateState();
