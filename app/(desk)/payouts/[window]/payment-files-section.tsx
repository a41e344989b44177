import { downloadHref } from "@/lib/games/download-game";
import { SimpleTable, RowTh, Td, Th, Tr } from "@/app/_components/table/table";
import { Badge } from "@/app/_components/ui/badge";
import { DateTime } from "@/app/_components/ui/date-time";
import { Money } from "@/app/_components/ui/money";
import type { Db } from "@/db";
import type { PayoutBatchStatus } from "@/db/types";
import { countOf, formatCount, formatUsdText } from "@/lib/format";
import { listBatchPaymentFiles } from "@/lib/payments/file-access";
import { sepaPayerNote } from "@/lib/payments/files";
import { countPaymentStates } from "@/db/queries/payouts";
import { listOutdatedLiveFiles } from "@/db/queries/outdated-files";
import { fileMethodsThatCanPay } from "@/lib/payments/file-payable";
import { Banner } from "@/app/_components/ui/banner";
import { recipientInWords } from "@/lib/payouts/bulk-words";
import { listStatementsInState, type PayoutStatement } from "@/lib/payouts/ledger";
import {
  cancelPaymentFileAction,
  createPaymentFileAction,
  importResultsAction,
  returnPaymentAction,
} from "./payment-actions";
import { CancelFileButton, CreateFileForm, ReturnPaymentButton } from "./payment-file-forms";
import { Panel } from "./panel";
import { ResultsImportForm } from "./results-import-form";

/** A paid statement as the return dialog names it: recipient, amount paid, reference. */
export function paidStatementLabel(s: PayoutStatement): string {
  return (
    `Recipient ${s.recipientPlayerId}: ${formatUsdText(s.paidAmountUsd ?? s.payableUsd)} ` +
    `(${s.paymentReference ?? ""})`
  );
}

const FILE_STATUS_TONES = { live: "info", completed: "success", cancelled: "neutral" } as const;
/** Paid statements offered for recording a return, by recipient id. */
const RETURNABLE_SHOWN = 500;
/** Why no payment file can be made now, by the batch's status (an approved one: nothing approved is left unpaid). */
const NO_FILE_TO_MAKE: Record<PayoutBatchStatus, string> = {
  draft: "Payment files are made once the batch is approved; it is still a draft.",
  approved: "No approved statement is left to pay.",
  paid: "Every approved statement of this batch is paid: no payment file is left to make.",
  discarded: "This batch was discarded: nothing is paid from it.",
};
const NO_FILE_PAYABLE =
  "No payable statement can go into a payment file: no recipient owed has PayPal, Wise or bank details in USD or EUR " +
  "on their payout profile (they are paid by hand, or have no payout details), or each who has is held back by an " +
  "open flag (details changed since approval, a payment returned, a disputed renewal, a missing tax form). Resolve " +
  "or override those flags on each recipient's page, add details under Payout profiles, or pay them outside the " +
  "desk and mark their statements paid.";
/** Recipients a live file at outdated details is named with (the notice counts the rest). */
const OUTDATED_NAMED = 3;

const METHOD_LABELS: Record<string, string> = { paypal: "PayPal", wise: "Wise", pain001: "SEPA", generic: "Generic" };

/**
 * The window's payment files: make one (only for an approved batch with something payable), download, cancel, import
 * the provider's results, and record a paid payment as returned. Shown to finance.
 */
