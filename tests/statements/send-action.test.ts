import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs, formData as form } from "../support/next-request";
import { signInAs } from "../support/users";

/** Emailing one statement again names the emails its page showed, as "send all again" names its runs. */
vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/cache", () => ({ revalidatePath: () => {}, revalidateTag: () => {} }));

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  actAs(await signInAs(t.db, "finance"));
});
afterAll(async () => t?.drop());

it("[finance] refuses a send that does not say how many emails the statement had", async () => {
  const { sendStatementAction } = await import("@/app/(desk)/payouts/statement-mail-actions");
  const refused = await sendStatementAction(null, form({ batchId: randomUUID(), statementId: randomUUID() }));
  expect(refused).toMatchObject({ ok: false, code: "INVALID_INPUT", fieldErrors: { sendsSeen: expect.any(String) } });
  const sent = await t.db.selectFrom("audit_log").select("id").where("action", "like", "statement.%").execute();
  expect(sent).toEqual([]);
});
