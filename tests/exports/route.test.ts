import { createHash } from "node:crypto";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/api/exports/[kind]/route";
import { linesExport } from "@/lib/exports/lines";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { actAnonymously, actAs } from "../support/next-request";
import { SLACK } from "../support/slack";
import { signInAs } from "../support/users";
import { addGame, insertSnapshot, type LineInput } from "./fixture";

vi.mock("next/headers", () => import("../support/next-request"));
vi.mock("next/headers.js", () => import("../support/next-request"));

const GAME = "exp-a";
const OTHER_GAME = "exp-z";
let t: TestDatabase;
let snapshotId: string;
let otherSnapshotId: string;
const sessions: Record<string, string[]> = {};
let financeEmail = "";

function lines(count: number, firstId: number): LineInput[] {
  return Array.from({ length: count }, (_, i) => ({
    periodId: firstId + i,
    recipientId: 700 + (i % 7),
    paidAt: new Date(Date.UTC(2026, 2, 1) + i * 60_000).toISOString(),
    amountUsd: "9.99",
    attributedUsd: "1.80",
  }));
}

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
  await addGame(t.db, OTHER_GAME);
  const recipients = Array.from({ length: 7 }, (_, i) => ({
    id: 700 + i,
    name: `Creator ${i}`,
    email: `c${i}@example.test`,
  }));
  // More lines than one page of the keyset reader (5,000), so paging and prefetching are exercised.
  snapshotId = await insertSnapshot(t.db, {
    gameId: GAME,
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    version: 3,
    recipients,
    lines: lines(12_345, 1),
  });
  otherSnapshotId = await insertSnapshot(t.db, {
    gameId: OTHER_GAME,
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    recipients,
    lines: lines(3, 1),
  });
  for (const role of ["viewer", "support", "finance", "admin"] as const) {
    const email = `${role}-export@payout-desk.test`;
    sessions[role] = await signInAs(t.db, role, email);
    if (role === "finance") financeEmail = email;
  }
});
afterAll(async () => t?.drop());

function get(kind: string, query: string, init?: RequestInit): Promise<Response> {
  return GET(new Request(`http://localhost:3000/api/exports/${kind}?${query}`, init), {
    params: Promise.resolve({ kind }),
  });
}

async function auditOf(exportId: string) {
  return t.db.selectFrom("audit_log").selectAll().where("idempotency_key", "=", exportId).orderBy("id").execute();
}

