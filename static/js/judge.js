// The judge's ranking screen (G15 section 4.2): rank state and the rank keys; the rest is screen.js.
//
// The page works as a plain form; this module adds:
// - Submit is enabled only when every correction has a rank; "k of n ranked" is announced.
// - Keys: digits 1..M rank the focused correction and move to the next one (with M = 10, 0 is rank 10, as the
//   help line says: a judge typing "10" would otherwise give rank 1); ArrowLeft/ArrowRight change the rank, as
//   radio buttons do; and the keys of screen.js.
// - The unsent ranks are kept per screen as [{rank}] (null when unranked) and restored by screen.js.

import { candidates, config, form, screenGone, startScreen, status, submitButton } from "./screen.js";

function rankOf(candidate) {
  const checked = candidate.querySelector("input[type=radio]:checked");
  return checked ? Number(checked.value) : null;
}

function updateState() {
  const ranked = candidates.filter((candidate) => rankOf(candidate) !== null).length;
  const complete = ranked === candidates.length;
  submitButton.disabled = !complete || form.dataset.submitting === "true" || screenGone();
  candidates.forEach((candidate) => candidate.classList.toggle("ranked", rankOf(candidate) !== null));
  status.textContent = complete
    ? "Every correction has a rank."
    : `${ranked} of ${candidates.length} corrections ranked.`;
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

function onKey(event, focused) {
  if (!/^[0-9]$/.test(event.key)) return false;
  const digit = event.key === "0" && config.maxRank === 10 ? 10 : Number(event.key);
  if (digit < 1 || digit > config.maxRank) return false;
  const candidate = focused || candidates.find((c) => rankOf(c) === null) || candidates[0];
  if (setRank(candidate, digit)) {
    event.preventDefault();
    const next = candidates[candidates.indexOf(candidate) + 1];
    focusCandidate(next || candidate);
  }
  return true;
}

function readValues() {
  return candidates.map((candidate) => ({ rank: rankOf(candidate) }));
}

function writeValues(values) {
  candidates.forEach((candidate, index) => {
    const rank = values[index] && values[index].rank;
    candidate.querySelectorAll("input[type=radio]").forEach((radio) => {
      radio.checked = rank !== null && rank !== undefined && Number(radio.value) === Number(rank);
    });
  });
}

form.addEventListener("change", updateState);
form.addEventListener("reset", () => {
  setTimeout(() => {
    updateState();
    focusCandidate(candidates[0]);
  }, 0);
});
startScreen({
  focusCandidate,
  updateState,
  missing: () => candidates.find((candidate) => rankOf(candidate) === null) || null,
  missingText: (candidate) =>
    `Give every correction a rank first: ${candidate.querySelector(".candidate-label").textContent} has none.`,
  onKey,
  readValues,
  writeValues,
});
