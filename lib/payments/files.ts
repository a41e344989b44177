import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { electronicFormatIBAN } from "ibantools";
import type { ActingAs } from "@/core/actor";
import { env } from "@/core/env";
import { formatUsd, sumMoney } from "@/core/money";
import { monthKeyOf } from "@/core/time";
import type { Db, Trx } from "@/db";
import { findGame } from "@/db/queries/games";
import { insertPaymentFile, PaymentFileConflictError } from "@/db/queries/payment-files";
import { listPayableStatements, setStatementsPaymentFile } from "@/db/queries/payment-flow";
import type { PaymentFileMethod } from "@/db/types";
import { sealSecret } from "@/lib/crypto";
import { AppError } from "@/lib/errors";
import { countOf } from "@/lib/format";
import { sealingKey } from "@/lib/keys/check";
import { paymentFileContext } from "@/lib/keys/sealed-columns";
import { openFlagsOf } from "@/lib/payouts/flags";
import { transition } from "@/lib/payouts/transition";
import { openPayoutDetails } from "@/lib/profiles/details";
import { lastFour, maskDetails } from "@/lib/profiles/mask";
import { writeGenericFiles } from "./formats/generic";
import { pain001MessageStem, writePain001Files } from "./formats/pain001";
import { writePaypalFiles } from "./formats/paypal";
import { type PayableItem, PaymentFileError, type WrittenFile } from "./formats/types";
import { wiseReference, writeWiseFiles } from "./formats/wise";
import { type Candidate, isPaymentBar, itemFor } from "./items";
import { paymentReference } from "./reference";
import { countryOutsideEea } from "./sepa-area";
import { type CreatePaymentFileInput, type FileMethod, sepaExecutionDate } from "./schemas";

/**
 * Payment files (README "Paying recipients"). Making a file pays nothing: it moves the approved payable statements it
 * carries to in_payment, in the same transaction as the file is written; results from the provider then pay them, or
 * send them back. A statement is never open in two live files (payment_file_item_one_live); cancelling a live file
 * returns its statements to approved.
 *
 * The file is written once, at creation, from the details opened then (openPayoutDetails, here only), and kept
 * sealed: a download serves those exact bytes, so it always has the SHA-256 recorded at creation, even after a
 * recipient's details change (a file regenerated from the newest details would differ from the one the provider may
 * already have). Every download is audited with the file's SHA-256.
 */

export const STORED_METHOD: Record<FileMethod, PaymentFileMethod> = {
  paypal: "paypal",
  wise: "wise",
  sepa: "pain001",
  generic: "generic",
};

export type Refusal = { statementId: string; recipientPlayerId: number; reason: string };
export type CreatedFile = {
  id: string;
  fileName: string;
  currency: string;
  rowCount: number;
  totalUsd: string;
  totalAmount: string;
  sha256: string;
};
export type CreateFilesResult = { files: CreatedFile[]; refused: Refusal[]; inPayment: number; totalUsd: string };

const sha256 = (content: string) => createHash("sha256").update(content, "utf8").digest("hex");

type PayerAccount = {
  name: string;
  iban: string;
  bic: string;
  /** Where the payer is (town, ISO country code): named in a transfer to an account outside the EEA. */
  address: { town: string; country: string } | null;
};

/** The account a sandbox game's SEPA files pay from: a demo, never a real payment. */
const DEMO_PAYER: PayerAccount = {
  name: "Payout Desk Demo Ltd",
  iban: "DE89370400440532013000",
  bic: "COBADEFFXXX",
  address: { town: "Frankfurt am Main", country: "DE" },
};

/**
 * The account a game's SEPA files pay from: the configured one for a production game (refused without one: a bank
 * would be asked to debit the demo account), the demo account for a sandbox game whatever is configured (its figures
 * are test data: a file of them never debits the studio's account).
 */
async function payerAccount(db: Db, gameId: string): Promise<PayerAccount> {
  const payer = await sepaPayer(db, gameId);
  if (!payer.ok) throw new AppError("CONFLICT", payer.reason, { field: "method" });
  return payer.account;
}

const NO_PAYER =
  "A SEPA file needs the account it pays from, and none is set: whoever runs Payout Desk sets it " +
  "(PAYOUT_DESK_PAYER_NAME, PAYOUT_DESK_PAYER_IBAN and PAYOUT_DESK_PAYER_BIC; a production game's file never names " +
  "the demo account).";

