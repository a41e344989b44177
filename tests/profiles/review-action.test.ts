import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs, formData as form } from "../support/next-request";
import { signInAs } from "../support/users";
import { addGame } from "../exports/fixture";

vi.mock("next/headers", () => import("../support/next-request"));
const revalidatePath = vi.hoisted(() => vi.fn());
vi.mock("next/cache", () => ({ revalidatePath, revalidateTag: () => {} }));

let t: TestDatabase;
let actions: typeof import("../../app/(desk)/recipients/[playerId]/profile-actions");

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, "review-a");
  actions = await import("../../app/(desk)/recipients/[playerId]/profile-actions");
});

afterAll(async () => {
  await t?.drop();
});

describe("reviewing a change of payout details from the recipient's page", () => {
  it("[finance] refused because a colleague reviewed it first, draws the page again with the refusal", async () => {
    actAs(await signInAs(t.db, "finance"));
    revalidatePath.mockClear();
    const reviewed = form({ playerId: "4242", changeId: randomUUID(), decision: "approve" });
    expect(await actions.reviewPayoutChangeAction(null, reviewed)).toMatchObject({
      ok: false,
      code: "CONFLICT",
      message: expect.stringContaining("no longer waiting for review"),
    });
    expect(revalidatePath).toHaveBeenCalledWith("/recipients/4242", "layout");
  });
});
