import path from "node:path";
import { z } from "zod";
import type { ActingAs } from "@/core/actor";
import type { Db } from "@/db";
import { stopBoss } from "@/lib/jobs/queue";
import { isAppError } from "@/lib/errors";
import { countOf } from "@/lib/format";
import { log } from "@/lib/log";
import { whenStopped } from "@/lib/stop-signal";
import { emailSchema } from "@/lib/auth/users";
import {
  createPaymentFileSchema,
  type FILE_METHODS,
  importResultsSchema,
  type RESULT_FORMATS,
} from "@/lib/payments/schemas";
import { financeActor } from "../actor";
import { checkOutPath, CliError, CliResult, firstSentence, isDirectory, readFlagFile } from "../cli";
import { gameOfBatch } from "../lookup";
import { type Command, withDb } from "../with-db";

/** `payouts pay-file` and `payouts import-results`: payment files and provider results from the command line. */

async function financeUser(db: Db, email: string): Promise<ActingAs> {
  const user = await financeActor(db, email);
  return { actor: { id: user.id, email: user.email }, via: "cli" };
}

const pathSchema = z.string().trim().min(1, { message: "is required" });

type PayFileFlags = {
  batch: string;
  method: (typeof FILE_METHODS)[number];
  out: string;
  "eur-rate"?: string;
  "rate-source"?: string;
  "execution-date"?: string;
  actor: string;
};

type ImportFlags = {
  batch: string;
  format: (typeof RESULT_FORMATS)[number];
  file: string;
  "paid-on"?: string;
  "dry-run": boolean;
  actor: string;
};

/**
 * An optional flag given with nothing (`--execution-date=`, an unset shell variable): refused rather than read as
 * not given, which would quietly mean today's date or no rate.
 */
const givenValue = z.string().trim().min(1, { message: "is empty: give a value or leave the flag out" });

