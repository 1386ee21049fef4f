// The judge's PRWS screen (N19 section 4.2, METHODS 11): sliders that must be moved, keyboard, dialogs, active time.
//
// - Each slider starts unmoved (faded, no value shown, hidden moved_k empty). Moving it by pointer or key marks it
//   moved (moved_k = "1") and records its value after that first move (first_k; the submitted score is the last;
//   a score typed first is first_k with all its digits); a click or drag that ends where it started counts too.
//   Submit is enabled only when every slider was moved; "k of n scored" is announced. The server refuses an
//   unmoved slider as well.
// - Keys: ArrowUp/ArrowDown move between corrections; ArrowLeft/ArrowRight (and PageUp/PageDown, Home/End) change
//   the focused slider as range inputs do; "m" ticks "Meaning changed"; Enter submits; "?" opens the guidelines;
//   Escape closes a dialog.
// - Typing a score: digits set the focused slider (else the first unmoved one) and then, as on the ranking screen,
//   focus moves to the next correction, once the score is complete. Digits typed within NUMBER_PAUSE_MS of each
//   other form one score: one digit sets the tens (7: 70), a second the units (3 5: 35; 0 5: 5), and 1 0 0 is
//   100. A score is complete at two digits (but 10, which a 0 can still make 100), at 100, or when the pause
//   passes; "+" is 100 ("Perfect") and complete at once. A digit or "+" that cannot continue the score being
//   typed (10 then 7) completes it and starts the next correction's. Any other key but a modifier (an arrow to
//   fine-tune the score just typed, Tab, Enter), a click or Reset ends the typing where it is: focus stays.
// - Reset puts every slider back unmoved at its start and clears the boxes.
// - The unsent scores are kept per screen as [{score, first, meaning}] (score null while unmoved) and restored by
//   screen.js.
// - One submit per page, dialogs and active time: screen.js.

import { candidates, config, focusedCandidate, form, screenGone, startScreen, status, submitButton } from "./screen.js";

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
  submitButton.disabled = !complete || form.dataset.submitting === "true" || screenGone();
  status.textContent = complete
    ? "Every correction has a score."
    : `${moved} of ${candidates.length} corrections scored.`;
}

function focusCandidate(candidate) {
  slider(candidate).focus();
  candidate.scrollIntoView({ block: "nearest" });
}

const PERFECT_KEY = "+";
const NUMBER_PAUSE_MS = 800;
// Keys pressed on their own before another (Shift for "+"): they do not end the typing of a score.
const MODIFIER_KEYS = new Set(["Shift", "Control", "Alt", "AltGraph", "Meta", "CapsLock", "NumLock"]);

// The score being typed: its correction, the digits so far, the timer that completes it after the pause, and
// whether it is the slider's first value.
let typing = null;

// The score of ``digits``: one digit is tens, more are the number itself (null when over 100).
function scoreOf(digits) {
  const value = digits.length === 1 ? Number(digits) * 10 : Number(digits);
  return value <= 100 ? value : null;
}

// Whether a score typed as ``digits`` may still grow: one digit, or 10 (100 to come).
const mayGrow = (digits) => digits.length === 1 || digits === "10";

function stopTyping() {
  if (typing) clearTimeout(typing.timer);
  typing = null;
}

// The typed score is complete: focus the next correction (when focus is still on this one).
function completeTyping() {
  const candidate = typing && typing.candidate;
  stopTyping();
  if (!candidate || !candidate.contains(document.activeElement)) return;
  const next = candidates[candidates.indexOf(candidate) + 1];
  if (next) focusCandidate(next);
}

// Sets a typed score; the slider's first value is the score typed first, all of its digits (35, not the 30 of
// its first digit).
function setScore(candidate, value) {
  slider(candidate).value = String(value);
  markMoved(candidate);
  if (typing && typing.candidate === candidate && typing.setsFirst) firstField(candidate).value = String(value);
}

function typeDigit(digit, focused) {
  if (typing && (typing.candidate !== focused || !mayGrow(typing.digits) || scoreOf(typing.digits + digit) === null)) {
    completeTyping();
    focused = focusedCandidate();
  }
  if (!typing) {
    const candidate = focused || candidates.find((c) => !isMoved(c)) || candidates[0];
    typing = { candidate, digits: "", timer: null, setsFirst: firstField(candidate).value === "" };
    focusCandidate(candidate);
  }
  typing.digits += digit;
  setScore(typing.candidate, scoreOf(typing.digits));
  clearTimeout(typing.timer);
  if (mayGrow(typing.digits)) typing.timer = setTimeout(completeTyping, NUMBER_PAUSE_MS);
  else completeTyping();
}

function typePerfect(focused) {
  if (typing) {
    completeTyping();
    focused = focusedCandidate();
  }
  const candidate = focused || candidates.find((c) => !isMoved(c)) || candidates[0];
  setScore(candidate, 100);
  focusCandidate(candidate);
  typing = { candidate, digits: "100", timer: null, setsFirst: false };
  completeTyping();
}

function onKey(event, focused) {
  if (/^[0-9]$/.test(event.key)) {
    event.preventDefault();
    typeDigit(event.key, focused);
    return true;
  }
  if (event.key === PERFECT_KEY) {
    event.preventDefault();
    typePerfect(focused);
    return true;
  }
  if ((event.key === "m" || event.key === "M") && focused) {
    event.preventDefault();
    const box = focused.querySelector("input[type=checkbox]");
    box.checked = !box.checked;
    return true;
  }
  if (!MODIFIER_KEYS.has(event.key)) stopTyping();
  return false;
}

function onReset() {
  stopTyping();
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
form.addEventListener("pointerdown", stopTyping, { capture: true });
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
