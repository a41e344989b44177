import { z } from "zod";
import { mapAccount } from "@/lib/accounting/accounts";
import { quickbooksDateOrderSchema, setQuickbooksDateOrder } from "@/lib/accounting/date-order";
import { startPayeeTotalsExport } from "@/lib/accounting/payee-totals";
import {
  accountCodeSchema,
  accountingAccountSchema,
  calendarYearSchema,
  taxRateNameSchema,
} from "@/lib/accounting/schemas";
import { writeChunksToFile, writeExportParts } from "@/lib/exports/file";
import { bomRefusal } from "@/lib/exports/kinds";
import { exportIdSchema } from "@/lib/exports/run";
import { EXPORT_KINDS, type ExportKind } from "@/lib/exports/types";
import { gameIdSchema } from "@/lib/games/schemas";
import { CliResult, checkOutPath, type CommandSpec } from "../cli";
import { type Command, withDb } from "../with-db";

const CLI = { actor: null, via: "cli" } as const;

const mapSchema = z.object({
  game: gameIdSchema,
  account: accountingAccountSchema,
  code: accountCodeSchema,
  "tax-rate": taxRateNameSchema.optional(),
});

const datesSchema = z.object({ game: gameIdSchema, order: quickbooksDateOrderSchema });

export const ACCOUNTING_COMMANDS: Record<string, Command> = {
  "accounts quickbooks-dates": {
    spec: {
      usage: "npm run desk -- accounts quickbooks-dates --game ID --order mdy|dmy",
      description:
        "Sets the order the game's QuickBooks Online journal file writes dates in, as the company reads them: mdy " +
        "(MM/DD/YYYY, US companies; the default) or dmy (DD/MM/YYYY). Audited. A JSON summary to stdout.",
      options: {
        game: { type: "string", description: "The game id" },
        order: { type: "string", description: "mdy | dmy" },
      },
      schema: datesSchema,
    } satisfies CommandSpec<typeof datesSchema>,
    run: (flags: z.output<typeof datesSchema>) =>
      withDb(async (db) => ({
        game: flags.game,
        ...(await setQuickbooksDateOrder(db, { gameId: flags.game, order: flags.order }, CLI)),
      })),
  },
  "accounts map": {
    spec: {
      usage:
        "npm run desk -- accounts map --game ID --account expense|payable|clearing|returns --code CODE " +
        "[--tax-rate NAME]",
      description:
        "Maps one of Payout Desk's accounts, for a game, to your ledger's account code (Xero) or account name " +
        '(QuickBooks Online) and tax rate name (README, "Accounting"). Audited. A JSON summary to stdout.',
      options: {
        game: { type: "string", description: "The game id" },
        account: { type: "string", description: "expense | payable | clearing | returns" },
        code: { type: "string", description: "The ledger's account code (Xero) or full account name (QuickBooks)" },
        "tax-rate": {
          type: "string",
          description:
            'The tax rate name as in the ledger (Xero needs one); left out, the one mapped stays; "" clears it',
        },
      },
      schema: mapSchema,
    } satisfies CommandSpec<typeof mapSchema>,
    run: (flags: z.output<typeof mapSchema>) =>
      withDb((db) =>
        mapAccount(
          db,
          { gameId: flags.game, account: flags.account, code: flags.code, taxRate: flags["tax-rate"] },
          CLI,
        ).then((mapped) => ({ game: flags.game, ...mapped })),
      ),
  },
};

/** `desk export --kind`: the exports of a window, and payee totals (per game and year). */
export const EXPORT_CLI_KINDS = [...EXPORT_KINDS, "payee-totals"] as const;
export const exportCliKindSchema = z.enum(EXPORT_CLI_KINDS, {
  message: `must be one of ${EXPORT_CLI_KINDS.join(", ")}`,
});

