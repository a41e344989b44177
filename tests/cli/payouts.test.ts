import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, removeUserAccess } from "@/lib/auth/users";
import { savePayoutSettings } from "@/lib/payouts/settings";
import { payoutCommands } from "../../bin/commands/payouts";
import { parseFlags } from "../../bin/cli";
import { GAME, insertGame, insertSnapshot } from "../payouts/fixtures";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { type DeskRun, refusalLine, runDesk } from "../support/desk";

const PREPARER = "preparer@payout-desk.test";
const APPROVER = "approver@payout-desk.test";
const SUPPORT = "support@payout-desk.test";
const LEFT = "left@payout-desk.test";
const PASSWORD = "a-long-password";
const setup = { actor: null, via: "cli" as const };
let t: TestDatabase;
let snapshotId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await insertGame(t.db);
  await savePayoutSettings(
    t.db,
    { twoPersonRule: true, minPayoutUsd: "10.00" },
    { actor: { id: "setup", email: "setup@payout-desk.test" }, via: "cli" },
  );
  for (const [email, role] of [
    [PREPARER, "finance"],
    [APPROVER, "admin"],
    [SUPPORT, "support"],
  ] as const) {
    await createUser(t.db, { email, role, password: PASSWORD }, { actor: null, via: "cli" });
  }
  const snapshot = await insertSnapshot(t.db, {
    window: "2026-03",
    recipients: [
      { id: 1, gross: "25.10" },
      { id: 2, gross: "30.00", unavailableLine: true },
      { id: 3, gross: "40.00", resolved: false },
    ],
  });
  snapshotId = snapshot.id;
});
afterAll(async () => t?.drop());

function desk(...args: string[]): Promise<DeskRun> {
  return runDesk(t.url, args, { PAYOUT_DESK_ACTOR_PASSWORD: PASSWORD });
}

/** The batch's revision as `payouts show` gives it: what the person approving looked at. */
async function shownRevision(batchId: string): Promise<string> {
  const shown = await desk("payouts", "show", "--batch", batchId);
  expect(shown.code, shown.stderr).toBe(0);
  return (JSON.parse(shown.stdout) as { batch: { revision: string } }).batch.revision;
}

