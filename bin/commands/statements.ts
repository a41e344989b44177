import { z } from "zod";
import type { ActingAs } from "@/core/actor";
import type { Db } from "@/db";
import type { Role } from "@/lib/auth/roles";
import { emailSchema } from "@/lib/auth/users";
import { exportIdSchema } from "@/lib/exports/run";
import { stopBoss } from "@/lib/jobs/queue";
import {
  DEFAULT_STATEMENT_SETTINGS,
  readSavedStatementSettings,
  readStatementSettings,
  saveStatementSettings,
  statementSettingsDrawn,
  statementSettingsSchema,
} from "@/lib/statements/settings";
import { commandActor } from "../actor";
import { countSeenSchema } from "@/lib/statements/schemas";
import { checkOutFolder, CliError, type CommandSpec } from "../cli";
import { gameOfBatch } from "../lookup";
import { type Command, withDb } from "../with-db";

/** The PDF renderer and the mailer load only for the commands that use them: every other command starts faster. */
const loadFiles = () => import("@/lib/statements/files");

/** Who acts (--actor): finance renders and sends statements as on the batch page, an admin changes the settings. */
async function acting(db: Db, email: string, role: Role, does: string): Promise<ActingAs> {
  const user = await commandActor(db, email, { role, does });
  return { actor: { id: user.id, email: user.email }, via: "cli" };
}

const ACTOR_OPTION = { type: "string", description: "Email of the user who acts (and gives their password)" } as const;

const renderSchema = z.object({
  batch: exportIdSchema,
  out: z.string().trim().min(1, { message: "name a folder to write into" }),
  actor: emailSchema,
});

const sendSchema = z
  .object({
    batch: exportIdSchema,
    recipient: z
      .string()
      .regex(/^\d{1,15}$/, { message: "must be a player id (digits)", abort: true })
      .transform(Number)
      .optional(),
    again: z.boolean().default(false),
    "runs-seen": countSeenSchema.optional(),
    "sends-seen": countSeenSchema.optional(),
    actor: emailSchema,
  })
  .superRefine((flags, ctx) => {
    // One recipient's statement again, only against the count of its emails it was decided on (a script run twice
    // emails no one twice); never emailed, it needs none.
    if (flags.recipient !== undefined) {
      if (flags["runs-seen"] !== undefined)
        ctx.addIssue({ code: "custom", path: ["runs-seen"], message: "is for the whole batch: not with --recipient" });
      countSeenWithAgain(
        flags,
        ctx,
        "sends-seen",
        "is needed with --recipient and --again: the times this statement was emailed as you last saw it (its " +
          "delivery log); it is refused if it was emailed since",
      );
      return;
    }
    if (flags["sends-seen"] !== undefined)
      ctx.addIssue({ code: "custom", path: ["sends-seen"], message: "is for one statement: give --recipient" });
    // Every statement again is the one send that emails recipients twice: only against the count it was decided on.
    countSeenWithAgain(
      flags,
      ctx,
      "runs-seen",
      "is needed with --again: the times this batch's emails were queued as you last saw it (emailRuns in " +
        "`payouts show --batch ID`); it is refused if more were queued since",
    );
  });

/** A count seen (`name`) is needed with --again (`needed` says what it is) and refused without it. */
function countSeenWithAgain(
  flags: { again: boolean; "runs-seen"?: number; "sends-seen"?: number },
  ctx: z.RefinementCtx,
  name: "runs-seen" | "sends-seen",
  needed: string,
): void {
  if (flags.again && flags[name] === undefined) ctx.addIssue({ code: "custom", path: [name], message: needed });
  if (!flags.again && flags[name] !== undefined)
    ctx.addIssue({ code: "custom", path: [name], message: "is given only with --again" });
}

const settingsSchema = z.object({
  "studio-name": statementSettingsSchema.shape.studioName.optional(),
  "studio-address": statementSettingsSchema.shape.studioAddress.optional(),
  "link-days": z
    .string()
    .regex(/^\d{1,3}$/, { message: "must be a whole number of days", abort: true })
    .transform(Number)
    .pipe(statementSettingsSchema.shape.linkDays)
    .optional(),
  actor: emailSchema.optional(),
});

