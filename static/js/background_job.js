// A background job's page (templates/organizer/background_job.html): until the job has finished, the page fetches
// itself every POLL_MS and puts the new status, and what follows it (the error, the campaign's link), in place of
// the old. It used to reload itself (a meta refresh, still there without JavaScript), which sent a keyboard or
// screen reader user back to the top of the page every 2 s (WCAG 2.2.1). The status is a polite live region
// (role=status): a new status is announced, an unchanged one is left alone.
const status = document.getElementById("job-status");
const POLL_MS = 2000;
const FINISHED = new Set(["done", "failed"]);

async function poll() {
  try {
    const response = await fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (response.ok) {
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("job-status");
      if (fresh && (fresh.dataset.status !== status.dataset.status || fresh.textContent !== status.textContent)) {
        status.textContent = fresh.textContent;
        status.dataset.status = fresh.dataset.status;
        while (status.nextSibling) status.nextSibling.remove();
        const after = [];
        for (let node = fresh.nextSibling; node; node = node.nextSibling) after.push(document.importNode(node, true));
        status.after(...after);
      }
    }
  } catch (error) {
    // A failed poll is tried again at the next one.
  }
  if (!FINISHED.has(status.dataset.status)) setTimeout(poll, POLL_MS);
}

if (status && !FINISHED.has(status.dataset.status)) setTimeout(poll, POLL_MS);