export async function PaymentFilesSection(props: {
  db: Db;
  gameId: string;
  batch: { id: string; status: PayoutBatchStatus; snapshotId: string };
  /** The two-person rule in force now: a payment's return is then recorded by someone other than who recorded it. */
  twoPersonRule: boolean;
  today: string;
  /** Who is looking: a payment they recorded is returned by another finance user (two-person rule). */
  userEmail: string;
}) {
  const { db, gameId, batch } = props;
  // Counts from the batch's tally and the first paid statements only: a batch may hold 100,000 statements.
  const [files, counts, paid, sepa] = await Promise.all([
    listBatchPaymentFiles(db, { gameId, batchId: batch.id }),
    countPaymentStates(db, { gameId, batchId: batch.id }),
    listStatementsInState(db, { gameId, batchId: batch.id, state: "paid", limit: RETURNABLE_SHOWN }),
    sepaPayerNote(db, gameId),
  ]);
  const { inPayment, payable } = counts;
  const live = files.filter((f) => f.status === "live");
  // Only a live file can still pay old details (most windows have none: nothing is read then).
  const outdated =
    live.length > 0 ? await listOutdatedLiveFiles(db, { gameId, batchId: batch.id, named: OUTDATED_NAMED }) : [];
  // A file pays recipients whose profiles name PayPal, Wise or a bank account and whom no open flag holds back; with
  // none, the form is only refused. Only the kinds of file that pay someone are offered.
  const payingMethods =
    batch.status === "approved" && payable > 0
      ? await fileMethodsThatCanPay(db, { gameId, batchId: batch.id, snapshotId: batch.snapshotId })
      : [];
  const canMake = payingMethods.length > 0;
  // Under the two-person rule a payment is recorded as returned by someone other than who recorded it.
  const returnable = props.twoPersonRule ? paid.filter((s) => s.stateChangedBy !== props.userEmail) : paid;
  const mine = paid.length - returnable.length;
  return (
    <Panel
      id="payment-files"
      title="Payment files"
      open
      className="mb-4"
      summary={
        `${formatCount(live.length)} live, ${countOf(inPayment, "statement")} in payment, ` +
        `${formatCount(payable)} payable`
      }
    >
      <div className="flex flex-col gap-6">
        {live.map((f) => {
          const held = outdated.find((o) => o.fileId === f.id);
          if (!held) return null;
          const named = held.recipients.map((o) => recipientInWords(o.recipientPlayerId, o.name));
          const more = held.outdated - named.length;
          const rest = more > 0 ? ` and ${formatCount(more)} more` : "";
          return (
            <Banner
              key={f.id}
              tone="warning"
              title={`${f.fileName} pays ${countOf(held.outdated, "recipient")} at details changed since it was made`}
            >
              {`${named.join(", ")}${rest}: their payout details were changed (and approved) after this file was ` +
                "written, and the provider would pay the account it holds. Cancel the file and make a new one, " +
                "unless it was uploaded already (then import the provider's results as they come)."}
            </Banner>
          );
        })}
        {files.length > 0 ? (
          <SimpleTable
            caption="Files of this batch"
            dense
            head={
              <>
                <Th>File</Th>
                <Th>Method</Th>
                <Th>State</Th>
                <Th align="right">Payments</Th>
                <Th align="right">Amount</Th>
                <Th>Made</Th>
                <Th>SHA-256</Th>
                <Th>Actions</Th>
              </>
            }
          >
            {files.map((f) => (
              <Tr key={f.id}>
                <RowTh className="font-mono text-xs">{f.fileName}</RowTh>
                <Td>{METHOD_LABELS[f.method] ?? f.method}</Td>
                <Td>
                  <Badge tone={FILE_STATUS_TONES[f.status]}>{f.status}</Badge>
                </Td>
                <Td align="right">{formatCount(f.rowCount)}</Td>
                <Td align="right">
                  {f.method === "wise" && f.currency !== "USD" ? (
                    // Wise is sent USD and converts it at its own rate; the desk's figure is only an estimate.
                    <span className="flex flex-col items-end">
                      <Money value={f.totalUsd} currency="USD" />
                      <span className="text-xs text-ink-muted">
                        to {f.currency}, about <Money value={f.totalAmount} currency={f.currency} />
                      </span>
                    </span>
                  ) : (
                    <Money value={f.totalAmount} currency={f.currency} />
                  )}
                </Td>
                <Td>
                  <DateTime value={f.createdAt.toISOString()} focusable={false} />
                </Td>
                <Td className="font-mono text-xs">
                  {/* The whole digest on demand, by keyboard too, to compare with the file uploaded. */}
                  <details>
                    <summary className="cursor-pointer">
                      {f.sha256.slice(0, 12)}…<span className="sr-only"> SHA-256 of {f.fileName}</span>
                    </summary>
                    <span className="break-all">{f.sha256}</span>
                  </details>
                </Td>
                <Td>
                  <span className="flex flex-wrap gap-2">
                    {f.status === "cancelled" ? (
                      // Its statements are payable again: uploaded now, it would pay them twice.
                      <span className="text-xs text-ink-muted">Not offered: cancelled</span>
                    ) : (
                      <a
                        href={downloadHref(`/api/payment-files/${f.id}`, gameId)}
                        download={f.fileName}
                        className="text-sm font-medium text-accent underline-offset-2 hover:underline"
                      >
                        {f.status === "completed" || f.settledItems > 0 ? "Download for the record" : "Download"}
                        <span className="sr-only"> {f.fileName}</span>
                      </a>
                    )}
                    {f.status === "completed" ? (
                      // Every payment in it has its result: uploaded again, it would pay them all twice.
                      <span className="text-xs text-ink-muted">settled: never upload it again</span>
                    ) : f.status === "live" && f.settledItems > 0 ? (
                      // The provider has it: uploaded again, it would pay those it paid a second time.
                      <span className="text-xs text-ink-muted">
                        {countOf(f.settledItems, "payment")} settled: never upload it again
                      </span>
                    ) : null}
                    {f.downloads > 0 ? (
                      <span className="text-xs text-ink-muted">downloaded {countOf(f.downloads, "time")}</span>
                    ) : null}
                    {f.status === "live" && f.heldAtProvider > 0 ? (
                      // Payable again, its statements would be paid twice once the provider pays these: the cancel
                      // asks the person to confirm it will not.
                      <span className="text-xs text-ink-muted">
                        {countOf(f.heldAtProvider, "payment")} pending at the provider
                      </span>
                    ) : null}
                    {f.status === "live" ? (
                      <CancelFileButton
                        action={cancelPaymentFileAction}
                        fileId={f.id}
                        fileName={f.fileName}
                        gameId={gameId}
                        downloads={{
                          count: f.downloads,
                          lastBy: f.lastDownloadedBy,
                          lastAt: f.lastDownloadedAt ? f.lastDownloadedAt.toISOString() : null,
                        }}
                        provider={{ settled: f.settledItems, held: f.heldAtProvider }}
                      />
                    ) : null}
                  </span>
                </Td>
              </Tr>
            ))}
          </SimpleTable>
        ) : (
          <p className="text-sm text-ink-muted">No payment file yet.</p>
        )}

        <section aria-labelledby="make-file-heading" className="flex flex-col gap-2">
          <h3 id="make-file-heading" className="text-sm font-semibold text-ink">
            Make a payment file
          </h3>
          <CreateFileForm
            action={createPaymentFileAction}
            batchId={batch.id}
            gameId={gameId}
            today={props.today}
            sepa={sepa}
            offered={canMake}
            unavailable={batch.status === "approved" && payable > 0 ? NO_FILE_PAYABLE : NO_FILE_TO_MAKE[batch.status]}
            payable={payable}
            payingMethods={payingMethods}
          />
        </section>

        {files.length > 0 ? (
          <section aria-labelledby="import-results-heading" className="flex flex-col gap-2">
            <h3 id="import-results-heading" className="text-sm font-semibold text-ink">
              Import results
            </h3>
            <ResultsImportForm action={importResultsAction} gameId={gameId} batchId={batch.id} />
          </section>
        ) : null}

        {paid.length > 0 ? (
          <section aria-labelledby="return-heading" className="flex flex-col items-start gap-2">
            <h3 id="return-heading" className="text-sm font-semibold text-ink">
              Returned payments
            </h3>
            <p className="text-sm text-ink-muted">
              A payment that came back, or one marked paid by mistake: the statement is owed again.
            </p>
            {mine > 0 ? (
              <p className="text-sm text-ink-muted">
                {countOf(mine, "payment")} you recorded {mine === 1 ? "is" : "are"} not listed: another finance user
                records {mine === 1 ? "its" : "their"} return (two-person rule).
              </p>
            ) : null}
            {returnable.length > 0 ? (
              <ReturnPaymentButton
                action={returnPaymentAction}
                gameId={gameId}
                paid={returnable.map((s) => ({ id: s.id, label: paidStatementLabel(s), paidAt: s.stateChangedAt }))}
              />
            ) : null}
            {paid.length === RETURNABLE_SHOWN ? (
              <p className="text-sm text-ink-muted">
                The first {formatCount(RETURNABLE_SHOWN)} paid statements by recipient are listed; any recipient's
                payment is recorded as returned on their page (open them from the table).
              </p>
            ) : null}
          </section>
        ) : null}
      </div>
    </Panel>
  );
}
