import { Badge } from "@/app/_components/ui/badge";
import { Banner } from "@/app/_components/ui/banner";
import { Card } from "@/app/_components/ui/card";
import { DateTime } from "@/app/_components/ui/date-time";
import { SimpleTable, Td, Th, Tr } from "@/app/_components/table/table";
import { getDb } from "@/db";
import {
  countStatementSends,
  type DeliveryRow,
  getDeliveryFailure,
  listStatementDeliveries,
} from "@/db/queries/statement-deliveries";
import type { PayoutStatement } from "@/lib/payouts/ledger";
import { isStatementIssued } from "@/lib/statements/hrefs";
import { isHeldBack } from "@/lib/statements/delivery-log";
import { mailboxOf } from "@/lib/statements/send";
import { statementIssuerIsSet } from "@/lib/statements/settings";
import { ISSUER_MISSING_NOTE } from "@/app/_components/payouts/issuer-note";
import { formatInstant } from "@/lib/time";
import { sendStatementAction } from "../../../statement-mail-actions";
import { SendStatementButton } from "./send-statement-button";

const TONES = { queued: "neutral", sent: "success", failed: "danger" } as const;

/** The statement's emails, with the button to send it (finance), once its batch is approved. */
export async function StatementDeliveries(props: { gameId: string; statement: PayoutStatement; canAct: boolean }) {
  const { statement } = props;
  if (!isStatementIssued(statement.batchStatus)) return null;
  const db = getDb();
  const [deliveries, sendsSeen, failure, issuerSet] = await Promise.all([
    listStatementDeliveries(db, { gameId: props.gameId, statementId: statement.id }),
    countStatementSends(db, statement.id),
    getDeliveryFailure(db, { gameId: props.gameId, recipientPlayerId: statement.recipientPlayerId }),
    props.canAct ? statementIssuerIsSet(db) : Promise.resolve(false),
  ]);
  // Finance may email a statement whose recipient has an address (one mailbox), once the studio has said who issues it.
  const to = props.canAct ? mailboxOf(statement.playerEmail) : null;
  const note = (text: string) => (
    <span className="block max-w-xs whitespace-normal text-sm text-ink-muted">{text}</span>
  );
  return (
    <DeliveryLog
      deliveries={deliveries}
      failure={failure}
      actions={
        to && issuerSet ? (
          <SendStatementButton
            gameId={props.gameId}
            batchId={statement.batchId}
            statementId={statement.id}
            sendsSeen={sendsSeen}
            to={to}
            action={sendStatementAction}
          />
        ) : to ? (
          note(ISSUER_MISSING_NOTE)
        ) : props.canAct && statement.playerEmail ? (
          note("The email address on record is not a single mailbox: no statement is emailed to it.")
        ) : undefined
      }
    />
  );
}

/** Every email of this statement: queued, each failed attempt with the server's answer, sent. */
function DeliveryLog(props: {
  deliveries: DeliveryRow[];
  failure: { serverAnswer: string; failedAt: Date; refused: boolean } | null;
  actions?: React.ReactNode;
}) {
  const failedOn = props.failure ? <DateTime value={formatInstant(props.failure.failedAt)} /> : null;
  return (
    <Card title="Statement emails" actions={props.actions}>
      {props.failure?.refused ? (
        <Banner tone="danger" title="Last delivery to this recipient failed">
          The mail server refused the address for good on {failedOn}:{" "}
          <span className="font-mono">{props.failure.serverAnswer}</span>. Check the email address on record.
        </Banner>
      ) : props.failure ? (
        // Not a refusal of the address: the mail server unreachable or deferring through every attempt, or no result.
        <Banner tone="warning" title="Last email to this recipient was not delivered">
          Its last attempt ended on {failedOn}: <span className="font-mono">{props.failure.serverAnswer}</span>. The
          address was not refused: its batch's "Email statements…" offers that email again.
        </Banner>
      ) : null}
      {props.deliveries.length === 0 ? (
        <p className="text-ink-muted">Not emailed yet.</p>
      ) : (
        <SimpleTable
          caption="Delivery log, newest first"
          frame="none"
          dense
          head={
            <>
              <Th>When</Th>
              <Th>Status</Th>
              <Th>To</Th>
              <Th>Attempt</Th>
              <Th>Server's answer</Th>
            </>
          }
        >
          {props.deliveries.map((d) => (
            <Tr key={d.id}>
              <Td>
                <DateTime value={formatInstant(d.at)} seconds focusable={false} />
              </Td>
              <Td>
                {d.final && isHeldBack(d.serverAnswer) ? (
                  <Badge tone="neutral">not sent</Badge>
                ) : (
                  <Badge tone={TONES[d.status]}>{d.final ? "failed, final" : d.status}</Badge>
                )}
              </Td>
              <Td>{d.toAddress ?? "—"}</Td>
              <Td>{d.attempt > 0 ? d.attempt : "—"}</Td>
              <Td className="font-mono text-xs">{d.serverAnswer ?? ""}</Td>
            </Tr>
          ))}
        </SimpleTable>
      )}
    </Card>
  );
}
