// The judge's PRWS screen (N19 section 4.2, METHODS 11): sliders that must be moved, keyboard, dialogs, active time.
//
// - Each slider starts unmoved (faded, no value shown, hidden moved_k empty). Moving it by pointer or key marks it
//   moved (moved_k = "1") and records its value after that first move (first_k; the submitted score is the last);
//   a click or drag that ends where it started counts too. Submit is enabled only when every
//   slider was moved; "k of n scored" is announced. The server refuses an unmoved slider as well.
// - Keys: ArrowUp/ArrowDown move between corrections; ArrowLeft/ArrowRight (and PageUp/PageDown, Home/End) change
//   the focused slider as range inputs do; digits 0-9 set it to 0, 10, ... 90 and "+" to 100 ("Perfect");
//   "m" ticks "Meaning changed";
//   Enter submits; "?" opens the guidelines; Escape closes a dialog.
// - Reset puts every slider back unmoved at its start and clears the boxes.
// - The unsent scores are kept per screen as [{score, first, meaning}] (score null while unmoved) and restored by
//   screen.js.
// - One submit per page, dialogs and active time: screen.js.

import { candidates, config, form, startScreen, status, submitButton } from "./screen.js";

const slider = (candidate) => candidate.querySelector("input[type=range]");
const movedField = (candidate) => candidate.querySelector("input.moved");
const firstField = (candidate) => candidate.querySelector("input.first");
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
  if (firstField(candidate).value === "") firstField(candidate).value = slider(candidate).value;
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

function focusCandidate(candidate) {
  slider(candidate).focus();
  candidate.scrollIntoView({ block: "nearest" });
}

const PERFECT_KEY = "+";

function onKey(event, focused) {
  if (/^[0-9]$/.test(event.key) || event.key === PERFECT_KEY) {
    const target = focused || candidates.find((c) => !isMoved(c)) || candidates[0];
    event.preventDefault();
    slider(target).value = event.key === PERFECT_KEY ? "100" : String(Number(event.key) * 10);
    markMoved(target);
    focusCandidate(target);
    return true;
  }
  if ((event.key === "m" || event.key === "M") && focused) {
    event.preventDefault();
    const box = focused.querySelector("input[type=checkbox]");
    box.checked = !box.checked;
    return true;
  }
  return false;
}

function onReset() {
  setTimeout(() => {
    candidates.forEach((candidate) => {
      slider(candidate).value = String(config.start);
      movedField(candidate).value = "";
      firstField(candidate).value = "";
      candidate.querySelector("input[type=checkbox]").checked = false;
      show(candidate);
    });
    updateState();
    focusCandidate(candidates[0]);
  }, 0);
}

function readValues() {
  return candidates.map((candidate) => ({
    score: isMoved(candidate) ? Number(slider(candidate).value) : null,
    first: firstField(candidate).value === "" ? null : Number(firstField(candidate).value),
    meaning: candidate.querySelector("input[type=checkbox]").checked,
  }));
}

function writeValues(values) {
  candidates.forEach((candidate, index) => {
    const value = values[index] || {};
    const moved = typeof value.score === "number";
    slider(candidate).value = String(moved ? value.score : config.start);
    movedField(candidate).value = moved ? "1" : "";
    firstField(candidate).value = moved ? String(typeof value.first === "number" ? value.first : value.score) : "";
    candidate.querySelector("input[type=checkbox]").checked = Boolean(value.meaning);
    show(candidate);
  });
}

candidates.forEach((candidate) => {
  const range = slider(candidate);
  ["input", "change", "pointerup"].forEach((type) => range.addEventListener(type, () => markMoved(candidate)));
});
form.addEventListener("reset", onReset);
candidates.forEach(show);
startScreen({
  focusCandidate,
  updateState,
  missing: () => candidates.find((candidate) => !isMoved(candidate)) || null,
  missingText: (candidate) =>
    `Move every slider first: ${candidate.querySelector(".candidate-label").textContent} has no score yet.`,
  onKey,
  readValues,
  writeValues,
});
