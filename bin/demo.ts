import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ActingAs } from "@/core/actor";
import { createDb, type Db } from "@/db";
import { listGameIdsAndUserEmails, mergeGameSettings } from "@/db/queries/games";
import { findUserIdByEmail } from "@/db/queries/users";
import {
  DEMO_BIG_RECIPIENT_ID,
  DEMO_GAME_ID,
  DEMO_GAME_NAME,
  DEMO_GAME_SECRET,
  DEMO_RECIPIENTS,
  DEMO_WEBHOOK_SECRET,
} from "@/emulator/scenario/demo";
import type { Ledger } from "@/emulator/ledger/ledger";
import { startEmulator } from "@/emulator/server";
import { formatInstant } from "@/emulator/time";
import { saveGame } from "@/lib/games/games";
import type { Role } from "@/lib/auth/roles";
import { createUser, passwordStillIs } from "@/lib/auth/users";
import { seedDemoProfiles } from "@/lib/profiles/demo";
import { DEFAULT_LINK_DAYS, saveStatementSettings, statementIssuerIsSet } from "@/lib/statements/settings";
import { CliError } from "./cli";
import type { Runtime } from "./runtime";

/**
 * The embedded default's demo: one user per role (plus a second finance user for the two-person rule), whose
 * generated passwords are kept in .data/demo-users.json and printed on every start, and the service emulator with
 * demo data registered as a sandbox game.
 */
export type DemoUser = { role: Role; email: string; password: string };
/** A demo account as a start prints it: without a password when the one it was made with is no longer its own. */
export type ShownDemoUser = { role: Role; email: string; password: string | null };

/** The demo is set up by the command that starts Payout Desk. */
const CLI: ActingAs = { actor: null, via: "cli" };

const DEMO_ACCOUNTS: { role: Role; email: string; name: string }[] = [
  { role: "admin", email: "admin@payout-desk.test", name: "Ada Admin" },
  { role: "finance", email: "finance@payout-desk.test", name: "Fin Ance" },
  { role: "finance", email: "finance2@payout-desk.test", name: "Second Approver" },
  { role: "support", email: "support@payout-desk.test", name: "Sam Support" },
  { role: "viewer", email: "viewer@payout-desk.test", name: "Vic Viewer" },
];

/**
 * PAYOUT_DESK_EMULATOR=on with DATABASE_URL seeds that database with the demo (an admin among its users, whose
 * password is printed, and a game whose webhook secret is in this repository): refused, before it is migrated, on a
 * database that holds a game or a user of its own, a real deployment's.
 */
export async function refuseDemoOnRealDatabase(db: Db): Promise<void> {
  const held = await listGameIdsAndUserEmails(db);
  const demoEmails = new Set(DEMO_ACCOUNTS.map((account) => account.email));
  const games = held.games.filter((id) => id !== DEMO_GAME_ID);
  const users = held.users.filter((email) => !demoEmails.has(email));
  if (games.length === 0 && users.length === 0) return;
  const some = (list: string[]) => `${list.slice(0, 3).join(", ")}${list.length > 3 ? ", …" : ""}`;
  const holds = [
    games.length > 0 ? `games (${some(games)})` : null,
    users.length > 0 ? `users (${some(users)})` : null,
  ];
  throw new CliError(
    "PAYOUT_DESK_EMULATOR=on seeds the demo (its users, an admin among them, and its game) into the database, and " +
      `this one holds other ${holds.filter(Boolean).join(" and ")}: not a demo database. Nothing was changed. ` +
      "Start without PAYOUT_DESK_EMULATOR.",
  );
}

export async function seedDemoUsers(runtime: Runtime): Promise<ShownDemoUser[]> {
  const file = path.join(runtime.dataDir, "demo-users.json");
  // With DATABASE_URL nothing else made the data folder, and the passwords made below are kept only there.
  await mkdir(runtime.dataDir, { recursive: true, mode: 0o700 });
  const known: DemoUser[] = existsSync(file) ? (JSON.parse(await readFile(file, "utf8")) as DemoUser[]) : [];
  const db = createDb(runtime.databaseUrl, { max: 2 });
  try {
    const shown: ShownDemoUser[] = [];
    for (const account of DEMO_ACCOUNTS) {
      const exists = await findUserIdByEmail(db, account.email);
      const remembered = known.find((u) => u.email === account.email);
      if (exists) {
        // Printed only while it still signs in: set anew in Settings or from the command line, or made some other
        // way (the file lost), the account is listed without one.
        const current = remembered && (await passwordStillIs(db, account.email, remembered.password));
        shown.push(current ? remembered : { role: account.role, email: account.email, password: null });
        continue;
      }
      const password = `demo-${randomBytes(9).toString("base64url")}`;
      await createUser(db, { email: account.email, name: account.name, role: account.role, password }, CLI);
      shown.push({ role: account.role, email: account.email, password });
    }
    // The file keeps the passwords that still sign in.
    const kept = shown.filter((user): user is DemoUser => user.password !== null);
    await writeFile(file, JSON.stringify(kept, null, 2), { mode: 0o600 });
    return shown;
  } finally {
    await db.destroy();
  }
}