export const exportFlagsSchema = z
  .object({
    snapshot: exportIdSchema.optional(),
    batch: exportIdSchema.optional(),
    game: gameIdSchema.optional(),
    year: calendarYearSchema.optional(),
    kind: exportCliKindSchema,
    out: z.string({ message: "is required" }).trim().min(1, { message: "is required" }),
    bom: z.boolean().default(false),
  })
  .superRefine((f, ctx) => {
    if (f.kind === "payee-totals") {
      if (!f.game) ctx.addIssue({ code: "custom", message: "is required for payee-totals", path: ["game"] });
      if (!f.year) ctx.addIssue({ code: "custom", message: "is required for payee-totals", path: ["year"] });
      if (f.snapshot || f.batch) {
        const path = [f.snapshot ? "snapshot" : "batch"];
        ctx.addIssue({ code: "custom", message: "payee-totals takes --game and --year only", path });
      }
    } else {
      if (Boolean(f.snapshot) === Boolean(f.batch))
        ctx.addIssue({ code: "custom", message: "give either --snapshot or --batch", path: ["snapshot"] });
      const bomRefused = f.bom ? bomRefusal(f.kind) : null;
      if (bomRefused) ctx.addIssue({ code: "custom", message: bomRefused, path: ["bom"] });
      // The window's exports take their game from the snapshot or batch: a flag that would be ignored is refused.
      for (const name of ["game", "year"] as const)
        if (f[name] !== undefined)
          ctx.addIssue({ code: "custom", message: `is for payee-totals only; ${f.kind} ignores it`, path: [name] });
    }
  });

export type ExportFlags = z.output<typeof exportFlagsSchema>;

/** Payee totals of a game and year, written to a file like any export. */
export async function writePayeeTotalsFile(flags: ExportFlags) {
  // Where it goes is checked before the database is opened and any export is started and audited.
  await checkOutPath(flags.out);
  return withDb(async (db) => {
    const written = await writeChunksToFile(flags.out, () =>
      startPayeeTotalsExport(db, { gameId: flags.game as string, year: flags.year as number, bom: flags.bom }, CLI),
    );
    const file = written.started.file();
    if (!file) throw new Error("export ended without a summary");
    return { file: written.path, kind: "payee-totals", year: flags.year, ...file, exportId: written.started.exportId };
  });
}

/**
 * An export of a window written to a file; a file split into parts (Xero's 300 lines, QuickBooks' 1,000 rows a file)
 * is written as the first part under the name given and the others beside it ("journal.part-2.csv"), each audited as
 * its own download.
 */
export async function writeWindowExportFiles(flags: ExportFlags) {
  // Where it goes is checked before the database is opened and any export is started and audited.
  await checkOutPath(flags.out);
  return withDb(async (db) => {
    const request = {
      kind: flags.kind as ExportKind,
      snapshotId: flags.snapshot,
      batchId: flags.batch,
      bom: flags.bom,
      ...CLI,
    };
    const removedParts: string[] = [];
    const leftParts: string[] = [];
    const files = await writeExportParts(db, request, flags.out, {
      onProgress: (rows) =>
        process.stderr.write(`export ${flags.kind}: ${rows.toLocaleString("en-US")} rows written\n`),
      onPartWritten: (file) => {
        if (file.parts > 1) process.stderr.write(`export ${flags.kind}: part ${file.part} of ${file.parts} written\n`);
      },
      onStalePartRemoved: (file, failed) => {
        if (failed) {
          leftParts.push(file);
          process.stderr.write(
            `export ${flags.kind}: could not remove ${file}, a part of an earlier export under this name ` +
              `(${failed.message}): remove it before importing\n`,
          );
          return;
        }
        removedParts.push(file);
        process.stderr.write(`export ${flags.kind}: removed ${file}, a part of an earlier export under this name\n`);
      },
    });
    const first = files[0] as (typeof files)[number];
    const summaryOf = (f: (typeof files)[number]) => ({
      file: f.path,
      part: f.part,
      rows: f.rows,
      bytes: f.bytes,
      sha256: f.sha256,
      exportId: f.exportId,
    });
    const summary = {
      file: first.path,
      kind: flags.kind,
      rows: files.reduce((n, f) => n + f.rows, 0),
      bytes: files.reduce((n, f) => n + f.bytes, 0),
      sha256: first.sha256,
      exportId: first.exportId,
      ...(files.length > 1 ? { parts: files.map(summaryOf) } : {}),
      ...(removedParts.length > 0 ? { removedParts } : {}),
      ...(leftParts.length > 0 ? { earlierPartsLeft: leftParts } : {}),
    };
    // The files are written, but a part left from an earlier export would post that export's journals again if
    // imported with them: the run fails, so a script does not go on to import.
    return leftParts.length > 0 ? new CliResult(summary, 1) : summary;
  });
}

export function runExportCommand(flags: ExportFlags) {
  return flags.kind === "payee-totals" ? writePayeeTotalsFile(flags) : writeWindowExportFiles(flags);
}
