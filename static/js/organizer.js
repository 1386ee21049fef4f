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