export type Demo = {
  users: ShownDemoUser[];
  emulatorUrl: string | null;
  /** The emulator clock, and the first and last month with settled renewals of the demo game (YYYY-MM, UTC). */
  clock: string | null;
  months: { first: string; last: string } | null;
  /** Whether the emulator carried on from its state file (false: fresh demo data, clock at this start). */
  resumed: boolean;
  stop(): Promise<void>;
};

/** The emulator's state in the data folder: it carries on across restarts, as the service would. */
export function emulatorStateFile(dataDir: string): string {
  return path.join(dataDir, "emulator-state.json");
}

/** The first and last month in which the demo game has settled renewals. */
export function demoMonths(ledger: Ledger): { first: string; last: string } | null {
  const game = ledger.games.get(DEMO_GAME_ID);
  if (!game) return null;
  const settled = ledger.settledIndex(game);
  const first = settled[0]?.paidAt;
  const last = settled[settled.length - 1]?.paidAt;
  if (first == null || last == null) return null;
  return { first: formatInstant(first).slice(0, 7), last: formatInstant(last).slice(0, 7) };
}

/** The demo's recipients: player ids from the big recipient on, one per demo recipient. */
function demoRecipientIds(): number[] {
  return Array.from({ length: DEMO_RECIPIENTS }, (_, i) => DEMO_BIG_RECIPIENT_ID + i);
}

/** Registers (or re-points) the emulator's demo game: its address changes with every start. */
export async function registerDemoGame(db: Db, emulatorUrl: string, options: { pacing?: string } = {}): Promise<void> {
  await saveGame(
    db,
    {
      id: DEMO_GAME_ID,
      name: DEMO_GAME_NAME,
      environment: "sandbox",
      baseUrl: emulatorUrl,
      secret: DEMO_GAME_SECRET,
      webhookSecrets: [DEMO_WEBHOOK_SECRET],
    },
    // The demo game is the emulator's: a sandbox whatever it was switched to.
    { replace: true, environmentChange: true, as: CLI },
  );
  // Only the demo's own keys: what an admin set on the demo game (automatic pulls, the QuickBooks date order) stays.
  await mergeGameSettings(db, DEMO_GAME_ID, { pacing: options.pacing ?? "on", demo: true });
}

/** Who issues the demo's statements (emailing them needs it), unless someone has said already in Settings. */
export async function seedDemoIssuer(db: Db): Promise<void> {
  if (await statementIssuerIsSet(db)) return;
  await saveStatementSettings(
    db,
    { studioName: "Demo Studio", studioAddress: "1 Example Street, Sampletown", linkDays: DEFAULT_LINK_DAYS },
    CLI,
  );
}

export async function seedEmbeddedDemo(
  runtime: Runtime,
  options: { appUrl: string; withEmulator: boolean },
): Promise<Demo> {
  const users = await seedDemoUsers(runtime);
  if (!options.withEmulator)
    return { users, emulatorUrl: null, clock: null, months: null, resumed: false, stop: async () => {} };
  const stateFile = emulatorStateFile(runtime.dataDir);
  const resumed = existsSync(stateFile);
  // First start: demo data whose clock is now and runs in real time, so refunds and renewals happen at the time they
  // are made; later starts carry on from the state file with the same clock.
  const emulator = await startEmulator({
    demo: { seed: 1, clock: formatInstant(Math.floor(Date.now() / 1000) * 1000) },
    stateFile,
    realTimeClock: true,
    webhookUrl: `${options.appUrl}/api/webhooks/service/${DEMO_GAME_ID}`,
    webhookSecret: DEMO_WEBHOOK_SECRET,
  });
  const db = createDb(runtime.databaseUrl, { max: 2 });
  try {
    await registerDemoGame(db, emulator.url);
    await seedDemoProfiles(db, { gameId: DEMO_GAME_ID, playerIds: demoRecipientIds() });
    await seedDemoIssuer(db);
  } catch (error) {
    // The start stops what it was handed; the emulator is not handed over yet.
    await emulator.close().catch(() => {});
    throw error;
  } finally {
    await db.destroy();
  }
  const ledger = emulator.ledger();
  return {
    users,
    emulatorUrl: emulator.url,
    clock: formatInstant(ledger.now),
    months: demoMonths(ledger),
    resumed,
    stop: () => emulator.close(),
  };
}
