import "server-only";
import { createHash } from "node:crypto";
import type { ActingAs } from "@/core/actor";
import type { Db, DbOrTrx } from "@/db";
import {
  cancelPaymentFile,
  countHeldAtProvider,
  countSettledItems,
  countPaymentFileDownload,
  getPaymentFileStatus,
  listPaymentFiles,
  type PaymentFileRow,
} from "@/db/queries/payment-files";
import { formatInstant } from "@/core/time";
import { countOf } from "@/lib/format";
import { completeSettledFiles, getPaymentFile, listFileStatementsInPayment } from "@/db/queries/payment-flow";
import { recordAudit } from "@/lib/audit";
import { openSecret } from "@/lib/crypto";
import { AppError } from "@/lib/errors";
import { paymentFileContext } from "@/lib/keys/sealed-columns";
import { transition } from "@/lib/payouts/transition";

/** Reading, downloading and cancelling payment files (lib/payments/files.ts makes them). */

export type DownloadedFile = { fileName: string; mediaType: string; content: string; sha256: string };

/** The file exactly as written, its SHA-256 checked against the one recorded; the download is audited. */
export async function downloadPaymentFile(
  db: Db,
  params: { gameId: string; fileId: string },
  as: ActingAs,
): Promise<DownloadedFile> {
  const file = await getPaymentFile(db, params);
  if (!file) throw new AppError("NOT_FOUND", "No such payment file for this game.");
  if (file.status === "cancelled") refuseCancelled();
  if (!file.contentSealed) throw new AppError("CONFLICT", "This payment file's content was not kept.");
  const content = openSecret(file.contentSealed, paymentFileContext(file.id));
  const sha256 = createHash("sha256").update(content, "utf8").digest("hex");
  if (sha256 !== file.sha256) throw new Error(`payment file ${file.id}: content does not match its SHA-256`);
  // Counted on the file's row with its audit line: a cancel taking the row meanwhile refuses the download, and one
  // after it is told of it.
  await db.transaction().execute(async (trx) => {
    const counted = await countPaymentFileDownload(trx, {
      gameId: params.gameId,
      fileId: file.id,
      byEmail: as.actor?.email ?? null,
    });
    if (!counted) refuseCancelled();
    await recordAudit(trx, {
      actor: as.actor,
      via: as.via,
      action: "payouts.payment_file.download",
      gameId: params.gameId,
      target: file.id,
      outcome: "succeeded",
      detail: { batchId: file.batchId, fileName: file.fileName, sha256, status: file.status },
    });
  });
  return { fileName: file.fileName, mediaType: file.mediaType, content, sha256 };
}

/** Its statements were made payable again (and may be in a newer file): uploaded now, it would pay them twice. */
function refuseCancelled(): never {
  throw new AppError(
    "CONFLICT",
    "This payment file was cancelled: its statements were made payable again, so it is not offered for upload. " +
      "Its SHA-256 and rows stay on the batch page.",
  );
}

/** Why a file asked to be cancelled is not, as it stands under the batch's lock: cancelled already, or settled. */
async function refuseNotLive(trx: DbOrTrx, params: { gameId: string; fileId: string }): Promise<never> {
  const now = await getPaymentFileStatus(trx, params);
  if (now?.status === "cancelled")
    throw new AppError(
      "CONFLICT",
      `This payment file was cancelled meanwhile by ${now.cancelledBy ?? "someone"}` +
        `${now.cancelledAt ? ` at ${formatInstant(now.cancelledAt)}` : ""}: its statements are payable again. ` +
        "Nothing more was done.",
    );
  throw new FileSettled();
}

/** The refusal of a cancel whose file its results settled: the file is completed once the refusal is out. */
class FileSettled extends AppError {
  constructor() {
    super(
      "CONFLICT",
      "Nothing of this payment file is still in payment: its results were imported, each statement paid or rejected. " +
        "It is not cancelled, and is marked completed: never upload it again.",
    );
  }
}

/**
 * A cancel refused because the file's results settled every statement in it: the file, left live by an import that
 * stopped before completing it, is completed then, so it is offered only "for the record", never to upload again.
 */
async function cancelling<T>(db: Db, batch: { gameId: string; batchId: string }, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    if (error instanceof FileSettled) await completeSettledFiles(db, batch);
    throw error;
  }
}

