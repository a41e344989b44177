import "server-only";
import { getStatementPaidFrom, getStatementPaidTo } from "@/db/queries/payout-statements";
import { createHash } from "node:crypto";
import type { Db } from "@/db";
import { listPaymentReturns } from "@/db/queries/payment-flow";
import { listCarrySources } from "@/db/queries/payouts";
import {
  findStatementOwner,
  getStatementNumber,
  listStatementIssuers,
  listStatementLines,
  listStatementNumbers,
  listStatementReversals,
  numberBatchStatements,
  type StatementIssuer,
} from "@/db/queries/statements";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { getPayoutBatch, iteratePayoutStatements, type PayoutStatement } from "@/lib/payouts/ledger";
import { statementCsv } from "./csv";
import { buildStatementDocument, type StatementDocument, type StatementReturn } from "./model";
import { renderStatementPdf } from "./pdf-render";
import { readStatementSettings, type StatementSettings } from "./settings";

export type RenderedStatement = {
  doc: StatementDocument;
  pdf: Buffer;
  csv: string;
  pdfSha256: string;
  csvSha256: string;
};

function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Statements get documents once their figures are final: the batch is approved or paid. */
async function documentBatch(db: Db, gameId: string, batchId: string) {
  const batch = await getPayoutBatch(db, { gameId, batchId });
  if (!batch) throw new AppError("NOT_FOUND", "No such payout batch for this game.");
  if ((batch.status !== "approved" && batch.status !== "paid") || !batch.approvedAt)
    throw new AppError("CONFLICT", "Statements are issued once the batch is approved.");
  return { ...batch, approvedAt: batch.approvedAt };
}

/**
 * Numbers every statement of a batch that has none yet (the game's next numbers, by recipient id) and records it.
 * A number, once given, stays with its statement.
 */
export async function numberStatements(
  db: Db,
  params: { gameId: string; batchId: string },
  acting: ActingAs,
): Promise<number> {
  await documentBatch(db, params.gameId, params.batchId);
  return db.transaction().execute(async (trx) => {
    const numbered = await numberBatchStatements(trx, params);
    if (numbered > 0)
      await recordAudit(trx, {
        actor: acting.actor,
        via: acting.via,
        action: "statements.number",
        gameId: params.gameId,
        target: params.batchId,
        outcome: "succeeded",
        detail: { numbered },
      });
    return numbered;
  });
}

/**
 * The account a paid statement was paid to, masked (never the details themselves), as recorded with the payment: a
 * later change of the recipient's profile does not change what the statement says.
 */
async function paidToAccount(db: Db, gameId: string, s: PayoutStatement): Promise<string | null> {
  if (s.state !== "paid") return null;
  return getStatementPaidTo(db, { gameId, statementId: s.id });
}

/** The latest return of a returned statement's payment (what the statement says came back, when and why). */
async function latestReturn(db: Db, gameId: string, s: PayoutStatement): Promise<StatementReturn | null> {
  if (s.state !== "returned") return null;
  const returns = await listPaymentReturns(db, { gameId, statementIds: [s.id] });
  return returns.filter((r) => r.kind === "returned").at(-1) ?? null;
}

/** The settings a statement is drawn with: its issuer the one it was first emailed under, once it was. */
function issuedUnder(settings: StatementSettings, kept: StatementIssuer | undefined): StatementSettings {
  return kept ? { ...settings, studioName: kept.name, studioAddress: kept.address } : settings;
}

type Context = { gameId: string; issuedAt: string; settings: StatementSettings; maskedAccount?: string | null };

type Inputs = Pick<
  Parameters<typeof buildStatementDocument>[0],
  "lines" | "reversals" | "carriedIn" | "maskedAccount" | "returned" | "paidFrom"
>;

/** What a statement's document is written from besides the statement itself, read from the database. */
async function inputsOf(db: Db, s: PayoutStatement, ctx: Context): Promise<Inputs> {
  const [lines, reversals, carriedIn, returned, maskedAccount, paidFrom] = await Promise.all([
    listStatementLines(db, { gameId: ctx.gameId, snapshotId: s.snapshotId, recipientPlayerId: s.recipientPlayerId }),
    listStatementReversals(db, {
      gameId: ctx.gameId,
      snapshotId: s.snapshotId,
      recipientPlayerId: s.recipientPlayerId,
    }),
    listCarrySources(db, { gameId: ctx.gameId, statementId: s.id }),
    latestReturn(db, ctx.gameId, s),
    ctx.maskedAccount === undefined ? paidToAccount(db, ctx.gameId, s) : ctx.maskedAccount,
    s.state === "paid" ? getStatementPaidFrom(db, { gameId: ctx.gameId, statementId: s.id }) : null,
  ]);
  return { lines, reversals, carriedIn, returned, maskedAccount, paidFrom };
}

