import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { windowKey } from "../../lib/payouts/window-key";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs, formData as form } from "../support/next-request";
import { signInAs } from "../support/users";
import { addGame } from "../exports/fixture";

vi.mock("next/headers", () => import("../support/next-request"));
const revalidatePath = vi.hoisted(() => vi.fn());
vi.mock("next/cache", () => ({ revalidatePath, revalidateTag: () => {} }));

const MARCH = { startMs: Date.parse("2026-03-01T00:00:00Z"), endMs: Date.parse("2026-04-01T00:00:00Z") };
let t: TestDatabase;
let actions: typeof import("../../app/(desk)/payouts/[window]/closing-actions");

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, "close-a");
  actions = await import("../../app/(desk)/payouts/[window]/closing-actions");
});

afterAll(async () => {
  await t?.drop();
});

describe("closing a window from its page", () => {
  it("[finance] refused because a colleague changed it first, draws the page again with the refusal", async () => {
    actAs(await signInAs(t.db, "finance"));
    // The page offered "Reopen" to one person while another reopened it (here: it was never closed).
    revalidatePath.mockClear();
    expect(
      await actions.reopenWindowAction(null, form({ window: windowKey(MARCH), reason: "late refund" })),
    ).toMatchObject({ ok: false, code: "CONFLICT", message: expect.stringContaining("is not closed") });
    expect(revalidatePath).toHaveBeenCalledWith("/payouts", "layout");
    // A refusal of what was typed draws nothing again: the page has not moved on.
    revalidatePath.mockClear();
    expect(await actions.reopenWindowAction(null, form({ window: windowKey(MARCH), reason: "" }))).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
    });
    expect(revalidatePath).not.toHaveBeenCalled();
  });
});
