import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { preparePayoutBatch } from "@/lib/payouts/batches";
import { GAME, insertSnapshot, web } from "../payouts/fixtures";
import { createProfilesDatabase } from "../profiles/support";
import type { TestDatabase } from "../support/db";
import { refusalLine, runDesk } from "../support/desk";

/**
 * A command that acts for a person checks the snapshot or batch it names (and the revision it approves) before it asks
 * for that person's password: a mistyped id is refused at once, with no password asked for nothing and no attempt
 * counted against the account.
 */

const FINANCE = "finance@payout-desk.test";
const NO_SUCH = "00000000-0000-4000-8000-00000000abcd";
let t: TestDatabase;
let folder: string;

beforeAll(async () => {
  // A game saved as the app saves one, its secret sealed: the commands that read sealed values check the key first.
  t = await createProfilesDatabase(GAME);
  await createUser(t.db, { email: FINANCE, role: "finance", password: "a-long-password" }, { actor: null, via: "cli" });
  folder = await mkdtemp(path.join(tmpdir(), "payout-desk-unknown-ids-"));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
  await t?.drop();
});

/**
 * The command run with a wrong password in the environment: asked for, it would be refused and counted as a failed
 * sign-in of the account. Its one refusal line.
 */
async function refused(...args: string[]): Promise<string> {
  return refusalLine(
    await runDesk(t.url, [...args, "--actor", FINANCE], { PAYOUT_DESK_ACTOR_PASSWORD: "not-it-at-all" }),
  );
}

async function attemptsCounted(): Promise<number> {
  const rows = await t.db.selectFrom("sign_in_attempt").select("email").where("email", "=", FINANCE).execute();
  return rows.length;
}

describe("a mistyped id on the command line", () => {
  it("is refused before the password of the person acting is asked for", async () => {
    const results = path.join(folder, "results.csv");
    await writeFile(results, "reference,status\n");
    const noBatch = `--batch: no payout batch ${NO_SUCH}`;
    expect(await refused("payouts", "prepare", "--snapshot", NO_SUCH)).toContain(
      `--snapshot: no published snapshot ${NO_SUCH}`,
    );
    expect(await refused("payouts", "approve", "--batch", NO_SUCH, "--revision", "1")).toContain(noBatch);
    const overrideReason = "checked with the studio's finance lead";
    expect(
      await refused(
        ...["payouts", "override", "--batch", NO_SUCH, "--flag", "window_open", "--cause", "c", "--reason"],
        overrideReason,
      ),
    ).toContain(noBatch);
    expect(await refused("payouts", "pay-file", "--batch", NO_SUCH, "--method", "generic", "--out", folder)).toContain(
      noBatch,
    );
    expect(
      await refused("payouts", "import-results", "--batch", NO_SUCH, "--format", "generic", "--file", results),
    ).toContain(noBatch);
    expect(await refused("statements", "render", "--batch", NO_SUCH, "--out", folder)).toContain(noBatch);
    expect(await refused("statements", "send", "--batch", NO_SUCH)).toContain(noBatch);
    expect(await attemptsCounted()).toBe(0);
  });

  it("refuses a revision the batch is not at before the password, and checks it for the right one", async () => {
    const snapshot = await insertSnapshot(t.db, { window: "2026-04", recipients: [{ id: 1, gross: "25.00" }] });
    const preparer = { id: "u-prep", email: "prep@payout-desk.test" };
    const { batchId } = await preparePayoutBatch(
      t.db,
      { gameId: GAME, window: snapshot.window, snapshotId: snapshot.id },
      web(preparer),
    );
    const batch = await t.db.selectFrom("payout_batch").select("revision").where("id", "=", batchId).executeTakeFirst();
    const revision = Number(batch?.revision);
    const stale = await refused("payouts", "approve", "--batch", batchId, "--revision", String(revision + 5));
    expect(stale).toContain(`--revision: the batch changed since revision ${revision + 5}`);
    expect(await attemptsCounted()).toBe(0);
    // The batch and revision as they are: the password is checked next, and the wrong one counted.
    const current = await refused("payouts", "approve", "--batch", batchId, "--revision", String(revision));
    expect(current).toContain(`--actor: wrong password for ${FINANCE}`);
    expect(await attemptsCounted()).toBe(1);
  });
});
