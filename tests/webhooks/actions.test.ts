import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readGameAutomation } from "../../db/queries/webhooks";
import { stopBoss } from "../../lib/jobs/queue";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAs } from "../support/next-request";
import { signInAs } from "../support/users";
import { addGame, deliver, envelope, type RouteHandler } from "./support";

vi.mock("next/headers", () => import("../support/next-request"));
const revalidatePath = vi.hoisted(() => vi.fn());
vi.mock("next/cache", () => ({ revalidatePath, revalidateTag: () => {} }));

let t: TestDatabase;
let actions: typeof import("../../app/(desk)/webhooks/actions");
let POST: RouteHandler;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, "a1");
  await t.db
    .updateTable("game")
    .set({ settings: JSON.stringify({ pacing: "off", demo: true }) })
    .where("id", "=", "a1")
    .execute();
  actions = await import("../../app/(desk)/webhooks/actions");
  ({ POST } = (await import("../../app/api/webhooks/service/[gameId]/route")) as unknown as { POST: RouteHandler });
});

afterAll(async () => {
  await stopBoss();
  await t?.drop();
});

function form(values: Record<string, string>): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries(values)) data.set(key, value);
  return data;
}

describe("webhook page actions", () => {
  it("[admin] saves the automatic pulls and keeps the game's other settings", async () => {
    actAs(await signInAs(t.db, "admin"));
    const before = await readGameAutomation(t.db, "a1");
    const result = await actions.saveAutomationAction(
      null,
      form({ form: "automation", autoRefresh: "on", pullCurrentMonthDaily: "on" }),
    );
    expect(result).toMatchObject({ ok: true });
    expect(await readGameAutomation(t.db, "a1")).toEqual({
      autoRefresh: true,
      pullPreviousMonth: false,
      pullCurrentMonthDaily: true,
    });
    const game = await t.db.selectFrom("game").select("settings").where("id", "=", "a1").executeTakeFirstOrThrow();
    expect(game.settings).toMatchObject({ pacing: "off", demo: true });
    const audit = await t.db
      .selectFrom("audit_log")
      .select(["action", "outcome", "detail"])
      .where("action", "=", "game.automation")
      .execute();
    // The line says what the change replaced.
    expect(audit).toEqual([
      {
        action: "game.automation",
        outcome: "succeeded",
        detail: {
          autoRefresh: true,
          pullPreviousMonth: false,
          pullCurrentMonthDaily: true,
          before,
        },
      },
    ]);
  });

  it("[admin] a post without the form marker changes nothing", async () => {
    actAs(await signInAs(t.db, "admin"));
    const result = await actions.saveAutomationAction(null, form({}));
    expect(result).toMatchObject({ ok: false, code: "INVALID_INPUT", fieldErrors: { form: expect.any(String) } });
    expect(await readGameAutomation(t.db, "a1")).toMatchObject({ autoRefresh: true });
  });

  it("[finance] queues a failed event again; a processed one cannot be", async () => {
    const delivered = await deliver(POST, { gameId: "a1", body: envelope({ gameId: "a1" }) });
    const id = delivered.body.id as string;
    await t.db
      .updateTable("webhook_event")
      .set({ status: "failed", last_error: "boom", attempts: 8 })
      .where("id", "=", id)
      .execute();

    actAs(await signInAs(t.db, "support"));
    expect(await actions.retryWebhookEventAction(null, form({ eventId: id }))).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
    });

    actAs(await signInAs(t.db, "finance"));
    expect(await actions.retryWebhookEventAction(null, form({ eventId: id }))).toMatchObject({ ok: true });
    const row = await t.db
      .selectFrom("webhook_event")
      .select(["status", "last_error", "attempts"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    // Every try again: with the 8 it had kept, one failure more would have failed it for good at once.
    expect(row).toEqual({ status: "pending", last_error: null, attempts: 0 });
    // Audited with the change, keeping the error and the tries the retry cleared.
    const audit = await t.db
      .selectFrom("audit_log")
      .select(["outcome", "detail"])
      .where("action", "=", "webhook.retry")
      .where("target", "=", id)
      .execute();
    expect(audit).toEqual([{ outcome: "queued", detail: { lastError: "boom", attempts: 8 } }]);

    // Queued again already (by a colleague, in another tab): refused, and the event's page is drawn again, showing it
    // pending rather than still offering "Process again".
    revalidatePath.mockClear();
    expect(await actions.retryWebhookEventAction(null, form({ eventId: id }))).toMatchObject({
      ok: false,
      code: "CONFLICT",
    });
    expect(revalidatePath).toHaveBeenCalledWith("/webhooks", "layout");
    expect(await actions.retryWebhookEventAction(null, form({ eventId: "not-an-id" }))).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { eventId: "must be a webhook event id" },
    });
  });
});
