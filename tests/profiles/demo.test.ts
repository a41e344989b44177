import { afterAll, beforeAll, expect, it } from "vitest";
import { isValidIBAN } from "ibantools";
import { openPayoutDetails } from "@/lib/profiles/details";
import { createUser } from "@/lib/auth/users";
import { seedDemoProfiles } from "@/lib/profiles/demo";
import { reviewVerdict } from "@/lib/profiles/offered";
import type { TestDatabase } from "../support/db";
import { createProfilesDatabase } from "./support";

const CLI = { actor: null, via: "cli" } as const;
const PW = "correct-horse-battery";

let t: TestDatabase;
const GAME = "demo-profiles";
const IDS = Array.from({ length: 40 }, (_, i) => 100_001 + i);

beforeAll(async () => {
  t = await createProfilesDatabase(GAME);
});
afterAll(async () => t?.drop());

it("seeds every kind of profile once: some missing, EUR IBANs, one changed, one awaiting review", async () => {
  // The demo's finance users exist before the seed (a start makes them first): the changes are theirs.
  const finance = await createUser(
    t.db,
    { email: "finance@payout-desk.test", role: "finance", name: "F", password: PW },
    CLI,
  );
  const second = await createUser(
    t.db,
    { email: "finance2@payout-desk.test", role: "finance", name: "S", password: PW },
    CLI,
  );
  expect(await seedDemoProfiles(t.db, { gameId: GAME, playerIds: IDS })).toBe(36);
  const details = await openPayoutDetails(t.db, GAME, IDS);
  expect(details.size).toBe(36);
  const methods = new Set([...details.values()].map((d) => d.method));
  expect([...methods].sort()).toEqual(["bank_transfer", "manual", "paypal", "wise"]);
  const banks = [...details.values()].filter((d) => d.method === "bank_transfer");
  expect(banks.length).toBeGreaterThan(5);
  for (const b of banks) {
    expect(b.currency).toBe("EUR");
    expect(b.details.method === "bank_transfer" && isValidIBAN(b.details.iban)).toBe(true);
  }
  const changes = await t.db.selectFrom("payout_profile_change").select(["player_id", "status"]).execute();
  expect(changes.filter((c) => c.status === "approved").map((c) => c.player_id)).toEqual(["100001"]);
  expect(changes.filter((c) => c.status === "pending").map((c) => c.player_id)).toEqual(["100002"]);
  const [pending] = await t.db
    .selectFrom("payout_profile_change")
    .select("entered_by_id")
    .where("status", "=", "pending")
    .execute();
  const enteredById = pending?.entered_by_id ?? null;
  // The finance user who entered it may not review it; the second may.
  expect(reviewVerdict({ id: finance.id, role: "finance" }, { enteredById }, true)).toMatchObject({ allowed: false });
  expect(reviewVerdict({ id: second.id, role: "finance" }, { enteredById }, true)).toEqual({ allowed: true });
  expect(await seedDemoProfiles(t.db, { gameId: GAME, playerIds: IDS })).toBe(0);
});
