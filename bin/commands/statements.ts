import { z } from "zod";
import { exportIdSchema } from "@/lib/exports/run";
import { stopBoss } from "@/lib/jobs/queue";
import { writeBatchStatementFiles } from "@/lib/statements/files";
import { queueStatementSends } from "@/lib/statements/send";
import type { CommandSpec } from "../cli";
import { type Command, withDb } from "../with-db";

const renderSchema = z.object({
  batch: exportIdSchema,
  out: z.string().trim().min(1, { message: "name a folder to write into" }),
});

const sendSchema = z.object({
  batch: exportIdSchema,
  recipient: z
    .string()
    .regex(/^\d{1,15}$/, { message: "must be a player id (digits)", abort: true })
    .transform(Number)
    .optional(),
});

/** `desk statements …`: statement documents and their delivery (README, "Statements"). */
export const statementCommands: Record<string, Command> = {
  "statements render": {
    spec: {
      usage: "npm run desk -- statements render --batch ID --out DIR",
      description:
        "Writes one PDF and one CSV per recipient statement of an approved or paid batch into a folder, each named by its statement number (numbering the batch first when needed). Each document's SHA-256 goes to the audit log; a JSON summary to stdout.",
      options: {
        batch: { type: "string", description: "The payout batch id" },
        out: { type: "string", description: "The folder to write into (created when missing)" },
      },
      schema: renderSchema,
    } satisfies CommandSpec<typeof renderSchema>,
    run: (flags: z.output<typeof renderSchema>) =>
      withDb((db) =>
        writeBatchStatementFiles(
          db,
          { batchId: flags.batch, out: flags.out, onFile: (label) => process.stderr.write(`statement ${label}\n`) },
          { actor: null, via: "cli" },
        ),
      ),
  },
  "statements send": {
    spec: {
      usage: "npm run desk -- statements send --batch ID [--recipient PLAYER_ID]",
      description:
        "Queues an email of each recipient's statement of an approved or paid batch (or of one recipient), the PDF attached, through SMTP_URL. The app's job workers (or desk worker) send them, with retries; each statement's delivery log shows the outcome. A JSON summary goes to stdout.",
      options: {
        batch: { type: "string", description: "The payout batch id" },
        recipient: { type: "string", description: "Only this recipient's statement (player id)" },
      },
      schema: sendSchema,
    } satisfies CommandSpec<typeof sendSchema>,
    run: (flags: z.output<typeof sendSchema>) =>
      withDb(async (db) => {
        try {
          return await queueStatementSends(
            db,
            { batchId: flags.batch, recipientPlayerId: flags.recipient },
            { actor: null, via: "cli" },
          );
        } finally {
          await stopBoss();
        }
      }),
  },
};