/** `desk statements …`: statement documents and their delivery (README, "Statements"). */
export const statementCommands: Record<string, Command> = {
  "statements render": {
    spec: {
      usage: "npm run desk -- statements render --batch ID --out DIR --actor EMAIL",
      description:
        "Writes one PDF and one CSV per recipient statement of an approved or paid batch into a folder, each " +
        "named by its statement number (numbering the batch first when needed). Each document's SHA-256 goes to " +
        "the audit log; a JSON summary to stdout.",
      options: {
        batch: { type: "string", description: "The payout batch id" },
        out: { type: "string", description: "The folder to write into (created when missing)" },
        actor: ACTOR_OPTION,
      },
      schema: renderSchema,
    } satisfies CommandSpec<typeof renderSchema>,
    run: async (flags: z.output<typeof renderSchema>) => {
      await checkOutFolder(flags.out);
      return withDb(async (db) => {
        await gameOfBatch(db, flags.batch);
        const as = await acting(db, flags.actor, "finance", "renders statements");
        const { writeBatchStatementFiles } = await loadFiles();
        return writeBatchStatementFiles(
          db,
          { batchId: flags.batch, out: flags.out, onFile: (label) => process.stderr.write(`statement ${label}\n`) },
          as,
        );
      });
    },
  },
  "statements settings": {
    spec: {
      usage:
        "npm run desk -- statements settings [--studio-name N] [--studio-address A] [--link-days D] [--actor EMAIL]",
      description:
        "Shows, or changes, who issues statements (the studio's name and address printed on every statement) and " +
        "how many days a statement link emailed to a recipient stays valid. Prints the settings in force as JSON. " +
        "A change is made by an admin (--actor).",
      options: {
        "studio-name": { type: "string", description: "The studio's name, as printed on statements" },
        "studio-address": { type: "string", description: "The studio's postal address (one line)" },
        "link-days": { type: "string", description: "Days a statement link stays valid (1 to 365)" },
        actor: { type: "string", description: "Email of the admin who changes them (and gives their password)" },
      },
      schema: settingsSchema,
    } satisfies CommandSpec<typeof settingsSchema>,
    run: (flags: z.output<typeof settingsSchema>) =>
      withDb(async (db) => {
        const saved = await readSavedStatementSettings(db);
        const current = saved ?? DEFAULT_STATEMENT_SETTINGS;
        if (flags["studio-name"] === undefined && flags["studio-address"] === undefined && !flags["link-days"])
          return current;
        if (flags["studio-name"] === undefined && saved === null)
          throw new CliError("--studio-name: is required until the studio that issues the statements is named", 2);
        if (flags.actor === undefined) throw new CliError("--actor: is required to change the settings (an admin)", 2);
        const as = await acting(db, flags.actor, "admin", "changes the statement settings");
        await saveStatementSettings(
          db,
          {
            studioName: flags["studio-name"] ?? current.studioName,
            studioAddress: flags["studio-address"] ?? current.studioAddress,
            linkDays: flags["link-days"] ?? current.linkDays,
            // The fields not given are the ones read above: a change saved since then refuses this one.
            drawn: statementSettingsDrawn(saved),
          },
          as,
        );
        return readStatementSettings(db);
      }),
  },
  "statements send": {
    spec: {
      usage:
        "npm run desk -- statements send --batch ID [--again --runs-seen N | --recipient PLAYER_ID " +
        "[--again --sends-seen N]] --actor EMAIL",
      description:
        "Queues an email of each statement of an approved or paid batch not emailed yet, or whose email failed " +
        "to send (every one with --again, or one recipient's, never emailed, or again with --again), the PDF " +
        "attached, through SMTP_URL. The app's job workers (or desk worker) send them, with retries; each " +
        "statement's delivery log shows the outcome. A JSON summary goes to stdout.",
      options: {
        batch: { type: "string", description: "The payout batch id" },
        recipient: { type: "string", description: "Only this recipient's statement (player id)" },
        again: { type: "boolean", description: "Those emailed already too (every statement, or the recipient's)" },
        "runs-seen": {
          type: "string",
          description:
            "With --again: emailRuns as `payouts show` or the last send printed it; refused if more were queued",
        },
        "sends-seen": {
          type: "string",
          description:
            "With --recipient --again: the times the statement was emailed (its delivery log); refused if more since",
        },
        actor: ACTOR_OPTION,
      },
      schema: sendSchema,
    } satisfies CommandSpec<typeof sendSchema>,
    run: (flags: z.output<typeof sendSchema>) =>
      withDb(async (db) => {
        await gameOfBatch(db, flags.batch);
        const as = await acting(db, flags.actor, "finance", "sends statements");
        const { queueStatementSends } = await import("@/lib/statements/send");
        try {
          // One recipient's statement against the count of its emails (none without --again), or the batch's.
          return await queueStatementSends(
            db,
            flags.recipient !== undefined
              ? { batchId: flags.batch, recipientPlayerId: flags.recipient, sendsSeen: flags["sends-seen"] ?? 0 }
              : {
                  batchId: flags.batch,
                  unemailed: !flags.again,
                  runsSeen: flags.again ? flags["runs-seen"] : undefined,
                },
            as,
          );
        } finally {
          await stopBoss();
        }
      }),
  },
};
