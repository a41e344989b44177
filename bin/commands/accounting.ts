import { rm } from "node:fs/promises";
import { z } from "zod";
import { mapAccount } from "@/lib/accounting/accounts";
import { startPayeeTotalsExport } from "@/lib/accounting/payee-totals";
import {
  accountCodeSchema,
  accountingAccountSchema,
  calendarYearSchema,
  taxRateNameSchema,
} from "@/lib/accounting/schemas";
import { AppError, isAppError } from "@/lib/errors";
import { writeChunksToFile, writeExportFile } from "@/lib/exports/file";
import { exportIdSchema } from "@/lib/exports/run";
import { EXPORT_KINDS, type ExportKind } from "@/lib/exports/types";
import { countOf } from "@/lib/format";
import { gameIdSchema } from "@/lib/games/schemas";
import type { CommandSpec } from "../cli";
import { type Command, withDb } from "../with-db";

const CLI = { actor: null, via: "cli" } as const;

const mapSchema = z.object({
  game: gameIdSchema,
  account: accountingAccountSchema,
  code: accountCodeSchema,
  "tax-rate": taxRateNameSchema.optional(),
});

export const ACCOUNTING_COMMANDS: Record<string, Command> = {
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
        "tax-rate": { type: "string", description: "The tax rate name as in the ledger (Xero needs one)" },
      },
      schema: mapSchema,
    } satisfies CommandSpec<typeof mapSchema>,
    run: (flags: z.output<typeof mapSchema>) =>
      withDb((db) =>
        mapAccount(
          db,
          { gameId: flags.game, account: flags.account, code: flags.code, taxRate: flags["tax-rate"] ?? null },
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
      if (f.snapshot || f.batch)
        ctx.addIssue({ code: "custom", message: "payee-totals takes --game and --year only", path: ["snapshot"] });
    } else if (Boolean(f.snapshot) === Boolean(f.batch)) {
      ctx.addIssue({ code: "custom", message: "give either --snapshot or --batch", path: ["snapshot"] });
    }
  });

export type ExportFlags = z.output<typeof exportFlagsSchema>;

/** "journal.csv" → "journal.part-2.csv": the further parts of a file split into parts, beside the first. */
export function partPath(out: string, part: number): string {
  if (part === 1) return out;
  const dot = out.lastIndexOf(".");
  const slash = out.lastIndexOf("/");
  return dot > slash + 1 ? `${out.slice(0, dot)}.part-${part}${out.slice(dot)}` : `${out}.part-${part}`;
}

/** Payee totals of a game and year, written to a file like any export. */
export function writePayeeTotalsFile(flags: ExportFlags) {
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
 * An export of a window written to a file; a file split into parts (Xero's 300 lines a file) is written as the
 * first part under the name given and the others beside it ("journal.part-2.csv"), each audited as its own download.
 */
export function writeWindowExportFiles(flags: ExportFlags) {
  return withDb(async (db) => {
    const files: { file: string; part: number; rows: number; bytes: number; sha256: string; exportId: string }[] = [];
    let parts = 1;
    let split: string | undefined;
    try {
      for (let part = 1; part <= parts; part++) {
        const summary = await writeExportFile(
          db,
          {
            kind: flags.kind as ExportKind,
            snapshotId: flags.snapshot,
            batchId: flags.batch,
            bom: flags.bom,
            part,
            split,
            ...CLI,
          },
          partPath(flags.out, part),
          {
            onProgress: (rows) =>
              process.stderr.write(`export ${flags.kind}: ${rows.toLocaleString("en-US")} rows written\n`),
          },
        );
        parts = summary.parts;
        split = summary.split ?? undefined;
        if (parts > 1) process.stderr.write(`export ${flags.kind}: part ${part} of ${parts} written\n`);
        files.push({
          file: summary.path,
          part,
          rows: summary.rows,
          bytes: summary.bytes,
          sha256: summary.sha256,
          exportId: summary.exportId,
        });
      }
    } catch (error) {
      // Parts of a file are imported together: a set cut short (the journals changed between two parts, a failure)
      // is removed rather than left to be imported as if it were whole.
      await Promise.all(files.map((f) => rm(f.file, { force: true })));
      if (isAppError(error) && error.field === "split")
        throw new AppError(
          "CONFLICT",
          `The batch's postings changed while its parts were written (a payment or a return was recorded), so ` +
            `they no longer split as the first part did. The ${countOf(files.length, "part")} written ` +
            "were removed; run the export again.",
          { field: "split" },
        );
      if (files.length > 0)
        process.stderr.write(
          `export ${flags.kind}: ${countOf(files.length, "part")} written before this were removed\n`,
        );
      throw error;
    }
    const first = files[0] as (typeof files)[number];
    return {
      file: first.file,
      kind: flags.kind,
      rows: files.reduce((n, f) => n + f.rows, 0),
      bytes: files.reduce((n, f) => n + f.bytes, 0),
      sha256: first.sha256,
      exportId: first.exportId,
      ...(files.length > 1 ? { parts: files } : {}),
    };
  });
}

export function runExportCommand(flags: ExportFlags) {
  return flags.kind === "payee-totals" ? writePayeeTotalsFile(flags) : writeWindowExportFiles(flags);
}