/**
 * Cancels a live file: its statements still in payment go back to approved, payable again. `downloadsSeen`, the
 * downloads the page showed: a download since (someone may have uploaded it to the provider) refuses the cancel.
 */
export async function cancelPaymentFileFlow(
  db: Db,
  params: { gameId: string; fileId: string; reason: string; downloadsSeen?: number; restUnpaid?: "confirmed" },
  as: ActingAs,
): Promise<{ returnedToApproved: number }> {
  const reason = params.reason.trim();
  if (reason.length < 5) throw new AppError("INVALID_INPUT", "Say why the file is cancelled.", { field: "reason" });
  const file = await getPaymentFile(db, params);
  if (!file) throw new AppError("NOT_FOUND", "No such payment file for this game.");
  const ids = await listFileStatementsInPayment(db, { fileId: file.id });
  let downloads = 0;
  const step = await cancelling(
    db,
    { gameId: params.gameId, batchId: file.batchId },
    transition(
      db,
      "cancel_file",
      {
        gameId: params.gameId,
        batchId: file.batchId,
        statements: ids,
        // Read before the batch's lock: a statement settled from this file and put into another meanwhile is not
        // this file's to return.
        check: async ({ trx, changed }) => {
          // A colleague cancelled it, or its results were imported, since it was read: nothing of it is in payment.
          if (changed.length === 0) await refuseNotLive(trx, { gameId: params.gameId, fileId: file.id });
          if (changed.some((c) => c.payment_file_id !== file.id))
            throw new AppError(
              "CONFLICT",
              "This file's statements changed while it was being cancelled: cancel it again.",
            );
          // The provider answered for some of its payments (it has the file) or holds some as pending: it may still
          // pay them, and payable again they would be paid twice. Cancelled only once the person confirms it will not
          // (a bank's rejection of the whole file, the provider's word).
          if (params.restUnpaid === "confirmed") return;
          const held = await countHeldAtProvider(trx, { fileId: file.id, statementIds: changed.map((c) => c.id) });
          if (held > 0)
            throw new AppError(
              "CONFLICT",
              `The provider reported ${countOf(held, "payment")} of this file as pending: it holds ` +
                `${held === 1 ? "it" : "them"} and may still pay. Import the file's results once the provider ` +
                "settles them (a payment it gives back reads as returned or failed), or cancel once it confirms it " +
                "will not pay them (a rejection of the whole file). Nothing was cancelled.",
            );
          const settled = await countSettledItems(trx, { fileId: file.id });
          if (settled > 0)
            throw new AppError(
              "CONFLICT",
              `The provider answered for ${countOf(settled, "payment")} of this file (its results were imported): ` +
                "it has the file and may still pay the rest. Import the rest of its results, or confirm with the " +
                "provider that it will not pay them before cancelling. Nothing was cancelled.",
            );
        },
        eventDetail: () => ({ fileId: file.id, reason }),
        apply: async ({ trx }) => {
          const cancelled = await cancelPaymentFile(trx, {
            gameId: params.gameId,
            fileId: file.id,
            reason,
            byEmail: as.actor?.email ?? "system",
          });
          if (!cancelled) return refuseNotLive(trx, { gameId: params.gameId, fileId: file.id });
          downloads = cancelled.downloads;
          if (params.downloadsSeen !== undefined && cancelled.downloads > params.downloadsSeen)
            throw new AppError(
              "CONFLICT",
              "This file was downloaded after this page was drawn " +
                `(last by ${cancelled.lastDownloadedBy ?? "someone"} ` +
                `at ${cancelled.lastDownloadedAt ? formatInstant(cancelled.lastDownloadedAt) : "an unknown time"}): ` +
                "ask whether it was uploaded to the provider before cancelling it; if it was, import its results " +
                "instead. Nothing was cancelled.",
            );
        },
        audit: ({ changed }) => ({
          detail: { fileId: file.id, fileName: file.fileName, reason, statements: changed.length, downloads },
        }),
      },
      as,
    ),
  );
  return { returnedToApproved: step.changed.length };
}

export async function listBatchPaymentFiles(
  db: Db,
  params: { gameId: string; batchId: string },
): Promise<PaymentFileRow[]> {
  return listPaymentFiles(db, params);
}
