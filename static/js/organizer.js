// Copy buttons on the organizer's pages: <button data-copy="ID"> copies the value of the input with id ID and
// says so in the .copy-status beside it. The Clipboard API needs a secure context (https or localhost); elsewhere
// the link is selected and copied with the older execCommand, or left selected for Ctrl+C.
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", async () => {
    const input = document.getElementById(button.dataset.copy);
    const status = button.parentElement.querySelector(".copy-status");
    try {
      await navigator.clipboard.writeText(input.value);
      status.textContent = "Copied.";
    } catch {
      input.focus();
      input.select();
      status.textContent = document.execCommand("copy") ? "Copied." : "Selected: press Ctrl+C to copy.";
    }
  });
}

// A form whose action cannot be undone asks first: its data-confirm, or that of the option chosen in it (the rater
// QC page's fresh attempt), is the question; Cancel submits nothing.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.dataset.confirm ?? form.querySelector("option:checked")?.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});
