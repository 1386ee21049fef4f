// The crowd worker's completion page (templates/judge/crowd_done.html): back to the platform after a few seconds,
// as the page's meta refresh did without JavaScript, but the worker can stay (WCAG 2.2.1, timing adjustable): the
// "Stay on this page" button, Escape, or any other key or click on the page (copying the code, moving through the
// page) stops the redirect. The countdown is announced once, in the polite region #redirect-announce.
const box = document.getElementById("redirect");
const link = document.getElementById("completion-link");
const stop = document.getElementById("redirect-stop");
const note = document.getElementById("redirect-note");
const announce = document.getElementById("redirect-announce");
const seconds = Number(box.dataset.seconds);

const timer = setTimeout(() => window.location.assign(link.href), seconds * 1000);

function stay() {
  clearTimeout(timer);
  window.removeEventListener("keydown", stay, { capture: true });
  window.removeEventListener("pointerdown", stay, { capture: true });
  stop.hidden = true;
  note.textContent = "You stay on this page.";
  announce.textContent = "You stay on this page. Return to the platform with the link when you are ready.";
}

stop.hidden = false;
note.textContent = `You are taken back to the platform in ${seconds} seconds, unless you stay on this page.`;
announce.textContent = `You are taken back to the platform in ${seconds} seconds. Press any key to stay on this page.`;
stop.addEventListener("click", stay);
window.addEventListener("keydown", stay, { capture: true });
window.addEventListener("pointerdown", stay, { capture: true });
