import "server-only";
import type { ActingAs } from "@/core/actor";
import { formatUsd } from "@/core/money";
import type { Db, DbOrTrx } from "@/db";
import { getPaidBy, getStatementPayment, insertPaymentReturns, type NewPaymentReturn } from "@/db/queries/payment-flow";
import { AppError, TwoPersonRefusal } from "@/lib/errors";
import { readPayoutSettings } from "@/lib/payouts/settings";
import { type Changed, transition } from "@/lib/payouts/transition";

/**
 * A paid payment that came back. From a provider's results (lib/payments/apply-results.ts), or by hand: "mark paid"
 * stays for payments made outside any file, and undoing a wrong "paid" is recording that payment as returned, with a
 * written reason, by someone other than the person who recorded it as paid. Either way the statement becomes
 * returned, owed again, and the payment and its return stay on the ledger.
 */

export type PaymentBefore = {
  amountUsd: string;
  paidAt: Date | null;
  paidOn: string | null;
  method: string | null;
  reference: string | null;
  paidById: string | null;
};

/** What each paid statement's payment was, read under the batch lock before it is undone. */
export async function paymentsBeforeReturn(
  db: DbOrTrx,
  gameId: string,
  changed: readonly Changed[],
): Promise<Map<string, PaymentBefore>> {
  const out = new Map<string, PaymentBefore>();
  for (const c of changed) {
    const row = await getStatementPayment(db, { gameId, statementId: c.id });
    const by = await getPaidBy(db, c.id);
    out.set(c.id, {
      amountUsd: formatUsd(row?.paid_amount_usd ?? c.payable_usd),
      paidAt: row?.closed_at ?? null,
      paidOn: row?.paid_on ?? null,
      method: row?.payment_method ?? null,
      reference: row?.payment_reference ?? null,
      paidById: by?.actorId ?? null,
    });
  }
  return out;
}

export function returnRows(
  changed: readonly Changed[],
  before: Map<string, PaymentBefore>,
  batch: { id: string; at: Date },
  gameId: string,
  as: ActingAs,
  why: (c: Changed) => { reason: string; fileId: string | null; resultId: string | null; undone?: boolean },
): NewPaymentReturn[] {
  return changed.map((c) => {
    const paid = before.get(c.id);
    return {
      gameId,
      batchId: batch.id,
      statementId: c.id,
      recipientPlayerId: c.recipient_player_id,
      kind: "returned",
      amountUsd: paid?.amountUsd ?? formatUsd(c.payable_usd),
      ...why(c),
      paidAt: paid?.paidAt ?? null,
      paidOn: paid?.paidOn ?? null,
      paymentMethod: paid?.method ?? null,
      paymentReference: paid?.reference ?? null,
      paidById: paid?.paidById ?? null,
      actorId: as.actor?.id ?? null,
      actorEmail: as.actor?.email ?? null,
      via: as.via,
      at: batch.at,
    };
  });
}

/** Records a paid statement's payment as returned (undoing a wrong "paid"); two people: not who recorded it paid. */
export async function returnPayment(
  db: Db,
  params: {
    gameId: string;
    statementId: string;
    reason: string;
    /**
     * When the statement was recorded paid as the page showed it: refused if it has been paid again since (returned,
     * then paid by hand or by another file), so the payment undone is the one the person saw.
     */
    paidShownAt?: string;
    /**
     * "Paid" was recorded by mistake and the money never left: owed again as on a return, but nothing came back, so
     * no "Payment returned" flag is raised and the payment posts back to clearing.
     */
    undo?: boolean;
  },
  as: ActingAs,
): Promise<{ amountUsd: string; batchId: string; recipientPlayerId: number }> {
  const undone = params.undo === true;
  const reason = params.reason.trim();
  if (reason.length < 5)
    throw new AppError("INVALID_INPUT", "Say why the payment is undone (at least 5 characters).", { field: "reason" });
  if (!as.actor) throw new AppError("FORBIDDEN", "A payment is undone by a signed-in person.");
  const statement = await getStatementPayment(db, params);
  if (!statement) throw new AppError("NOT_FOUND", "No such statement for this game.");
  let before = new Map<string, PaymentBefore>();
  const actorId = as.actor.id;
  const step = await transition(
    db,
    "return_payment",
    {
      gameId: params.gameId,
      batchId: statement.batch_id,
      statements: [params.statementId],
      check: async ({ trx, changed, statements }) => {
        if (changed.length === 0)
          throw new AppError("CONFLICT", `The statement is ${statements[0]?.state ?? "gone"}, not paid.`);
        before = await paymentsBeforeReturn(trx, params.gameId, changed);
        const paidAt = changed[0]?.state_changed_at;
        if (params.paidShownAt !== undefined && paidAt && paidAt.getTime() !== Date.parse(params.paidShownAt)) {
          const now = before.get(params.statementId);
          throw new AppError(
            "CONFLICT",
            `The statement was paid again since this page was drawn (now as ${now?.reference ?? "another payment"}` +
              `${now?.paidOn ? ` on ${now.paidOn}` : ""}): nothing was recorded. Look at its payment again before ` +
              "recording it returned.",
          );
        }
        // Bound to the person: the rule in force now (a team of one, the rule off, records its own payment's return).
        const { twoPersonRule } = await readPayoutSettings(trx);
        if (twoPersonRule && before.get(params.statementId)?.paidById === actorId)
          throw new TwoPersonRefusal(
            "Two-person rule: you recorded this payment, so another finance user records it as returned.",
          );
      },
      eventDetail: () => (undone ? { reason, undone } : { reason }),
      apply: async ({ trx, changed, batch, now }) => {
        await insertPaymentReturns(
          trx,
          returnRows(changed, before, { id: batch.id, at: now }, params.gameId, as, () => ({
            reason,
            fileId: null,
            resultId: null,
            undone,
          })),
        );
      },
      audit: () => ({
        detail: {
          statementId: params.statementId,
          reason,
          ...(undone ? { undone } : {}),
          ...before.get(params.statementId),
        },
      }),
    },
    as,
  );
  return {
    amountUsd: before.get(params.statementId)?.amountUsd ?? "0.00",
    batchId: statement.batch_id,
    recipientPlayerId: Number(step.changed[0]?.recipient_player_id),
  };
}
