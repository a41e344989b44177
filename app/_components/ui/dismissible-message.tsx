/** A message's text and the button that puts it away, side by side (a page's alert, a result notice). */
export function MessageWithDismiss({ message, onDismiss }: { message: string; onDismiss: () => void }) {
  return (
    <>
      <p className="min-w-0 flex-1">{message}</p>
      <button
        type="button"
        onClick={() => {
          // The button goes with the message: focus goes on from the page's main content, not the document's start.
          document.getElementById("main-content")?.focus();
          onDismiss();
        }}
        className="shrink-0 text-xs underline underline-offset-2"
        aria-label="Dismiss the message"
      >
        Dismiss
      </button>
    </>
  );
}
