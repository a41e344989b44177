import "server-only";
import { z } from "zod";
import type { Db } from "@/db";
import { lockForTransaction } from "@/db/queries/locks";
import { readAppSetting, writeAppSetting } from "@/db/queries/statements";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";

/** The app_setting row of statements: who issues them and how long a recipient's link stays valid. */
export const STATEMENT_SETTINGS_KEY = "statements.settings";
export const DEFAULT_LINK_DAYS = 30;

/** What statements name as their issuer until the studio says who it is: never saved as its name. */
const PLACEHOLDER_STUDIO_NAME = "Your studio (set the name in Settings)";

export const statementSettingsSchema = z.object({
  studioName: z
    .string()
    .trim()
    .min(1, { message: "is required" })
    .max(200, { message: "must be at most 200 characters" })
    .refine((name) => name !== PLACEHOLDER_STUDIO_NAME, { message: "must name the studio that issues the statements" }),
  studioAddress: z.string().trim().max(500),
  linkDays: z.number().int().min(1).max(365),
});
export type StatementSettings = z.output<typeof statementSettingsSchema>;

export const DEFAULT_STATEMENT_SETTINGS: StatementSettings = {
  studioName: PLACEHOLDER_STUDIO_NAME,
  studioAddress: "",
  linkDays: DEFAULT_LINK_DAYS,
};

/** Why no statement is emailed yet: the statements would name a placeholder as their issuer. */
export const ISSUER_MISSING =
  "Set the studio's name in Settings → Statements first (an admin can): every statement emailed names who issues it.";

/** The settings saved, or null while nobody has said who issues statements. */
async function savedStatementSettings(db: Db): Promise<StatementSettings | null> {
  const parsed = statementSettingsSchema.safeParse(await readAppSetting(db, STATEMENT_SETTINGS_KEY));
  return parsed.success ? parsed.data : null;
}

/** The settings in force: those saved, else the defaults (a PDF made before then names a placeholder issuer). */
export async function readStatementSettings(db: Db): Promise<StatementSettings> {
  return (await savedStatementSettings(db)) ?? DEFAULT_STATEMENT_SETTINGS;
}

/** Whether the studio has said who issues its statements, as emailing them needs. */
export async function statementIssuerIsSet(db: Db): Promise<boolean> {
  return (await savedStatementSettings(db)) !== null;
}

/** Refuses, with ISSUER_MISSING, while the studio has not said who issues its statements. */
export async function requireStatementIssuer(db: Db): Promise<void> {
  if (!(await statementIssuerIsSet(db))) throw new AppError("CONFLICT", ISSUER_MISSING);
}

/**
 * What a form showed of the saved settings ("" before any was saved), sent back with a save: a save made since by
 * someone else refuses this one, which would otherwise put back the fields they changed (the form sends all three).
 */
export function statementSettingsDrawn(settings: StatementSettings | null): string {
  return settings === null ? "" : JSON.stringify([settings.studioName, settings.studioAddress, settings.linkDays]);
}

/** The settings saved, or null: for a form to send back what it showed (statementSettingsDrawn). */
export async function readSavedStatementSettings(db: Db): Promise<StatementSettings | null> {
  return savedStatementSettings(db);
}

export async function saveStatementSettings(
  db: Db,
  input: StatementSettings & { drawn?: string },
  acting: ActingAs,
): Promise<void> {
  const value = statementSettingsSchema.parse(input);
  const cli = acting.via === "cli";
  await db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, STATEMENT_SETTINGS_KEY);
    const from = await savedStatementSettings(trx);
    if (input.drawn !== undefined && statementSettingsDrawn(from) !== input.drawn)
      throw new AppError(
        "CONFLICT",
        `Someone changed the statement settings after ${cli ? "they were read" : "this page was opened"} ` +
          `(now: ${from ? `${from.studioName}, links ${from.linkDays} days` : "not set"}): nothing was saved. ` +
          (cli ? "Run the command again." : "Reload the page and make your change again."),
      );
    await writeAppSetting(trx, { key: STATEMENT_SETTINGS_KEY, value, by: acting.actor?.email ?? acting.via });
    await recordAudit(trx, {
      actor: acting.actor,
      via: acting.via,
      action: "settings.statements",
      target: STATEMENT_SETTINGS_KEY,
      outcome: "succeeded",
      detail: { from, to: value },
    });
  });
}
