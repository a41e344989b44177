import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sql } from "kysely";
import { createDb } from "../../db";
import { stopBoss } from "../../lib/jobs/queue";
import { receiveWebhook } from "../../lib/webhooks/receive";
import { flushWebhookRefusals } from "../../lib/webhooks/refusal-counts";
import { computeSignature, signatureHeader } from "../../lib/webhooks/signature";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import {
  addGame,
  countsOf,
  CURRENT_SECRET,
  deliver,
  deliveryRequest,
  envelope,
  PREVIOUS_SECRET,
  refundedData,
  type RouteHandler,
  startWebhookInsertOutage,
} from "./support";

vi.mock("next/headers", () => import("../support/next-request"));

// Refusals are logged at warn: the tests read those lines to check that no body ever reaches the log.
process.env.LOG_LEVEL = "warn";

let t: TestDatabase;
let POST: RouteHandler;
/** Everything written to stderr (warn and error log lines) while the file runs. */
const logged: string[] = [];

beforeAll(async () => {
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    logged.push(String(chunk));
    return true;
  });
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, "g1");
  await addGame(t.db, "g2");
  await addGame(t.db, "nosecret", []);
  ({ POST } = (await import("../../app/api/webhooks/service/[gameId]/route")) as unknown as { POST: RouteHandler });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await stopBoss();
  await t?.drop();
});

async function eventRows(gameId: string) {
  return t.db.selectFrom("webhook_event").selectAll().where("game_id", "=", gameId).orderBy("id").execute();
}

/** Runs `fn` with Date.now() frozen, so a signature timestamp lands exactly where the test puts it. */
async function atFixedNow<T>(nowMs: number, fn: () => Promise<T>): Promise<T> {
  const spy = vi.spyOn(Date, "now").mockReturnValue(nowMs);
  try {
    return await fn();
  } finally {
    spy.mockRestore();
  }
}

