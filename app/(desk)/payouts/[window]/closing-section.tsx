import { Badge } from "@/app/_components/ui/badge";
import { DateTime } from "@/app/_components/ui/date-time";
import type { WindowClosingState } from "@/lib/accounting/close";
import { closeWindowAction, reopenWindowAction } from "./closing-actions";
import { ClosingForm } from "./closing-panel";
import { Panel } from "./panel";

const CLOSED_TEXT =
  "No new payout batch can be prepared for this window. Refunds that arrive later are reversals in later windows, " +
  "as always.";
const CLOSABLE_TEXT =
  "The batch is paid: close the window so that no new batch is prepared for it. Later refunds still arrive as " +
  "reversals in later windows.";

/** The window's closed state, and close or reopen when the person may and the window allows it. */
export function ClosingSection({
  closing,
  canAct,
  gameId,
  windowKey,
}: {
  closing: WindowClosingState;
  canAct: boolean;
  gameId: string;
  windowKey: string;
}) {
  const { closed, last } = closing;
  const canChange = canAct && (closed || closing.closeBlockedBy === null);
  return (
    <Panel
      id="closing"
      className="lg:col-span-2"
      title="Closing"
      summary={closed ? <Badge tone="neutral">Closed</Badge> : "Open"}
      open={closed || canChange}
    >
      {last ? (
        <p className="mb-3 text-sm text-ink-muted">
          {last.closed ? "Closed" : "Reopened"} by {last.changedByEmail ?? "Payout Desk"} on{" "}
          <DateTime value={last.changedAt.toISOString()} />: “{last.reason}”
        </p>
      ) : null}
      <p className="mb-3 text-sm text-ink-muted">{closed ? CLOSED_TEXT : (closing.closeBlockedBy ?? CLOSABLE_TEXT)}</p>
      {canChange ? (
        <ClosingForm
          action={closed ? reopenWindowAction : closeWindowAction}
          gameId={gameId}
          windowKey={windowKey}
          closed={closed}
        />
      ) : null}
    </Panel>
  );
}
