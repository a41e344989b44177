import { z } from "zod";
import { exportIdSchema } from "@/lib/exports/run";
import { writeBatchStatementFiles } from "@/lib/statements/files";
import type { CommandSpec } from "../cli";
import { type Command, withDb } from "../with-db";

const renderSchema = z.object({
  batch: exportIdSchema,
  out: z.string().trim().min(1, { message: "name a folder to write into" }),
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
};