describe("POST /api/webhooks/service/[gameId]", () => {
  it("is reachable without a session and says why", async () => {
    const route = (await import("../../app/api/webhooks/service/[gameId]/route")) as unknown as {
      POST: { requiredRole: string; publicReason: string };
    };
    expect(route.POST.requiredRole).toBe("public");
    expect(route.POST.publicReason).toMatch(/HMAC signature/);
  });

  it("stores a valid delivery with the headers that matter and queues its processing", async () => {
    const body = envelope({ gameId: "g1", eventId: "evt_valid_1" });
    const sent = Math.floor(Date.now() / 1000);
    const request = deliveryRequest({
      body,
      idempotencyKey: "idem_valid_1",
      t: sent,
      headers: { "x-service-event-id": "evh_valid_1" },
    });
    const response = await POST(request, { params: Promise.resolve({ gameId: "g1" }) });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { status: string; id: string };
    expect(answer.status).toBe("accepted");

    const [row] = (await eventRows("g1")).filter((r) => r.idempotency_key === "idem_valid_1");
    expect(row).toMatchObject({
      event_id: "evt_valid_1",
      event_type: "subscription.canceled",
      delivery_id: "evh_valid_1",
      secret_version: "v2",
      signed_with: "current",
      subscription_id: "SUB_1767225600_AAAA0001",
      status: "pending",
      body,
    });
    expect(row?.signature_timestamp.getTime()).toBe(sent * 1000);
    expect(row?.occurred_at?.toISOString()).toBe("2026-06-01T00:00:00.000Z");

    // Processing is asked of a drain job, which takes every pending event (one waits for a whole burst).
    const jobs = await sql<{
      state: string;
    }>`select state from pgboss.job where name = 'webhooks.drain'`.execute(t.db);
    expect(jobs.rows.map((j) => j.state)).toContain("created");
  });

  it("refuses a re-serialised body, and stores nothing", async () => {
    const body = envelope({ gameId: "g1", eventId: "evt_reserialised" });
    const t0 = Math.floor(Date.now() / 1000);
    const signature = signatureHeader(body, t0, [CURRENT_SECRET]);
    const reserialised = JSON.stringify(JSON.parse(body), null, 1);
    const result = await deliver(POST, { body: reserialised, signature });
    expect(result).toMatchObject({ status: 401, body: { error: { code: "signature_mismatch" } } });
    expect((await eventRows("g1")).some((r) => r.event_id === "evt_reserialised")).toBe(false);
  });

  it("refuses a delivery signed with a wrong secret", async () => {
    const result = await deliver(POST, {
      body: envelope({ gameId: "g1", eventId: "evt_wrong" }),
      secrets: ["whsec_not_ours"],
    });
    expect(result).toMatchObject({ status: 401, body: { error: { code: "signature_mismatch" } } });
    expect((await eventRows("g1")).some((r) => r.event_id === "evt_wrong")).toBe(false);
  });

  it("accepts the previous secret during a rotation and records which one matched", async () => {
    const result = await deliver(POST, {
      body: envelope({ gameId: "g1", eventId: "evt_previous" }),
      secrets: [PREVIOUS_SECRET],
    });
    expect(result).toMatchObject({ status: 200, body: { status: "accepted" } });
    const row = (await eventRows("g1")).find((r) => r.event_id === "evt_previous");
    expect(row?.signed_with).toBe("previous");
  });

  it("accepts two v1 values when one is valid", async () => {
    const body = envelope({ gameId: "g1", eventId: "evt_two_v1" });
    const t0 = Math.floor(Date.now() / 1000);
    const rotatedAway = computeSignature(body, t0, "whsec_rotated_away");
    const signature = `t=${t0},v1=${rotatedAway},v1=${computeSignature(body, t0, CURRENT_SECRET)}`;
    expect(await deliver(POST, { body, signature })).toMatchObject({ status: 200, body: { status: "accepted" } });
  });

  it.each([
    ["v1= empty", (t0: number) => `t=${t0},v1=`],
    ["v1 not hex", (t0: number) => `t=${t0},v1=${"g".repeat(64)}`],
    ["t missing", () => `v1=${"a".repeat(64)}`],
    ["t not a number", () => `t=now,v1=${"a".repeat(64)}`],
    ["garbage", () => "\u00ff\u00fe;;=,,"],
  ])("answers 400, never 500, to a malformed signature header (%s)", async (_name, make) => {
    const eventId = `evt_malformed_${_name.replace(/\W/g, "")}`;
    const result = await deliver(POST, {
      body: envelope({ gameId: "g1", eventId }),
      signature: make(Math.floor(Date.now() / 1000)),
    });
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe("signature_malformed");
    expect((await eventRows("g1")).some((r) => r.event_id === eventId)).toBe(false);
  });

  it("answers 400 when the signature or the idempotency key header is missing", async () => {
    expect(await deliver(POST, { body: envelope({ gameId: "g1" }), signature: null })).toMatchObject({
      status: 400,
      body: { error: { code: "signature_missing" } },
    });
    expect(await deliver(POST, { body: envelope({ gameId: "g1" }), idempotencyKey: null })).toMatchObject({
      status: 400,
      body: { error: { code: "idempotency_key_missing" } },
    });
  });

  it.each([
    [-299, 200, null],
    [299, 200, null],
    [-301, 401, "timestamp_too_old"],
    [301, 401, "timestamp_in_future"],
  ])("a signature timestamp %i s from now answers %i", async (offset, status, code) => {
    const nowMs = 1_790_000_000_500;
    const eventId = `evt_ts_${offset}`;
    const result = await atFixedNow(nowMs, () =>
      deliver(POST, { body: envelope({ gameId: "g1", eventId }), t: Math.floor(nowMs / 1000) + offset }),
    );
    expect(result.status).toBe(status);
    if (code) expect(result.body.error.code).toBe(code);
    expect((await eventRows("g1")).some((r) => r.event_id === eventId)).toBe(status === 200);
  });

  it("answers a duplicate idempotency key with 2xx and changes nothing", async () => {
    const body = envelope({ gameId: "g2", eventId: "evt_dup" });
    const first = await deliver(POST, { gameId: "g2", body, idempotencyKey: "idem_dup" });
    expect(first).toMatchObject({ status: 200, body: { status: "accepted" } });
    const before = await eventRows("g2");

    // A retry (new delivery id) and a replay of a different body under the same key.
    const retry = await deliver(POST, { gameId: "g2", body, idempotencyKey: "idem_dup" });
    const other = await deliver(POST, {
      gameId: "g2",
      body: envelope({ gameId: "g2", eventId: "evt_dup_other" }),
      idempotencyKey: "idem_dup",
    });
    expect(retry).toMatchObject({ status: 200, body: { status: "duplicate" } });
    expect(other).toMatchObject({ status: 200, body: { status: "duplicate" } });

    expect(await eventRows("g2")).toEqual(before);
    expect(await countsOf(t.db, "g2")).toMatchObject({ accepted: 1, duplicate: 2 });
  });

  it("stores one event when the same event arrives under a second key", async () => {
    const body = envelope({ gameId: "g2", eventId: "evt_two_keys" });
    await deliver(POST, { gameId: "g2", body, idempotencyKey: "idem_key_a" });
    const second = await deliver(POST, { gameId: "g2", body, idempotencyKey: "idem_key_b" });
    expect(second).toMatchObject({ status: 200, body: { status: "duplicate" } });
    expect((await eventRows("g2")).filter((r) => r.event_id === "evt_two_keys")).toHaveLength(1);
  });

  it("stores one event from ten identical deliveries in parallel", async () => {
    await addGame(t.db, "g-parallel");
    const body = envelope({ gameId: "g-parallel", eventId: "evt_parallel" });
    const t0 = Math.floor(Date.now() / 1000);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        deliver(POST, { gameId: "g-parallel", body, t: t0, idempotencyKey: "idem_parallel" }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.filter((r) => r.body.status === "accepted")).toHaveLength(1);
    expect(results.filter((r) => r.body.status === "duplicate")).toHaveLength(9);
    expect(await eventRows("g-parallel")).toHaveLength(1);
    expect(await countsOf(t.db, "g-parallel")).toEqual({ accepted: 1, duplicate: 9 });
  });

  it("refuses a 2 MB body with 413, whether or not Content-Length says so", async () => {
    await addGame(t.db, "g-big");
    const padding = "x".repeat(2 * 1024 * 1024);
    const body = envelope({
      gameId: "g-big",
      data: { subscription_id: "SUB_1767225600_AAAA0001", access_until: null, padding },
    });
    const declared = await deliver(POST, {
      gameId: "g-big",
      body,
      headers: { "content-length": String(Buffer.byteLength(body)) },
    });
    expect(declared).toMatchObject({ status: 413, body: { error: { code: "body_too_large" } } });
    const streamed = await deliver(POST, { gameId: "g-big", body });
    expect(streamed).toMatchObject({ status: 413, body: { error: { code: "body_too_large" } } });
    expect(await eventRows("g-big")).toHaveLength(0);
    await flushWebhookRefusals();
    expect(await countsOf(t.db, "g-big")).toEqual({ "refused:body_too_large": 2 });
  });

  it("accepts a body just under 1 MB", async () => {
    await addGame(t.db, "g-near");
    const base = envelope({ gameId: "g-near", data: { subscription_id: "SUB_1", access_until: null, padding: "" } });
    const padding = "y".repeat(1_048_576 - Buffer.byteLength(base));
    const body = base.replace('"padding":""', `"padding":"${padding}"`);
    expect(Buffer.byteLength(body)).toBe(1_048_576);
    expect(await deliver(POST, { gameId: "g-near", body })).toMatchObject({
      status: 200,
      body: { status: "accepted" },
    });
  });

  it(
    "refuses unknown games (answered like a bad signature), " +
      "other tenants' events, bodies that are not an envelope",
    async () => {
      expect(await deliver(POST, { gameId: "no-such-game", body: envelope({ gameId: "no-such-game" }) })).toMatchObject(
        {
          status: 401,
          body: { error: { code: "signature_mismatch" } },
        },
      );
      expect(await deliver(POST, { gameId: "../etc", body: "{}" })).toMatchObject({ status: 401 });
      expect(await deliver(POST, { gameId: "g1", body: envelope({ gameId: "g2" }) })).toMatchObject({
        status: 400,
        body: { error: { code: "tenant_mismatch" } },
      });
      expect(await deliver(POST, { gameId: "g1", body: "not json" })).toMatchObject({
        status: 400,
        body: { error: { code: "body_not_json" } },
      });
      // JSON nested 20,000 deep (40 kB, within the size limit): refused as malformed, not a 500 at every retry.
      const deep = envelope({ gameId: "g1" }).replace('"data":{', `"data":{"m":${"[".repeat(2e4)}${"]".repeat(2e4)},`);
      const refused = await deliver(POST, { gameId: "g1", body: deep });
      expect(refused).toMatchObject({ status: 400, body: { error: { code: "body_too_deep" } } });
      expect(
        await deliver(POST, { gameId: "g1", body: JSON.stringify({ event_type: "x", tenant_id: "g1" }) }),
      ).toMatchObject({
        status: 400,
        body: { error: { code: "envelope_invalid" } },
      });
      // An event id that could not tell the event apart (empty, or longer than is kept) is refused, not cut.
      for (const eventId of ["", `evt_${"x".repeat(252)}`]) {
        expect(await deliver(POST, { gameId: "g1", body: envelope({ gameId: "g1", eventId }) })).toMatchObject({
          status: 400,
          body: { error: { code: "envelope_invalid" } },
        });
      }
      // A game without a signing secret is answered like any signature that does not verify: nothing tells a caller
      // how a game is configured.
      expect(await deliver(POST, { gameId: "nosecret", body: envelope({ gameId: "nosecret" }) })).toMatchObject({
        status: 401,
        body: { error: { code: "signature_mismatch" } },
      });
    },
  );

  it("stores unknown event types and known types whose data it cannot read", async () => {
    await addGame(t.db, "g-odd");
    const unknown = envelope({
      gameId: "g-odd",
      type: "purchase.fraud_warning",
      data: { order_id: "ord_1", usd_amount: "9.99" },
    });
    expect(await deliver(POST, { gameId: "g-odd", body: unknown })).toMatchObject({
      status: 200,
      body: { status: "accepted" },
    });
    const odd = envelope({
      gameId: "g-odd",
      type: "subscription.refunded",
      data: { subscription_id: "SUB_1", amount_usd: 5 },
    });
    expect(await deliver(POST, { gameId: "g-odd", body: odd })).toMatchObject({
      status: 200,
      body: { status: "accepted" },
    });
    const rows = await eventRows("g-odd");
    expect(rows.map((r) => [r.event_type, r.status])).toEqual([
      ["purchase.fraud_warning", "pending"],
      ["subscription.refunded", "unprocessable"],
    ]);
    expect(rows[1]?.parse_issues).toEqual(expect.arrayContaining([expect.stringMatching(/^data\.amount_usd/)]));
  });

  it("keeps the client_request_id of a refund so it can be joined to the refund attempt", async () => {
    const body = envelope({
      gameId: "g1",
      type: "subscription.refunded",
      eventId: "evt_refund_link",
      data: refundedData(),
    });
    expect(await deliver(POST, { body })).toMatchObject({ status: 200 });
    const row = (await eventRows("g1")).find((r) => r.event_id === "evt_refund_link");
    expect(row).toMatchObject({ client_request_id: "pd-refund-1", subscription_id: "SUB_1767225600_AAAA0002" });
  });

  it("counts refusals by reason and logs them without the body", async () => {
    await addGame(t.db, "g-log");
    const from = logged.length;
    const secretBody = envelope({
      gameId: "g-log",
      data: { subscription_id: "SUB_SECRET_MARKER_1", access_until: null },
    });
    await deliver(POST, { gameId: "g-log", body: secretBody, secrets: ["whsec_not_ours"] });
    await deliver(POST, { gameId: "g-log", body: secretBody, signature: "t=1,v1=" });
    const lines = logged.slice(from).join("");
    expect(lines).toContain("webhook refused");
    expect(lines).not.toContain("SUB_SECRET_MARKER_1");
    expect(lines).not.toContain(CURRENT_SECRET);
    await flushWebhookRefusals();
    expect(await countsOf(t.db, "g-log")).toEqual({
      "refused:signature_mismatch": 1,
      "refused:signature_malformed": 1,
    });
    expect(await eventRows("g-log")).toHaveLength(0);
  });

  it("answers 503 when the database cannot be reached, so the service retries", async () => {
    const down = createDb("postgres://nobody:nothing@127.0.0.1:1/none", { max: 1 });
    try {
      const response = await receiveWebhook(deliveryRequest({ body: envelope({ gameId: "g1" }) }), "g1", { db: down });
      expect(response.status).toBe(503);
    } finally {
      await down.destroy();
    }
  });

  it("answers 503 when the insert fails, and stores the event on the retry", async () => {
    await addGame(t.db, "g-outage");
    const outage = await startWebhookInsertOutage(t.db);
    try {
      const body = envelope({ gameId: "g-outage", eventId: "evt_outage" });
      const first = await deliver(POST, { gameId: "g-outage", body, idempotencyKey: "idem_outage" });
      expect(first.status).toBe(503);
      expect(await eventRows("g-outage")).toHaveLength(0);
      await outage.end();
      const retry = await deliver(POST, { gameId: "g-outage", body, idempotencyKey: "idem_outage" });
      expect(retry).toMatchObject({ status: 200, body: { status: "accepted" } });
      expect(await eventRows("g-outage")).toHaveLength(1);
    } finally {
      await sql`drop trigger outage on webhook_event`.execute(t.db);
    }
  });
});