const payerOutsideEea = (country: string) =>
  `The SEPA payer account is in ${country}, outside the EEA: every euro transfer from it names the payer's ` +
  "address, and none is set: whoever runs Payout Desk sets it (PAYOUT_DESK_PAYER_TOWN and PAYOUT_DESK_PAYER_COUNTRY).";

/** The account a game's SEPA files pay from, or why none may be made (the form offers SEPA only with one). */
export async function sepaPayer(
  db: Db,
  gameId: string,
  configured: PayerAccount | null = configuredPayer(),
): Promise<{ ok: true; account: PayerAccount; demo: boolean } | { ok: false; reason: string }> {
  if ((await findGame(db, gameId))?.environment === "sandbox") return { ok: true, account: DEMO_PAYER, demo: true };
  if (!configured) return { ok: false, reason: NO_PAYER };
  // Every euro transfer from an account outside the EEA names the payer's address: without one, no file is made.
  const outside = configured.address ? null : countryOutsideEea(configured.iban);
  if (outside) return { ok: false, reason: payerOutsideEea(outside) };
  return { ok: true, account: configured, demo: false };
}

/** The account set in PAYOUT_DESK_PAYER_NAME, _IBAN and _BIC (with _TOWN and _COUNTRY, its address), or null. */
function configuredPayer(): PayerAccount | null {
  const e = env();
  if (!e.PAYOUT_DESK_PAYER_NAME || !e.PAYOUT_DESK_PAYER_IBAN || !e.PAYOUT_DESK_PAYER_BIC) return null;
  const town = e.PAYOUT_DESK_PAYER_TOWN;
  const country = e.PAYOUT_DESK_PAYER_COUNTRY;
  return {
    name: e.PAYOUT_DESK_PAYER_NAME,
    iban: e.PAYOUT_DESK_PAYER_IBAN,
    bic: e.PAYOUT_DESK_PAYER_BIC,
    address: town && country ? { town, country } : null,
  };
}

/** What the form says of the SEPA payer: the account, its IBAN masked, or why SEPA is not offered. */
export async function sepaPayerNote(db: Db, gameId: string): Promise<{ offered: boolean; note: string }> {
  const payer = await sepaPayer(db, gameId);
  if (!payer.ok) return { offered: false, note: payer.reason };
  const { name, iban, address } = payer.account;
  const masked = `IBAN ${lastFour(electronicFormatIBAN(iban) ?? iban)}`;
  const where = address
    ? `, ${address.town}, ${address.country}`
    : ": no payer address is set, so accounts outside the EEA (GB, CH and others) are left out";
  return {
    offered: true,
    note: `SEPA files pay from ${name}, ${masked}${where}${payer.demo ? " (the demo account of a sandbox game)" : ""}.`,
  };
}

function writeFiles(
  method: FileMethod,
  items: PayableItem[],
  run: { baseName: string; executionDate: string; payer: PayerAccount | null },
) {
  switch (method) {
    case "paypal":
      return writePaypalFiles(items, { baseName: run.baseName });
    case "wise":
      return writeWiseFiles(items, { baseName: run.baseName });
    case "generic":
      return writeGenericFiles(items, { baseName: run.baseName });
    case "sepa": {
      if (!run.payer) throw new Error("a SEPA file without its payer account");
      return writePain001Files(items, {
        baseName: run.baseName,
        messageId: pain001MessageStem(run.baseName),
        createdAt: new Date(),
        executionDate: run.executionDate,
        initiatingPartyName: run.payer.name,
        debtor: run.payer,
      });
    }
  }
}

/** The statements a file left out listed by its audit line, at most (the count is always kept). */
const AUDITED_REFUSALS = 200;

const today = () => new Date().toISOString().slice(0, 10);

/**
 * Writes the payment file(s) of an approved batch for one method: every approved (or returned) statement with a
 * payable whose recipient that method can pay. The others are listed with the reason and stay as they are.
 */
