// What the judge's screens share (ranking, judge.js; PRWS sliders, prws.js): dialogs, keyboard, one submit per page,
// and active time.
//
// - Keys: ArrowUp/ArrowDown move between corrections; Enter submits; "?" opens the guidelines; Escape closes a
//   dialog; each screen adds its own keys (``onKey`` returns true when it handled one).
// - One submit per page: a second click or Enter while the first is under way does nothing (the server is
//   idempotent too, by the screen's token). A screen refuses to submit while ``missing()`` names a correction.
// - Active time: milliseconds while the page is visible and focused and the judge has pressed a key, clicked,
//   scrolled or moved the pointer within the idle cap (config.idleCapSeconds); kept in sessionStorage per page
//   address so a reload keeps counting, and sent in the hidden field active_ms.
// - Unsent values: the ranks or scores of a served screen are kept in sessionStorage under the screen's token
//   (config.token) as the judge changes them, and put back when the page loads again (a reload before Submit);
//   an undone screen starts from the values that were submitted (config.submitted, from the server).
// - Focus in view: the action bar sticks to the window's bottom; a correction focused from the keyboard is scrolled
//   clear of it (not one focused by a click, which the scroll would move from under the pointer).
// - Lease: while the judge is active, the page tells the server every config.heartbeatSeconds that the screen is
//   still being judged, so it is not given to another judge, and asks at once when the judge comes back to the
//   page (it shows again, or the window gets focus; once while a request is under way), as what happened in
//   another tab shows there. A screen that was given to another judge (or undone or submitted in another tab) is
//   told in #screen-gone, which stays, with the way to the judge's current screen, and the page submits and flags
//   nothing more (the server would refuse it; the status line, which each change of a value rewrites, used to say
//   it only until the next click, with Submit enabled). So is a page that can no longer send anything: the login
//   session ended (a 401: config.sessionEnded, the way back being to log in again, a crowd worker's study link, or
//   for a judge without a password none) or the judge logged in again elsewhere, which replaced the page's CSRF
//   token (the CSRF check's 403 page, not JSON: config.pageExpired, reload); its Undo is disabled too. The values
//   stay in sessionStorage for the screen's return.
// - Single-character keys (digits, "+", "m", "?") can be limited to when a correction has focus (WCAG 2.1.4):
//   the box "Single keys work anywhere on the page" in the guidelines dialog, kept in localStorage; on by default.
// - Focus on arrival: a screen opens with focus on the sentence (#context), so that a screen reader reads it first
//   and Tab goes on to the first correction; on the server's message instead when there is one (an undone screen,
//   a refused form), so that it is read. The focus ring shows unless the judge's last action on the previous page
//   was a click or a tap (kept in sessionStorage), as :focus-visible decides within a page.

export const config = JSON.parse(document.getElementById("judge-config").textContent);
export const form = document.getElementById("ranking-form");
export const candidates = Array.from(form.querySelectorAll(".candidate"));
export const submitButton = document.getElementById("submit");
export const status = document.getElementById("ranked-status");
const actionBar = document.getElementById("action-bar");
const helpDialog = document.getElementById("help-dialog");
const flagDialog = document.getElementById("flag-dialog");
const goneNotice = document.getElementById("screen-gone");

const TICK_MS = 1000;
const INPUT_KEY = "gecappraise-input";
const KEYS_ANYWHERE_KEY = "gecappraise-keys-anywhere";
const keysAnywhereBox = document.getElementById("keys-anywhere");
const timerKey = `gecappraise-active:${location.pathname}`;
const valuesKey = config.token ? `gecappraise-values:${config.token}` : null;
let activeMs = Number(sessionStorage.getItem(timerKey)) || 0;
let lastActivity = Date.now();
let lastTick = Date.now();
let leaseAsked = false;

export function focusedCandidate() {
  return candidates.find((candidate) => candidate.contains(document.activeElement)) || null;
}

// Focus on arrival (see the top): the form's errors, else the server's message, else the sentence; not when
// something has focus already (a dialog reopened with its errors).
function focusOnArrival() {
  if (document.activeElement && document.activeElement !== document.body) return;
  const target = form.querySelector(".errors") || document.querySelector("main .messages")
    || document.getElementById("context");
  if (!target) return;
  if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true, focusVisible: sessionStorage.getItem(INPUT_KEY) !== "pointer" });
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