describe("GET /api/exports/[kind]", () => {
  it("[finance] refuses a download whose page showed another game than the one selected now, saying so", async () => {
    actAs(sessions.finance!);
    expect((await get("reversals", `snapshot=${snapshotId}&game=${GAME}`)).status).toBe(200);
    const script = await get("reversals", `snapshot=${snapshotId}&game=${OTHER_GAME}`);
    expect(script.status).toBe(409);
    expect(await script.json()).toMatchObject({
      error: { code: "CONFLICT", message: expect.stringMatching(/^The game was switched in another tab/) },
    });
    const browser = await get("reversals", `snapshot=${snapshotId}&game=${OTHER_GAME}`, {
      headers: { accept: "text/html", "sec-fetch-mode": "navigate" },
    });
    expect(browser.status).toBe(303);
    expect(browser.headers.get("location")).toBe(`/download-refused?game=${OTHER_GAME}`);
  });

  it("[viewer] [support] are refused; anonymous callers must sign in; nothing is audited", async () => {
    const before = await t.db
      .selectFrom("audit_log")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("action", "like", "export.%")
      .executeTakeFirstOrThrow();
    actAnonymously();
    expect((await get("lines", `snapshot=${snapshotId}`)).status).toBe(401);
    for (const role of ["viewer", "support"]) {
      actAs(sessions[role]!);
      const response = await get("lines", `snapshot=${snapshotId}`);
      expect(response.status, role).toBe(403);
      expect(response.headers.get("content-disposition")).toBeNull();
    }
    const after = await t.db
      .selectFrom("audit_log")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("action", "like", "export.%")
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it(
    "[finance] downloads a streamed attachment and the audit " +
      "log records who, what, when, rows and the file's hash",
    async () => {
      actAs(sessions.finance!);
      const response = await get("lines", `snapshot=${snapshotId}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(response.headers.get("content-disposition")).toBe(
        'attachment; filename="exp-a_lines_2026-03-01_2026-04-01_v3.csv"',
      );
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.body).toBeInstanceOf(ReadableStream);
      const exportId = response.headers.get("x-export-id")!;
      const body = Buffer.from(await response.arrayBuffer());
      const rows = parse(body, { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(12_345);
      expect(new Set(rows.map((r) => r.period_id)).size).toBe(12_345);
      expect(rows.at(-1)!.period_id).toBe("12345");

      const audit = await auditOf(exportId);
      expect(audit.map((a) => a.outcome)).toEqual(["started", "succeeded"]);
      for (const entry of audit) {
        expect(entry).toMatchObject({
          actor_email: financeEmail,
          action: "export.lines",
          game_id: GAME,
          target: snapshotId,
        });
        expect(entry.at).toBeInstanceOf(Date);
      }
      expect(audit[1]!.detail).toMatchObject({
        kind: "lines",
        via: "web",
        rows: 12_345,
        bytes: body.length,
        sha256: createHash("sha256").update(body).digest("hex"),
        snapshot_version: 3,
        window_start: "2026-03-01T00:00:00Z",
      });
    },
  );

  it("[admin] may export too (a role above finance)", async () => {
    actAs(sessions.admin!);
    const response = await get("reversals", `snapshot=${snapshotId}&bom=1`);
    expect(response.status).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    // No reversals in this snapshot: the file still has its header row, so an import sees the columns.
    expect(bytes.subarray(3).toString("utf8")).toMatch(/^snapshot_id,recipient_player_id,.*,note\r\n$/);
  });

  it("[finance] refuses bad input with the field named, and never serves another game's snapshot", async () => {
    actAs(sessions.finance!);
    const cases: [string, string, number, string][] = [
      ["ledger", `snapshot=${snapshotId}`, 400, "kind"],
      ["lines", "snapshot=not-an-id", 400, "snapshot"],
      ["lines", "", 400, "snapshot"],
      ["lines", `snapshot=${snapshotId}&batch=${snapshotId}`, 400, "snapshot"],
      ["lines", `snapshot=${snapshotId}&bom=yes`, 400, "bom"],
      ["lines", `snapshot=${otherSnapshotId}`, 404, "No snapshot"],
      ["payouts", `snapshot=${snapshotId}`, 404, "No payout batch"],
      ["journal", `batch=${snapshotId}`, 404, "No payout batch"],
    ];
    for (const [kind, query, status, message] of cases) {
      const response = await get(kind, query);
      expect(response.status, `${kind}?${query}`).toBe(status);
      const body = (await response.json()) as { error: { message: string } };
      expect(body.error.message, `${kind}?${query}`).toContain(message);
    }
  });

  it("[finance] a download cancelled half way stops reading and is audited as aborted", async () => {
    actAs(sessions.finance!);
    const response = await get("lines", `snapshot=${snapshotId}`);
    const exportId = response.headers.get("x-export-id")!;
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    await reader.cancel();
    await vi.waitFor(
      async () => expect((await auditOf(exportId)).map((a) => a.outcome)).toEqual(["started", "aborted"]),
      { timeout: 10_000 * SLACK },
    );
    const detail = (await auditOf(exportId))[1]!.detail as { rows: number };
    expect(detail.rows).toBeLessThan(12_345);
  });

  it("[finance] a client gone before its body is read (gone early, or a HEAD) holds no reading", async () => {
    actAs(sessions.finance!);
    const exportsStarted = async () =>
      (await t.db.selectFrom("audit_log").select("id").where("action", "like", "export.%").execute()).length;
    // HEAD would run the download and drop its body unread, so nothing would ever end it: it is not answered.
    const before = await exportsStarted();
    const head = await get("lines", `snapshot=${snapshotId}`, { method: "HEAD" });
    expect(head.status).toBe(405);
    expect(head.headers.get("allow")).toBe("GET");
    expect(await exportsStarted()).toBe(before);
    // A client gone while the first chunk was read, and one gone after the answer began but before reading a byte
    // (nothing would cancel a body never sent): both readings end, audited as aborted. More of them than the reading
    // slots, and a download after them still gets one.
    for (let i = 0; i < 6; i++) {
      const client = new AbortController();
      if (i % 2 === 0) client.abort();
      const response = await get("lines", `snapshot=${snapshotId}`, { signal: client.signal });
      client.abort();
      const exportId = response.headers.get("x-export-id")!;
      await vi.waitFor(
        async () => expect((await auditOf(exportId)).map((a) => a.outcome)).toEqual(["started", "aborted"]),
        { timeout: 10_000 * SLACK },
      );
    }
    const after = await get("lines", `snapshot=${snapshotId}`);
    expect(parse(Buffer.from(await after.arrayBuffer()).toString("utf8"))).toHaveLength(12_346);
  });

  it(
    "[finance] a read failing half way is audited as failed " + "and breaks the download instead of ending it cleanly",
    async () => {
      actAs(sessions.finance!);
      const spy = vi.spyOn(linesExport, "pages").mockImplementation(async function* () {
        // More than the output buffer holds, so the download is under way when the next page fails.
        yield Array.from({ length: 3_000 }, (_, i) => ({
          snapshot_id: snapshotId,
          period_id: String(i + 1),
          amount_usd: "1.00",
        }));
        throw new Error("connection lost");
      });
      try {
        const response = await get("lines", `snapshot=${snapshotId}`);
        expect(response.status).toBe(200);
        const exportId = response.headers.get("x-export-id")!;
        await expect(response.arrayBuffer()).rejects.toThrow();
        const audit = await auditOf(exportId);
        expect(audit.map((a) => a.outcome)).toEqual(["started", "failed"]);
        expect(audit[1]!.detail).toMatchObject({ rows: 3_000, error: "connection lost" });
      } finally {
        spy.mockRestore();
      }
    },
  );

  it("[finance] a read failing before the first byte answers 500, not an empty 200", async () => {
    actAs(sessions.finance!);
    // biome-ignore lint/correctness/useYield: a read that fails before its first page is the case under test.
    const spy = vi.spyOn(linesExport, "pages").mockImplementation(async function* () {
      throw new Error("relation missing");
    });
    try {
      const response = await get("lines", `snapshot=${snapshotId}`);
      expect(response.status).toBe(500);
      expect(response.headers.get("content-disposition")).toBeNull();
      const failed = await t.db
        .selectFrom("audit_log")
        .select(["outcome", "detail"])
        .where("action", "=", "export.lines")
        .orderBy("id", "desc")
        .executeTakeFirstOrThrow();
      expect(failed).toMatchObject({ outcome: "failed", detail: { rows: 0, error: "relation missing" } });
    } finally {
      spy.mockRestore();
    }
  });
});