describe("npm run desk -- payouts", () => {
  it("checks the format of ids and flag kinds before anything else", () => {
    const spec = payoutCommands["payouts override"]?.spec;
    if (!spec) throw new Error("no payouts override command");
    const base = ["--reason", "checked with the studio by phone", "--actor", APPROVER];
    const batch = "0b6f2c1e-9d1a-4a8e-8f55-2f0c1c7d4e10";
    expect(() => parseFlags(spec, ["--batch", "nope", "--flag", "window_open", ...base])).toThrow(
      "--batch: must be a payout batch id",
    );
    expect(() => parseFlags(spec, ["--batch", batch, "--flag", "Window Open!", ...base])).toThrow(
      "--flag: must be a flag kind",
    );
    expect(() => parseFlags(spec, ["--batch", batch, "--flag", "not_a_flag", ...base])).toThrow(
      "--flag: is not a payout flag",
    );
    expect(() =>
      parseFlags(spec, ["--batch", batch, "--flag", "unresolved_recipient", "--recipient", "x1", ...base]),
    ).toThrow("--recipient: must be a player id");
    // Approving leaves the flagged statements as drafts, or holds them: not both (the one would undo the other).
    const approve = payoutCommands["payouts approve"]?.spec;
    if (!approve) throw new Error("no payouts approve command");
    const asked = ["--batch", batch, "--revision", "12", "--actor", APPROVER, "--unflagged"];
    expect(() => parseFlags(approve, [...asked, "--hold-flagged", "recipient unknown to the service"])).toThrow(
      "--hold-flagged: cannot be given with --unflagged",
    );
  });

  // One batch through its steps, a test each (each spawns the command line a few times).
  type Listed = { flag: string; recipientPlayerId: number | null; cause: string };
  let batch: { batchId: string; statements: number; payableUsd: string };
  let listed: Listed[] = [];

  it("prepares for finance only, and lists the batch's flags", async () => {
    expect(refusalLine(await desk("payouts", "prepare", "--snapshot", snapshotId, "--actor", SUPPORT))).toContain(
      "--actor: support@payout-desk.test is support",
    );
    // A finance user whose access an admin removed acts no more from the command line either.
    const { id } = await createUser(t.db, { email: LEFT, role: "finance", password: "a-long-password" }, setup);
    await removeUserAccess(t.db, id, setup);
    expect(refusalLine(await desk("payouts", "prepare", "--snapshot", snapshotId, "--actor", LEFT))).toContain(
      `--actor: ${LEFT} has no access (removed by an admin)`,
    );

    const prepared = await desk("payouts", "prepare", "--snapshot", snapshotId, "--actor", PREPARER);
    expect(prepared.code, prepared.stderr).toBe(0);
    batch = JSON.parse(prepared.stdout) as typeof batch;
    expect(batch).toMatchObject({ statements: 3, payableUsd: "95.10", snapshotVersion: 1 });

    const flags = await desk("payouts", "flags", "--batch", batch.batchId);
    expect(flags.code, flags.stderr).toBe(0);
    listed = (JSON.parse(flags.stdout) as { flags: Listed[] }).flags;
    expect(listed.map((f) => [f.flag, f.recipientPlayerId])).toEqual([
      ["attribution_unavailable", 2],
      ["unresolved_recipient", 3],
    ]);
  });

  it("refuses a flag named wrongly and overrides one named rightly", async () => {
    // A flag named wrongly is refused, saying which part is wrong where the open flags tell, nothing overridden.
    const overrideWith = (...named: string[]) =>
      desk(
        ...["payouts", "override", "--batch", batch.batchId, ...named],
        ...["--reason", "the malformed line was checked with the studio", "--actor", PREPARER],
      );
    const attribution = ["--flag", "attribution_unavailable"];
    const flagsNow = `(list the open flags with payouts flags --batch ${batch.batchId})`;
    expect(refusalLine(await overrideWith(...attribution, "--cause", listed[0]?.cause ?? ""))).toContain(
      `Name its recipient with --recipient ${flagsNow}.`,
    );
    expect(refusalLine(await overrideWith(...attribution, "--recipient", "2", "--cause", "mistyped"))).toContain(
      `The open attribution_unavailable flag of recipient 2 has another cause than --cause ${flagsNow}.`,
    );
    const notRaised = await overrideWith(...attribution, "--recipient", "3", "--cause", "x");
    expect(notRaised).toMatchObject({ code: 1, stdout: "" });
    expect(notRaised.stderr).not.toContain("another cause");
    const override = await desk(
      "payouts",
      "override",
      "--batch",
      batch.batchId,
      "--flag",
      "attribution_unavailable",
      "--recipient",
      "2",
      "--cause",
      listed[0]?.cause ?? "",
      "--reason",
      "the malformed line was checked with the studio",
      "--actor",
      PREPARER,
    );
    expect(override.code, override.stderr).toBe(0);
    expect(JSON.parse(override.stdout)).toMatchObject({ overridden: { flag: "attribution_unavailable" } });
  });

  it("approves under the two-person rule, a stale window and a changed batch refused, and shows it", async () => {
    const hold = ["--hold-flagged", "recipient unknown to the service"];
    const seen = ["--revision", await shownRevision(batch.batchId)];
    const byPreparer = await desk(
      "payouts",
      "approve",
      "--batch",
      batch.batchId,
      ...seen,
      "--actor",
      PREPARER,
      ...hold,
    );
    expect(refusalLine(byPreparer)).toContain("Two-person rule: you prepared this batch");
    expect(byPreparer.stdout).toBe("");
    const untouched = await t.db.selectFrom("payout_statement").select("state").distinct().execute();
    expect(untouched).toEqual([{ state: "draft" }]);
    // Refused before anything changed, and audited as a refusal from the desk is.
    const refusedLines = await t.db
      .selectFrom("audit_log")
      .select(["actor_email", "via", "outcome"])
      .where("action", "=", "payouts.batch.approve")
      .where("target", "=", batch.batchId)
      .where("outcome", "like", "refused%")
      .execute();
    expect(refusedLines).toEqual([{ actor_email: PREPARER, via: "cli", outcome: "refused_two_person_rule" }]);

    // A change reported inside the window since the snapshot (a stale mark): holding cannot clear a window's flag, so
    // the approval is refused before any statement changes, rather than holding every one of them.
    const mark = await t.db
      .insertInto("snapshot_stale_mark")
      .values({
        game_id: GAME,
        instant: new Date("2026-03-10T00:00:00Z"),
        reason: "subscription.refunded",
        detail: "{}",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const stale = await desk("payouts", "approve", "--batch", batch.batchId, ...seen, "--actor", APPROVER, ...hold);
    expect(refusalLine(stale)).toContain("a flag on this window blocks the approval (Stale snapshot)");
    expect(await t.db.selectFrom("payout_statement").select("state").distinct().execute()).toEqual(untouched);
    await t.db.deleteFrom("snapshot_stale_mark").where("id", "=", mark.id).execute();
    // A revision other than the batch's (a change since it was shown) is refused before anything changes.
    const older = ["--revision", String(Number(seen[1]) - 1)];
    const changed = await desk("payouts", "approve", "--batch", batch.batchId, ...older, "--actor", APPROVER, ...hold);
    expect(refusalLine(changed)).toContain(`--revision: the batch changed since revision ${older[1]}`);
    expect(await t.db.selectFrom("payout_statement").select("state").distinct().execute()).toEqual(untouched);

    const approved = await desk("payouts", "approve", "--batch", batch.batchId, ...seen, "--actor", APPROVER, ...hold);
    expect(approved.code, approved.stderr).toBe(0);
    // Each statement it skipped is named on stderr with why (the flagged one, held after).
    expect(approved.stderr).toMatch(
      /approved 2 statements, skipped 1\n {2}(.* \()?#3\)? has open flags \(Unresolved recipient\)\n/,
    );
    expect(JSON.parse(approved.stdout)).toMatchObject({
      batchApproved: true,
      statements: { approved: 2, held: 1 },
      batch: { approved: 2, held: 1, payableUsd: "55.10" },
    });

    const show = await desk("payouts", "show", "--batch", batch.batchId);
    expect(show.code, show.stderr).toBe(0);
    const shown = JSON.parse(show.stdout) as {
      batch: { status: string; preparedByEmail: string; approvedByEmail: string };
      statements: { recipientPlayerId: number; state: string; payableUsd: string; holdReason: string | null }[];
    };
    expect(shown.batch).toMatchObject({ status: "approved", preparedByEmail: PREPARER, approvedByEmail: APPROVER });
    expect(shown.statements.map((s) => [s.recipientPlayerId, s.state, s.payableUsd, s.holdReason])).toEqual([
      [1, "approved", "25.10", null],
      [2, "approved", "30.00", null],
      [3, "held", "40.00", "recipient unknown to the service"],
    ]);

    const audit = await t.db
      .selectFrom("audit_log")
      .select(["action", "via", "actor_email"])
      .where("action", "like", "payouts.%")
      .orderBy("id")
      .execute();
    expect(audit).toEqual([
      { action: "payouts.batch.prepare", via: "cli", actor_email: PREPARER },
      { action: "payouts.flag.override", via: "cli", actor_email: PREPARER },
      // The preparer's refused approval.
      { action: "payouts.batch.approve", via: "cli", actor_email: PREPARER },
      { action: "payouts.statement.approve", via: "cli", actor_email: APPROVER },
      { action: "payouts.statement.hold", via: "cli", actor_email: APPROVER },
      { action: "payouts.batch.approve", via: "cli", actor_email: APPROVER },
    ]);
  });

  it("acts for a person only with their password, counted like the sign-in page's attempts", async () => {
    const prepare = ["payouts", "prepare", "--snapshot", snapshotId, "--actor", PREPARER];
    // One operator cannot act in another person's name: without the password nothing runs, and a wrong one is refused
    // and counted against the account.
    const none = await runDesk(t.url, prepare, { PAYOUT_DESK_ACTOR_PASSWORD: undefined });
    expect(refusalLine(none)).toContain(`--actor: ${PREPARER}'s password is needed`);
    // Set to nothing, it is not set: the same question, not a refusal of an empty password.
    const empty = await runDesk(t.url, prepare, { PAYOUT_DESK_ACTOR_PASSWORD: "" });
    expect(refusalLine(empty)).toContain(`--actor: ${PREPARER}'s password is needed`);
    expect(none.code).toBe(2);
    const wrong = await runDesk(t.url, prepare, { PAYOUT_DESK_ACTOR_PASSWORD: "not-the-password" });
    expect(refusalLine(wrong)).toContain(`--actor: wrong password for ${PREPARER}`);
    const attempts = await t.db
      .selectFrom("sign_in_attempt")
      .select(["email", "succeeded"])
      .where("email", "=", PREPARER)
      .execute();
    expect(attempts).toContainEqual({ email: PREPARER, succeeded: false });
    // The right password: the command runs (here refused by the batch the window already has), and the person's
    // sign-in is in the audit log, from the command line.
    const right = await desk(...prepare);
    expect(refusalLine(right)).toContain("This window already has an approved payout batch: a window is prepared once");
    const signIns = await t.db
      .selectFrom("audit_log")
      .select(["action", "via", "actor_email"])
      .where("action", "=", "user.sign_in")
      .execute();
    expect(signIns).toContainEqual({ action: "user.sign_in", via: "cli", actor_email: PREPARER });
  });
});