// Whether the screen was given to another judge or undone (the lease's answer): nothing on it can be stored now.
export function screenGone() {
  return form.dataset.gone === "true";
}

// Say for good that nothing on the page can be sent: ``notice.text``, with the link ``notice.href`` worded
// ``notice.link`` (left out: the judge's current screen; null: no link); ``loggedOut``: the page's login is gone,
// so its Undo cannot be sent either.
function markGone(notice, loggedOut = false) {
  if (screenGone()) return;
  form.dataset.gone = "true";
  submitButton.disabled = true;
  const flagOpen = document.getElementById("flag-open");
  if (flagOpen) flagOpen.disabled = true;
  if (flagDialog && flagDialog.open) flagDialog.close();
  const undo = document.getElementById("undo");
  if (undo && loggedOut) undo.disabled = true;
  if (goneNotice) {
    goneNotice.hidden = false;
    document.getElementById("screen-gone-text").textContent = notice.text;
    const link = document.getElementById("screen-gone-link");
    if (notice.href) {
      link.href = notice.href;
      link.textContent = notice.link;
    } else if (notice.href === null) {
      link.hidden = true;
    }
  } else {
    status.textContent = notice.text;
  }
}

// What the lease request's answer says of the page: null while it may go on, else the notice for markGone.
async function leaseRefusal(response) {
  if (response.status === 401) return { notice: config.sessionEnded, loggedOut: true };
  const json = (response.headers.get("content-type") || "").includes("json");
  if (response.status === 403 && !json) return { notice: config.pageExpired, loggedOut: true };
  if ((response.status === 409 || response.status === 403) && json) {
    const refused = await response.json();
    if (refused && refused.error) {
      return { notice: { text: refused.error, href: refused.href, link: refused.link }, loggedOut: false };
    }
  }
  return null;
}

// Ask the server to keep the screen's lease: while the judge is active, or at once when ``returning`` to the page.
function keepLease(returning = false) {
  if (screenGone() || form.dataset.submitting === "true") return;
  if (!returning && Date.now() - lastActivity > config.heartbeatSeconds * 1000) return;
  leaseAsked = true;
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  fetch(config.leaseUrl, { method: "POST", headers: { "X-CSRFToken": csrf }, credentials: "same-origin" })
    .then(leaseRefusal)
    .then((refused) => {
      if (refused) markGone(refused.notice, refused.loggedOut);
    })
    .catch(() => {})
    .finally(() => {
      leaseAsked = false;
    });
}

// The judge is back on the page (it shows again, or its window has focus): ask about the lease at once, as the
// screen may have been given to another judge meanwhile, or the judge logged out in another tab.
function leaseOnReturn() {
  if (!config.leaseUrl || document.visibilityState !== "visible") return;
  if (!leaseAsked) keepLease(true);
}

function markActivity() {
  lastActivity = Date.now();
}

function forgetOtherPages() {
  for (let i = sessionStorage.length - 1; i >= 0; i -= 1) {
    const key = sessionStorage.key(i);
    if (!key || key === timerKey || key === valuesKey) continue;
    if (key.startsWith("gecappraise-active:") || key.startsWith("gecappraise-values:")) sessionStorage.removeItem(key);
  }
}

// The values to start from: those kept for this screen's token, else the submitted ones of an undone screen.
function startingValues() {
  let kept = null;
  try {
    kept = valuesKey ? JSON.parse(sessionStorage.getItem(valuesKey)) : null;
  } catch (error) {
    kept = null;
  }
  const values = Array.isArray(kept) ? kept : config.submitted;
  return Array.isArray(values) && values.length === candidates.length ? values : null;
}

// Scroll the focused correction clear of the sticky action bar (and of the window's top).
function keepInView(candidate) {
  if (!candidate || !actionBar) return;
  const box = candidate.getBoundingClientRect();
  const barTop = actionBar.getBoundingClientRect().top;
  if (box.bottom > barTop) window.scrollBy(0, Math.min(box.bottom - barTop + 8, box.top - 8));
  else if (box.top < 0) window.scrollBy(0, box.top - 8);
}

