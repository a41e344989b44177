/** Unmissable notice that the selected game is a sandbox: nothing on the page is real money. */
export function SandboxBanner({ gameName }: { gameName: string }) {
  return (
    <div
      role="note"
      aria-label="Sandbox game"
      className={
        "mb-5 flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border-2 border-warning " +
        "bg-warning-strong px-4 py-2.5 text-warning-ink"
      }
    >
      <span
        className={
          "rounded bg-warning-ink px-1.5 py-px text-xs font-bold tracking-wide text-warning-strong " + "uppercase"
        }
      >
        Sandbox
      </span>
      <p className="font-semibold">Sandbox game: figures are test data</p>
      <p className="text-sm">{gameName} is connected to the service&apos;s sandbox; do not pay from these figures.</p>
    </div>
  );
}
