import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { windowKey } from "../../lib/payouts/window-key";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs, formData as form } from "../support/next-request";
import { signInAs } from "../support/users";
import { addGame } from "../exports/fixture";

/**
 * Forms refused because a colleague acted first (the page still offered what they did) draw their page again, so the
 * refusal is read beside what can be done now; a refusal of what was typed draws nothing again.
 */
vi.mock("next/headers", () => import("../support/next-request"));
const revalidatePath = vi.hoisted(() => vi.fn());
vi.mock("next/cache", () => ({ revalidatePath, revalidateTag: () => {} }));

const MARCH = { startMs: Date.parse("2026-03-01T00:00:00Z"), endMs: Date.parse("2026-04-01T00:00:00Z") };
let t: TestDatabase;
let closing: typeof import("../../app/(desk)/payouts/[window]/closing-actions");
let profiles: typeof import("../../app/(desk)/recipients/[playerId]/profile-actions");
let batches: typeof import("../../app/(desk)/payouts/batch-actions");

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, "redraw-a");
  closing = await import("../../app/(desk)/payouts/[window]/closing-actions");
  profiles = await import("../../app/(desk)/recipients/[playerId]/profile-actions");
  batches = await import("../../app/(desk)/payouts/batch-actions");
  actAs(await signInAs(t.db, "finance"));
});

afterAll(async () => {
  await t?.drop();
});

describe("a form refused because a colleague acted first", () => {
  it("[finance] reopening a window reopened meanwhile draws the payouts pages again", async () => {
    // The page offered "Reopen" to one person while another reopened it (here: it was never closed).
    revalidatePath.mockClear();
    expect(
      await closing.reopenWindowAction(null, form({ window: windowKey(MARCH), reason: "late refund" })),
    ).toMatchObject({ ok: false, code: "CONFLICT", message: expect.stringContaining("is not closed") });
    expect(revalidatePath).toHaveBeenCalledWith("/payouts", "layout");
    revalidatePath.mockClear();
    expect(await closing.reopenWindowAction(null, form({ window: windowKey(MARCH), reason: "" }))).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
    });
    expect(revalidatePath).not.toHaveBeenCalled();
  });

  it("[finance] reviewing a change of payout details reviewed meanwhile draws the recipient's page again", async () => {
    revalidatePath.mockClear();
    const reviewed = form({ playerId: "4242", changeId: randomUUID(), decision: "approve" });
    expect(await profiles.reviewPayoutChangeAction(null, reviewed)).toMatchObject({
      ok: false,
      code: "CONFLICT",
      message: expect.stringContaining("no longer waiting for review"),
    });
    expect(revalidatePath).toHaveBeenCalledWith("/recipients/4242", "layout");
  });

  it("[finance] approving all unflagged drafts names the revision the page was drawn at", async () => {
    const batchId = randomUUID();
    expect(await batches.approveAllUnflaggedAction(null, form({ batchId }))).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { revision: expect.any(String) },
    });
  });
});