// Starts a screen. ``focusCandidate(candidate)`` focuses its control; ``updateState()`` refreshes Submit and the
// status line; ``missing()`` is the first correction not yet judged (or null) and ``missingText(candidate)`` what
// to tell the judge about it; ``onKey(event, focused)`` handles the screen's own keys; ``readValues()`` gives the
// values on the screen, one JSON-able object per correction, and ``writeValues(values)`` puts such values back.
export function startScreen({ focusCandidate, updateState, missing, missingText, onKey, readValues, writeValues }) {
  function saveValues() {
    if (!valuesKey || form.dataset.submitting === "true") return;
    sessionStorage.setItem(valuesKey, JSON.stringify(readValues()));
  }

  function move(step) {
    const current = focusedCandidate();
    const index = current ? candidates.indexOf(current) : -1;
    const next = candidates[Math.min(Math.max(index + step, 0), candidates.length - 1)];
    if (next) focusCandidate(next);
  }

  function onKeyDown(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || dialogOpen()) return;
    if (event.target.closest("textarea, input[type=text], select")) return;
    if (event.key.length === 1 && !keysAnywhereBox.checked && !focusedCandidate()) return;
    if (event.key === "?") {
      event.preventDefault();
      openDialog(helpDialog);
      return;
    }
    if (onKey(event, focusedCandidate())) {
      saveValues();
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
    if (form.dataset.submitting === "true" || screenGone()) {
      event.preventDefault();
      return;
    }
    const unjudged = missing();
    if (unjudged) {
      event.preventDefault();
      status.textContent = missingText(unjudged);
      focusCandidate(unjudged);
      return;
    }
    recordActiveTime(form);
    form.dataset.submitting = "true";
    submitButton.disabled = true;
    submitButton.textContent = "Saving…";
  }

  form.addEventListener("submit", onSubmit);
  ["change", "input"].forEach((type) => form.addEventListener(type, saveValues));
  form.addEventListener("reset", () => setTimeout(saveValues, 0));
  // A click focuses before it ends: scrolling then would move the row from under the pointer and lose the click.
  let pointerDown = false;
  form.addEventListener("pointerdown", () => (pointerDown = true), { capture: true });
  window.addEventListener("pointerup", () => setTimeout(() => (pointerDown = false), 0), { capture: true });
  window.addEventListener("pointercancel", () => (pointerDown = false), { capture: true });
  form.addEventListener("focusin", (event) => {
    if (!pointerDown) keepInView(event.target.closest(".candidate"));
  });
  document.addEventListener("keydown", onKeyDown);
  ["keydown", "pointerdown", "pointermove", "wheel", "scroll", "touchstart"].forEach((type) =>
    window.addEventListener(type, markActivity, { passive: true, capture: true }),
  );
  window.addEventListener("keydown", () => sessionStorage.setItem(INPUT_KEY, "keyboard"), { capture: true });
  window.addEventListener("pointerdown", () => sessionStorage.setItem(INPUT_KEY, "pointer"), { capture: true });
  window.addEventListener("focus", () => {
    lastTick = Date.now();
    markActivity();
    leaseOnReturn();
  });
  document.addEventListener("visibilitychange", () => {
    lastTick = Date.now();
    leaseOnReturn();
  });
  setInterval(tick, TICK_MS / 4);
  // A training screen has no lease (no leaseUrl, no heartbeatSeconds): without this test the interval ran at once
  // and without end, posting to ".../undefined".
  if (config.leaseUrl) setInterval(keepLease, config.heartbeatSeconds * 1000);

  document.getElementById("help-open").addEventListener("click", () => openDialog(helpDialog));
  keysAnywhereBox.checked = localStorage.getItem(KEYS_ANYWHERE_KEY) !== "off";
  keysAnywhereBox.addEventListener("change", () =>
    localStorage.setItem(KEYS_ANYWHERE_KEY, keysAnywhereBox.checked ? "on" : "off"));
  if (flagDialog) {
    const flagForm = document.getElementById("flag-form");
    document.getElementById("flag-open").addEventListener("click", () => openDialog(flagDialog));
    document.getElementById("flag-cancel").addEventListener("click", () => flagDialog.close());
    flagForm.addEventListener("submit", (event) => {
      if (flagForm.dataset.submitting === "true" || screenGone()) {
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
  const values = startingValues();
  if (values) writeValues(values);
  saveValues();
  updateState();
  focusOnArrival();
}
