import { z } from "zod";
import { countOf } from "@/lib/format";
import type { Db } from "@/db";
import { listGames } from "@/db/queries/games";
import { emailSchema } from "@/lib/auth/users";
import { exportProfiles, importProfiles } from "@/lib/profiles/bulk";
import type { ProfileActing } from "@/lib/profiles/profiles";
import { gameIdSchema } from "@/lib/games/schemas";
import { financeActor } from "../actor";
import { checkOutPath, CliError, CliResult, readFlagFile } from "../cli";
import { type Command, withDb } from "../with-db";

/** The person the command acts as: an existing finance or admin user (the two-person rule needs a name). */
async function actingAs(db: Db, email: string): Promise<ProfileActing> {
  const user = await financeActor(db, email);
  return { actor: { id: user.id, email: user.email }, role: user.role, via: "cli" };
}

async function requireGame(db: Db, gameId: string): Promise<void> {
  if (!(await listGames(db)).some((g) => g.id === gameId)) throw new CliError(`--game: no game ${gameId}`);
}

const fileSchema = z.string().trim().min(1, { message: "is required" });

export const profileCommands: Record<string, Command> = {
  "profiles import": {
    spec: {
      usage: "npm run desk -- profiles import --game ID --file F --actor EMAIL [--dry-run]",
      description:
        "Imports payout profiles from a CSV file (columns in README, Payout profiles) in one transaction: all rows " +
        "or none. --dry-run lists every change and every refused row without changing anything. The first details " +
        "of a recipient apply at once; later changes wait for a finance user's review (another's, under the " +
        "two-person rule).",
      options: {
        game: { type: "string", description: "The game id" },
        file: { type: "string", description: "The CSV file to read" },
        actor: {
          type: "string",
          description: "Email of the finance or admin user the import is made by (and gives their password)",
        },
        "dry-run": { type: "boolean", description: "List what would change; change nothing" },
      },
      schema: z.object({
        game: gameIdSchema,
        file: fileSchema,
        actor: emailSchema,
        "dry-run": z.boolean().default(false),
      }),
    },
    run: async (flags: { game: string; file: string; actor: string; "dry-run": boolean }) => {
      // Read before the database is touched: a mistyped path costs no password and no sign-in line.
      const csv = await readFlagFile("file", flags.file);
      return withDb(
        async (db) => {
          await requireGame(db, flags.game);
          const acting = await actingAs(db, flags.actor);
          const result = await importProfiles(db, { gameId: flags.game, csv, dryRun: flags["dry-run"] }, acting);
          // Refused rows change nothing: the summary still lists them, and the exit code says nothing was (or, in a
          // dry run, would be) imported, so `import --dry-run && import` stops at a file with a refused row.
          if (result.refused.length > 0) {
            const outcome = result.dryRun ? "the file would not be imported" : "nothing was changed";
            process.stderr.write(`profiles import: ${countOf(result.refused.length, "row")} refused; ${outcome}\n`);
            return new CliResult(result, 1);
          }
          return result;
        },
        { keys: true },
      );
    },
  },
  "profiles export": {
    spec: {
      usage: "npm run desk -- profiles export --game ID --out F",
      description:
        "Writes the payout profiles of a game to a CSV file. Details are masked (the last four characters, or an " +
        "email's first character and domain): full bank details are never exported.",
      options: {
        game: { type: "string", description: "The game id" },
        out: { type: "string", description: "The CSV file to write" },
      },
      schema: z.object({ game: gameIdSchema, out: fileSchema }),
    },
    run: async (flags: { game: string; out: string }) => {
      // Checked before the database is opened and the export made and audited.
      await checkOutPath(flags.out);
      return withDb(async (db) => {
        await requireGame(db, flags.game);
        const { writePrivateFile } = await import("@/lib/exports/file");
        const { rows } = await exportProfiles(db, { gameId: flags.game }, { actor: null, via: "cli" }, (csv) =>
          writePrivateFile(flags.out, csv),
        );
        return { exported: rows, file: flags.out, masked: true };
      });
    },
  },
};