export async function createPaymentFiles(
  db: Db,
  params: CreatePaymentFileInput & { gameId: string },
  as: ActingAs,
): Promise<CreateFilesResult> {
  if (!as.actor) throw new AppError("FORBIDDEN", "A payment file is made by a signed-in person.");
  if (params.method === "sepa" && !params.eurRate)
    throw new AppError("INVALID_INPUT", "A SEPA file pays in EUR: give the USD→EUR rate and its source.", {
      field: "eurRate",
    });
  const eurRate = params.eurRate ?? null;
  const given = params.executionDate ?? today();
  const executionDate = params.method === "sepa" ? sepaExecutionDate(given, today()) : given;
  const payer = params.method === "sepa" ? await payerAccount(db, params.gameId) : null;
  const refused: Refusal[] = [];
  const written: WrittenFile[] = [];
  /** By reference: the USD amount and the amount in the file's currency. */
  const amounts = new Map<string, { usd: string; currency: string; accountMasked: string | null }>();
  const statementOf = new Map<string, string>();
  /** By reference sent: the statement's own reference (its first filing's). */
  const statementReference = new Map<string, string>();
  const actor = as.actor;
  const created: CreatedFile[] = [];
  // Returned statements are owed again: a new file pays them like approved ones (the transition moves both).
  const step = await transition(
    db,
    "file_payment",
    {
      gameId: params.gameId,
      batchId: params.batchId,
      statements: {},
      check: async (s) => {
        const month = monthKeyOf(s.batch.window_start);
        const rows = await listPayableStatements(s.trx, { gameId: params.gameId, batchId: params.batchId });
        const byId = new Map(rows.map((r) => [r.id, r]));
        const payable = s.changed.filter((c) => byId.has(c.id));
        const details = await openPayoutDetails(
          s.trx,
          params.gameId,
          payable.map((c) => Number(c.recipient_player_id)),
        );
        const items: PayableItem[] = [];
        const recipientOf = new Map<string, number>();
        for (const c of payable) {
          const row = byId.get(c.id);
          const recipientPlayerId = Number(c.recipient_player_id);
          const own = row?.providerReference ?? paymentReference({ gameId: params.gameId, month, statementId: c.id });
          // Filed again, it is sent under a reference of this filing (lib/payments/reference.ts).
          const filing = Number(row?.filings ?? 0) + 1;
          const filed =
            filing === 1 ? own : paymentReference({ gameId: params.gameId, month, statementId: c.id, filing });
          // Wise passes on a USD reference of 10 characters at most: the row sends (and the item keeps) a short one.
          const currency = details.get(recipientPlayerId)?.currency ?? "USD";
          const reference = params.method === "wise" ? wiseReference(filed, currency) : filed;
          statementReference.set(reference, own);
          const open = s.flags ? openFlagsOf(s.flags, recipientPlayerId, c.recipient_flags) : [];
          const candidate: Candidate = {
            statementId: c.id,
            recipientPlayerId,
            playerName: row?.playerName ?? null,
            payableUsd: formatUsd(c.payable_usd),
            reference,
            bars: open.map((f) => f.flag).filter(isPaymentBar),
          };
          const made = itemFor(candidate, details.get(recipientPlayerId), {
            method: params.method,
            eurRate,
            note: `Revenue share ${month}`,
            payer,
          });
          if (!made.ok) {
            refused.push({ statementId: c.id, recipientPlayerId, reason: made.reason });
            continue;
          }
          items.push(made.item);
          recipientOf.set(reference, recipientPlayerId);
          const instruction = details.get(recipientPlayerId);
          amounts.set(reference, {
            usd: made.item.amountUsd,
            currency: made.amountCurrency,
            accountMasked: instruction ? maskDetails(instruction.details) : null,
          });
          statementOf.set(reference, c.id);
        }
        if (items.length === 0) {
          throw new AppError(
            "CONFLICT",
            refused.length === 0
              ? "No approved statement with a payable is left to put in a payment file."
              : `No statement can be paid by this method: ${describeRefusals(refused)}.`,
          );
        }
        const baseName = `PD-${month.replace("-", "")}-${randomUUID().slice(0, 8)}`;
        try {
          for (const file of writeFiles(params.method, items, { baseName, executionDate, payer })) written.push(file);
        } catch (error) {
          if (error instanceof PaymentFileError)
            throw new AppError("CONFLICT", `The file cannot be written: ${describeProblems(error, recipientOf)}.`);
          throw error;
        }
        // Only the statements the file pays move to in_payment.
        const filed = new Set(statementOf.values());
        // Kept in place, without spreading them as arguments (more than about 120,000 would overflow the stack).
        const kept = s.changed.filter((c) => filed.has(c.id));
        s.changed.length = 0;
        for (const c of kept) s.changed.push(c);
      },
      apply: async ({ trx }) => {
        const key = await sealingKey(trx as unknown as Db);
        for (const file of written) created.push(await storeFile(trx, file, key));
      },
      eventDetail: () => ({ method: params.method }),
      audit: ({ changed }) => ({
        detail: {
          method: params.method,
          eurRate,
          rateSource: params.rateSource ?? null,
          executionDate,
          files: created.map((f) => ({
            id: f.id,
            fileName: f.fileName,
            sha256: f.sha256,
            rows: f.rowCount,
            currency: f.currency,
            totalUsd: f.totalUsd,
            totalAmount: f.totalAmount,
          })),
          inPayment: changed.length,
          totalUsd: formatUsd(sumMoney(changed.map((c) => c.payable_usd))),
          // Who was left out and why (never their details), the first AUDITED_REFUSALS of them.
          refused: refused.length,
          refusedListed: refused.slice(0, AUDITED_REFUSALS),
        },
      }),
    },
    as,
  );

  async function storeFile(trx: Trx, file: WrittenFile, key: Buffer) {
    const id = randomUUID();
    const hash = sha256(file.content);
    const ids = file.references.map((ref) => statementOf.get(ref) ?? "");
    try {
      await insertPaymentFile(trx, {
        id,
        gameId: params.gameId,
        batchId: params.batchId,
        method: STORED_METHOD[params.method],
        fileName: file.fileName,
        part: file.part,
        partCount: file.partCount,
        currency: file.currency,
        eurRate: file.currency === "EUR" ? eurRate : null,
        rateSource: file.currency === "EUR" ? (params.rateSource ?? null) : null,
        executionDate,
        sha256: hash,
        contentSealed: sealSecret(file.content, paymentFileContext(id), key),
        mediaType: file.mediaType,
        createdById: actor.id,
        createdByEmail: actor.email,
        totalUsd: file.totalUsd,
        totalAmount: file.totalAmount,
        items: file.references.map((reference, i) => {
          const amount = amounts.get(reference);
          return {
            statementId: ids[i] ?? "",
            reference,
            statementReference: statementReference.get(reference),
            amountUsd: amount?.usd ?? "0",
            amountCurrency: amount?.currency ?? "0",
            currency: file.currency,
            accountMasked: amount?.accountMasked ?? null,
          };
        }),
      });
    } catch (error) {
      if (error instanceof PaymentFileConflictError)
        throw new AppError(
          "CONFLICT",
          `The file cannot be made: ${error.message} (${countOf(error.statementIds.length, "statement")}).`,
        );
      throw error;
    }
    await setStatementsPaymentFile(trx, { fileId: id, statementIds: ids });
    return {
      id,
      fileName: file.fileName,
      currency: file.currency,
      rowCount: file.rowCount,
      totalUsd: file.totalUsd,
      totalAmount: file.totalAmount,
      sha256: hash,
    };
  }

  return {
    files: created,
    refused,
    inPayment: step.changed.length,
    totalUsd: formatUsd(sumMoney(step.changed.map((c) => c.payable_usd))),
  };
}

function describeRefusals(refused: readonly Refusal[]): string {
  return firstFive(refused.map((r) => `recipient ${r.recipientPlayerId}: ${r.reason}`));
}

/** What stopped a file, by recipient (the item's reference names one), so that finance knows whose profile to mend. */
function describeProblems(error: PaymentFileError, recipientOf: ReadonlyMap<string, number>): string {
  return firstFive(
    error.problems.map((p) => {
      const recipient = p.reference === null ? undefined : recipientOf.get(p.reference);
      return recipient === undefined ? p.message : `recipient ${recipient}: ${p.message}`;
    }),
  );
}

function firstFive(lines: readonly string[]): string {
  const shown = lines.slice(0, 5).join("; ");
  return lines.length > 5 ? `${shown}; and ${lines.length - 5} more` : shown;
}
