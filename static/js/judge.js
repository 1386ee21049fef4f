// The judge's ranking screen (G15 section 4.2): rank state, keyboard, dialogs and active time.
//
// The page works as a plain form; this module adds:
// - Submit is enabled only when every correction has a rank; "k of n ranked" is announced.
// - Keys: digits 1..M rank the focused correction and move to the next one; ArrowUp/ArrowDown move between
//   corrections (ArrowLeft/ArrowRight change the rank, as radio buttons do); Enter submits a complete ranking;
//   "?" opens the guidelines; Escape closes a dialog.
// - One submit per page: a second click or Enter while the first is under way does nothing (the server is
//   idempotent too, by the screen's token).
// - Active time: milliseconds while the page is visible and focused and the judge has pressed a key, clicked,
//   scrolled or moved the pointer within the idle cap (config.idleCapSeconds); kept in sessionStorage per page
//   address so a reload keeps counting, and sent in the hidden field active_ms.

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

function rankOf(candidate) {
  const checked = candidate.querySelector("input[type=radio]:checked");
  return checked ? Number(checked.value) : null;
}

function updateState() {
  const ranked = candidates.filter((candidate) => rankOf(candidate) !== null).length;
  const complete = ranked === candidates.length;
  submitButton.disabled = !complete || form.dataset.submitting === "true";
  candidates.forEach((candidate) => candidate.classList.toggle("ranked", rankOf(candidate) !== null));
  status.textContent = complete
    ? "Every correction has a rank."
    : `${ranked} of ${candidates.length} corrections ranked.`;
}

function focusedCandidate() {
  return candidates.find((candidate) => candidate.contains(document.activeElement)) || null;
}

function focusCandidate(candidate) {
  const target = candidate.querySelector("input[type=radio]:checked") || candidate.querySelector("input[type=radio]");
  target.focus();
  candidate.scrollIntoView({ block: "nearest" });
}

function setRank(candidate, rank) {
  const radio = candidate.querySelector(`input[type=radio][value="${rank}"]`);
  if (!radio) return false;
  radio.checked = true;
  radio.dispatchEvent(new Event("change", { bubbles: true }));
  return true;
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
  const typing = event.target.closest("textarea, input[type=text], select");
  if (typing) return;
  if (event.key === "?") {
    event.preventDefault();
    openDialog(helpDialog);
    return;
  }
  const digit = Number(event.key);
  if (/^[0-9]$/.test(event.key) && digit >= 1 && digit <= config.maxRank) {
    const candidate = focusedCandidate() || candidates.find((c) => rankOf(c) === null) || candidates[0];
    if (setRank(candidate, digit)) {
      event.preventDefault();
      const next = candidates[candidates.indexOf(candidate) + 1];
      focusCandidate(next || candidate);
    }
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
  const unranked = candidates.find((candidate) => rankOf(candidate) === null);
  if (form.dataset.submitting === "true") {
    event.preventDefault();
    return;
  }
  if (unranked) {
    event.preventDefault();
    status.textContent = `Give every correction a rank first: ${unranked.querySelector(".candidate-label").textContent} has none.`;
    focusCandidate(unranked);
    return;
  }
  recordActiveTime(form);
  form.dataset.submitting = "true";
  submitButton.disabled = true;
  submitButton.textContent = "Saving…";
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

form.addEventListener("change", updateState);
form.addEventListener("reset", () => {
  setTimeout(() => {
    updateState();
    focusCandidate(candidates[0]);
  }, 0);
});
form.addEventListener("submit", onSubmit);
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
updateState();
