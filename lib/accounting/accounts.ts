import "server-only";
import type { Db } from "@/db";
import { listAccountMap, upsertAccountMap } from "@/db/queries/accounting";
import { lockForTransaction } from "@/db/queries/locks";
import { findGame } from "@/db/queries/games";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { type AccountingAccountKey, accountCodeSchema, taxRateNameSchema } from "./schemas";

export { ACCOUNTING_ACCOUNTS, type AccountingAccountKey } from "./schemas";

/** Where an admin maps the accounts; named in every refusal for an unmapped account. */
export const ACCOUNT_MAPPING_PATH = "/settings/accounting";

/** Payout Desk's accounts, in words. */
export const ACCOUNT_LABELS: Record<AccountingAccountKey, { label: string; meaning: string }> = {
  expense: {
    label: "Revenue share expense",
    meaning: "The cost of revenue share earned by recipients: debited when earned, credited when reversed by refunds.",
  },
  payable: {
    label: "Revenue share payable",
    meaning: "What Payout Desk owes recipients: credited when earned, debited when reversed or paid.",
  },
  clearing: {
    label: "Revenue share payouts clearing",
    meaning:
      "Money sent to recipients, awaiting the bank statement: credited when a payment is recorded, debited back when " +
      "one recorded by mistake is undone.",
  },
  returns: {
    label: "Returned payouts",
    meaning:
      "Payments that came back (bank returns): debited when a returned payment is recorded, payable credited again.",
  },
};

export type MappedAccount = { code: string; taxRate: string | null };
export type AccountMap = Partial<Record<AccountingAccountKey, MappedAccount>>;

export async function readAccountMap(db: Db, params: { gameId: string }): Promise<AccountMap> {
  const map: AccountMap = {};
  for (const row of await listAccountMap(db, params)) map[row.account] = { code: row.code, taxRate: row.taxRate };
  return map;
}

/**
 * Maps one account of a game to the ledger's code (and tax rate name), audited with who and through what. `taxRate`
 * undefined keeps the tax rate mapped before (the command line's flag left out); null clears it.
 */
export async function mapAccount(
  db: Db,
  params: {
    gameId: string;
    account: AccountingAccountKey;
    code: string;
    taxRate: string | null | undefined;
    /** The mapping the page showed (null for none): refused when another change came in since. */
    drawn?: { code: string | null; taxRate: string | null };
  },
  acting: ActingAs,
): Promise<{ account: AccountingAccountKey; code: string; taxRate: string | null; changed: boolean }> {
  if (!(await findGame(db, params.gameId)))
    throw new AppError("NOT_FOUND", `No game ${params.gameId}.`, { field: "game" });
  return db.transaction().execute(async (trx) => {
    // One change of an account's mapping at a time (a new one has no row to lock): each audit line's "before" is what
    // that change replaced, and a tax rate kept is the one in place.
    await lockForTransaction(trx, `accounting-map|${params.gameId}|${params.account}`);
    const now = (await listAccountMap(trx, params)).find((row) => row.account === params.account);
    const drawn = params.drawn;
    if (drawn && (drawn.code !== (now?.code ?? null) || drawn.taxRate !== (now?.taxRate ?? null)))
      throw new AppError(
        "CONFLICT",
        `${ACCOUNT_LABELS[params.account].label} was mapped again since this page was opened (now ` +
          `${now ? `${now.code}${now.taxRate ? `, ${now.taxRate}` : ""}` : "not mapped"}): reload the page, then ` +
          "save again. Nothing was saved.",
        { field: "code" },
      );
    const kept = params.taxRate === undefined ? (now?.taxRate ?? null) : params.taxRate;
    const before = await upsertAccountMap(trx, { ...params, taxRate: kept, byEmail: acting.actor?.email ?? null });
    const changed = !before || before.code !== params.code || before.taxRate !== kept;
    await recordAudit(trx, {
      actor: acting.actor,
      via: acting.via,
      action: "accounting.map_account",
      gameId: params.gameId,
      target: params.account,
      outcome: changed ? "succeeded" : "unchanged",
      detail: { account: params.account, code: params.code, tax_rate: kept, before },
    });
    return { account: params.account, code: params.code, taxRate: kept, changed };
  });
}

/**
 * The mapping of every account a file posts to, or a refusal naming the accounts still to map (and, with
 * `taxRate`, those mapped without the tax rate name the format needs) and where to map them.
 */
export function requireMapped(
  map: AccountMap,
  accounts: readonly AccountingAccountKey[],
  options: { taxRate?: boolean; gameId: string },
): Record<AccountingAccountKey, MappedAccount> {
  const missing = accounts.filter((a) => !map[a]);
  const noTax = options.taxRate ? accounts.filter((a) => map[a] && !map[a]?.taxRate) : [];
  // Mapped before today's rules (a name a spreadsheet runs as a formula): the file would carry it altered. Each is
  // named with what its rule says of it.
  const unfit = accounts.flatMap((a) => {
    const mapped = map[a];
    if (!mapped) return [];
    const code = accountCodeSchema.safeParse(mapped.code);
    if (!code.success) return [`${a} (code ${code.error.issues[0]?.message})`];
    if (options.taxRate !== true || mapped.taxRate === null) return [];
    const tax = taxRateNameSchema.safeParse(mapped.taxRate);
    return tax.success ? [] : [`${a} (tax rate name ${tax.error.issues[0]?.message})`];
  });
  if (missing.length > 0 || noTax.length > 0 || unfit.length > 0) {
    const parts: string[] = [];
    if (missing.length > 0)
      parts.push(`map ${missing.map((a) => `${a} (${ACCOUNT_LABELS[a].label})`).join(", ")} to your ledger's codes`);
    if (noTax.length > 0) parts.push(`give a tax rate name for ${noTax.join(", ")}`);
    if (unfit.length > 0) parts.push(`map again ${unfit.join(", ")}`);
    throw new AppError(
      "CONFLICT",
      `Accounts not mapped for game ${options.gameId}: ${parts.join("; ")}. ` +
        `An admin maps them under Settings → Accounting (${ACCOUNT_MAPPING_PATH}).`,
      { field: "accounts" },
    );
  }
  return map as Record<AccountingAccountKey, MappedAccount>;
}