async function renderFrom(db: Db, s: PayoutStatement, number: number, ctx: Context, inputs: Inputs, as: ActingAs) {
  const doc = buildStatementDocument({ statement: s, number, ...ctx, ...inputs });
  const pdf = await renderStatementPdf(doc);
  const csv = statementCsv(doc);
  const rendered = { doc, pdf, csv, pdfSha256: sha256(pdf), csvSha256: sha256(csv) };
  await recordAudit(db, {
    actor: as.actor,
    via: as.via,
    action: "statement.render",
    gameId: ctx.gameId,
    target: s.id,
    outcome: "succeeded",
    detail: { number: doc.label, pdfSha256: rendered.pdfSha256, csvSha256: rendered.csvSha256 },
  });
  return rendered;
}

async function renderOne(db: Db, s: PayoutStatement, number: number, ctx: Context, acting: ActingAs) {
  return renderFrom(db, s, number, ctx, await inputsOf(db, s, ctx), acting);
}

/** One statement's documents (numbering its batch first when needed); the SHA-256 of each goes to the audit log. */
export async function renderStatement(
  db: Db,
  params: { gameId: string; statementId: string; maskedAccount?: string | null },
  acting: ActingAs,
): Promise<RenderedStatement> {
  const owner = await findStatementOwner(db, params);
  if (!owner) throw new AppError("NOT_FOUND", "No such statement for this game.");
  const batch = await documentBatch(db, params.gameId, owner.batchId);
  let number = await getStatementNumber(db, params);
  if (number === null) {
    await numberStatements(db, { gameId: params.gameId, batchId: owner.batchId }, acting);
    number = await getStatementNumber(db, params);
  }
  let statement: PayoutStatement | null = null;
  for await (const s of iteratePayoutStatements(db, {
    gameId: params.gameId,
    batchId: owner.batchId,
    recipientPlayerId: owner.recipientPlayerId,
  }))
    statement = s;
  if (!statement || number === null) throw new AppError("NOT_FOUND", "No such statement for this game.");
  const [settings, kept] = await Promise.all([
    readStatementSettings(db),
    listStatementIssuers(db, { gameId: params.gameId, batchId: owner.batchId, statementId: statement.id }),
  ]);
  const ctx = {
    gameId: params.gameId,
    issuedAt: batch.approvedAt,
    settings: issuedUnder(settings, kept.get(statement.id)),
    maskedAccount: params.maskedAccount,
  };
  return renderOne(db, statement, number, ctx, acting);
}

/** How many statements' inputs are read ahead of the one being rendered. */
const READ_AHEAD = 4;

/** Every statement of a batch, in recipient order, handed to `each` one at a time (never all held at once). */
export async function renderBatchStatements(
  db: Db,
  params: { gameId: string; batchId: string; recipientPlayerId?: number },
  acting: ActingAs,
  each: (rendered: RenderedStatement) => Promise<void>,
): Promise<{ rendered: number }> {
  const batch = await documentBatch(db, params.gameId, params.batchId);
  await numberStatements(db, params, acting);
  const numbers = await listStatementNumbers(db, params);
  const issuers = await listStatementIssuers(db, params);
  const settings = await readStatementSettings(db);
  const ctx = { gameId: params.gameId, issuedAt: batch.approvedAt, settings };
  // The next statements' inputs are read while one is rendered: the database works (in its own process) while
  // this one lays out the PDF. Documents are still rendered and handed over one at a time, in recipient order.
  const pending: { s: PayoutStatement; number: number; inputs: Promise<Inputs> }[] = [];
  let rendered = 0;
  const renderNext = async () => {
    const next = pending.shift();
    if (!next) return;
    const own = { ...ctx, settings: issuedUnder(settings, issuers.get(next.s.id)) };
    await each(await renderFrom(db, next.s, next.number, own, await next.inputs, acting));
    rendered += 1;
  };
  try {
    for await (const s of iteratePayoutStatements(db, { ...params, pageSize: 500 })) {
      const number = numbers.get(s.id);
      if (number === undefined) continue;
      const inputs = inputsOf(db, s, ctx);
      // Awaited in turn below; marked handled here so that a failure while an earlier one renders is not unhandled.
      inputs.catch(() => undefined);
      pending.push({ s, number, inputs });
      if (pending.length > READ_AHEAD) await renderNext();
    }
    while (pending.length > 0) await renderNext();
  } finally {
    // On a failure, let the reads already started finish before the caller moves on (or closes the pool).
    await Promise.allSettled(pending.map((p) => p.inputs));
  }
  return { rendered };
}