export const paymentCommands: Record<string, Command> = {
  "payouts pay-file": {
    spec: {
      usage:
        "npm run desk -- payouts pay-file --batch ID --method paypal|wise|sepa|generic --out F " +
        "[--eur-rate R --rate-source S (required for sepa)] [--execution-date D] --actor EMAIL",
      description:
        "Writes the payment file(s) of an approved batch for one method and moves the statements they pay to " +
        "in_payment (nothing is paid until results are imported). One file is written to --out; several " +
        "(currencies, parts) into --out when it is a folder, else into the folder --out is in, each under its own " +
        "name. Recipients the method cannot pay are listed with the " +
        "reason. The file holds bank details: keep it safe.",
      options: {
        batch: { type: "string", description: "The payout batch id" },
        method: { type: "string", description: "paypal, wise, sepa or generic" },
        out: { type: "string", description: "The file (or directory, for several files) to write" },
        "eur-rate": { type: "string", description: "USD→EUR rate for EUR payouts, e.g. 0.92345" },
        "rate-source": { type: "string", description: "Where the rate comes from (with --eur-rate)" },
        "execution-date": { type: "string", description: "Requested execution date, YYYY-MM-DD" },
        actor: { type: "string", description: "Email of the finance user making the file (and gives their password)" },
      },
      schema: z.object({
        batch: z.string(),
        method: z.string(),
        out: pathSchema,
        "eur-rate": givenValue.optional(),
        "rate-source": givenValue.optional(),
        "execution-date": givenValue.optional(),
        actor: emailSchema,
      }),
    },
    run: async (flags: PayFileFlags) => {
      const parsed = createPaymentFileSchema.safeParse({
        batchId: flags.batch,
        method: flags.method,
        eurRate: flags["eur-rate"],
        rateSource: flags["rate-source"],
        executionDate: flags["execution-date"],
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = String(issue?.path[0] ?? "");
        const flag = { batchId: "batch", eurRate: "eur-rate", rateSource: "rate-source" }[field];
        const named = flag ?? field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
        throw new CliError(`--${named}: ${issue?.message}`, 2);
      }
      // Where the files go is checked before any statement moves to in_payment.
      await checkOutPath(flags.out, { folder: true });
      return withDb(
        async (db) => {
          const gameId = await gameOfBatch(db, parsed.data.batchId);
          const as = await financeUser(db, flags.actor);
          const { createPaymentFiles } = await import("@/lib/payments/files");
          const { downloadPaymentFile } = await import("@/lib/payments/file-access");
          const { writePrivateFile } = await import("@/lib/exports/file");
          const made = await createPaymentFiles(db, { ...parsed.data, gameId }, as);
          const what = made.files.length === 1 ? "payment file was made and its" : "payment files were made and their";
          const fetchThem = "Do not make them again: download them from the window page (Payment files).";
          // Stopped from here on (Ctrl-C), the statements stay in payment: say so before the process ends.
          const stopListening = whenStopped(() =>
            process.stderr.write(`payouts pay-file: stopped. The ${what} statements are in payment. ${fetchThem}\n`),
          );
          // Several files (currencies, parts) go into --out when it is a folder, else into the folder --out names a
          // file in (checked writable before anything changed), each under its own name: never a folder made here
          // under a file's name, nor a failure after the statements moved.
          const intoFolder = await isDirectory(flags.out);
          const folder = intoFolder ? flags.out : made.files.length > 1 ? path.dirname(path.resolve(flags.out)) : null;
          if (folder !== null && !intoFolder)
            process.stderr.write(
              `payouts pay-file: ${made.files.length} files, written into ${folder} under their own names\n`,
            );
          const files = [];
          try {
            for (const file of made.files) {
              const download = await downloadPaymentFile(db, { gameId, fileId: file.id }, as);
              const target = folder !== null ? path.join(folder, download.fileName) : flags.out;
              await writePrivateFile(target, download.content);
              process.stderr.write(`payouts pay-file: wrote ${target} (${file.rowCount} payments)\n`);
              files.push({ ...file, path: target });
            }
          } catch (error) {
            const fsError = error as NodeJS.ErrnoException;
            const reason = fsError.syscall ? (fsError.code ?? fsError.syscall) : firstSentence(fsError.message ?? "");
            throw new CliError(
              `--out: the ${what} statements are in payment, but writing to ${flags.out} failed (${reason}). ` +
                fetchThem,
            );
          } finally {
            stopListening();
          }
          return { batchId: parsed.data.batchId, method: parsed.data.method, ...made, files };
        },
        { keys: true },
      );
    },
  },
  "payouts import-results": {
    spec: {
      usage:
        "npm run desk -- payouts import-results --batch ID --format paypal|wise|pain002|generic --file F " +
        "[--paid-on YYYY-MM-DD] [--dry-run] --actor EMAIL",
      description:
        "Imports a provider's results for a batch's payment files: matched by reference with the amount " +
        "checked. Paid statements close as paid; rejected ones are owed again (approved) with the reason; " +
        "payments returned after they were paid become returned, owed again. Unknown references, mismatches and " +
        "payments reported from a cancelled file are listed and never applied; --dry-run changes nothing. " +
        "Importing the same file twice changes nothing.",
      options: {
        batch: { type: "string", description: "The payout batch id" },
        format: { type: "string", description: "paypal, wise, pain002 or generic" },
        file: { type: "string", description: "The results file to read" },
        "paid-on": {
          type: "string",
          description:
            "The day the provider sent the money (UTC); default: each file's execution date once come, else today",
        },
        "dry-run": { type: "boolean", description: "Show what would happen; change nothing" },
        actor: { type: "string", description: "Email of the finance user importing (and gives their password)" },
      },
      schema: z.object({
        batch: z.string(),
        format: z.string(),
        file: pathSchema,
        "paid-on": givenValue.optional(),
        "dry-run": z.boolean().default(false),
        actor: emailSchema,
      }),
    },
    run: async (flags: ImportFlags) => {
      const text = await readFlagFile("file", flags.file);
      const parsed = importResultsSchema.safeParse({
        batchId: flags.batch,
        format: flags.format,
        text,
        paidOn: flags["paid-on"],
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const flag =
          { batchId: "batch", format: "format", text: "file", paidOn: "paid-on" }[String(issue?.path[0])] ?? "file";
        throw new CliError(`--${flag}: ${issue?.message}`, 2);
      }
      return withDb(async (db) => {
        const gameId = await gameOfBatch(db, parsed.data.batchId);
        const as = await financeUser(db, flags.actor);
        // The file formats' writers and parsers load only for the commands that use them.
        const { importResults, listedCount, recipientsChangedBy } = await import("@/lib/payments/results");
        const say = (what: string) => process.stderr.write(`desk payouts import-results: ${what}\n`);
        say(`${flags["dry-run"] ? "previewing" : "reading and applying"} ${parsed.data.format} results`);
        const out = await importResults(db, { ...parsed.data, gameId, dryRun: flags["dry-run"] }, as);
        const { paid, rejected, returned, pending } = out.applied;
        const lines = countOf(out.plan.lines.length, "line");
        say(
          out.dryRun
            ? `${lines} read; a preview: nothing applied`
            : `${lines} read; applied: ${paid} paid, ${rejected} rejected, ${returned} returned, ${pending} pending`,
        );
        // Each statement just paid or returned is emailed to its recipient (the workers send it); so is one an
        // earlier import paid or returned but stopped before queuing its email (what reads as already applied now).
        let statementEmails = 0;
        let noEmailAddress: number[] = [];
        let emailsNotQueued: string | null = null;
        if (!out.dryRun) {
          try {
            say("queuing the statement emails of the statements paid or returned");
            const { queueChangedStatementEmails } = await import("@/lib/statements/send");
            const sent = await queueChangedStatementEmails(db, { gameId, batchId: parsed.data.batchId }, as);
            statementEmails = sent.paid.queued + sent.returned.queued;
            // Only the recipients this import paid or returned.
            const changed = recipientsChangedBy(out.plan);
            noEmailAddress = [
              ...new Set([...sent.paid.skippedNoEmail, ...sent.returned.skippedNoEmail].filter((r) => changed.has(r))),
            ];
          } catch (error) {
            // The results stand; the emails can be sent from the batch page or `desk statements send`.
            log.error("statement emails not queued", { batchId: parsed.data.batchId, error });
            emailsNotQueued = isAppError(error)
              ? `The statement emails were not queued. ${error.message}`
              : "The statement emails could not be queued; they are offered again: " +
                `desk statements send --batch ${parsed.data.batchId} --actor EMAIL`;
          } finally {
            await stopBoss();
          }
        }
        const summary = {
          batchId: parsed.data.batchId,
          format: parsed.data.format,
          dryRun: out.dryRun,
          sha256: out.sha256,
          counts: out.counts,
          applied: out.applied,
          statementEmails,
          /** Why no statement email was queued for the statements this import changed, when it failed; else null. */
          emailsNotQueued,
          /** Recipients paid or returned whose statement could not be emailed: no address on record. */
          noEmailAddress,
          unreadable: out.plan.unreadable,
          lines: out.plan.lines.map(({ result: _result, ...line }) => line),
        };
        // Lines a person must look at (listed, never applied: a payment from a cancelled file above all), lines not
        // read, or emails not queued: said on stderr and exit 1, so that a script does not take it for a clean import.
        const listed = listedCount(out.counts);
        const unreadable = out.plan.unreadable.length;
        if (listed === 0 && unreadable === 0 && emailsNotQueued === null) return summary;
        const needs = [
          listed > 0 ? `${countOf(listed, "line")} not applied (listed in "lines" with what to do)` : null,
          unreadable > 0 ? `${countOf(unreadable, "line")} not read ("unreadable")` : null,
          emailsNotQueued,
        ].filter((part) => part !== null);
        say(`needs a person: ${needs.join("; ")}`);
        return new CliResult(summary, 1);
      });
    },
  },
};
