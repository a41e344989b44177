import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db";
import { auditActorLabel, listAuditFacets, searchAuditEntries } from "@/db/queries/audit";
import { recordAudit } from "@/lib/audit";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  const actor = { id: "u1", email: "sam.support@payout-desk.test" };
  const rows: [string, string, string | null, string, string | null][] = [
    ["refund.request", "pending", "g1", "SUB_1_AAAAAAAA period 1", "pd-refund-1"],
    ["refund.call", "succeeded", "g1", "SUB_1_AAAAAAAA period 1", "pd-refund-1"],
    ["refund.call", "needs_attention", "g2", "SUB_2_BBBBBBBB period 3", "pd-refund-2"],
    ["subscription.cancel", "succeeded", "g1", "SUB_1_AAAAAAAA", null],
    ["settings.support_refund_limit", "succeeded", null, "refunds.support_limit_usd", null],
  ];
  for (const [action, outcome, gameId, target, key] of rows) {
    await recordAudit(t.db, {
      actor: action === "refund.call" && outcome === "needs_attention" ? null : actor,
      via: "web",
      action,
      outcome,
      gameId,
      target,
      idempotencyKey: key,
    });
  }
});
afterAll(async () => t?.drop());

describe("audit log", () => {
  it("cannot be updated, deleted or truncated through the app's database connection", async () => {
    const db = getDb();
    const before = await db.selectFrom("audit_log").select(["id", "outcome"]).orderBy("id").execute();
    expect(before.length).toBe(5);
    await expect(
      db.updateTable("audit_log").set({ outcome: "succeeded" }).where("outcome", "=", "needs_attention").execute(),
    ).rejects.toThrow(/append-only/);
    await expect(db.deleteFrom("audit_log").where("action", "=", "refund.request").execute()).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`truncate audit_log`.execute(db)).rejects.toThrow(/append-only/);
    expect(await db.selectFrom("audit_log").select(["id", "outcome"]).orderBy("id").execute()).toEqual(before);
  });

  it("offers every action, outcome and game the log holds, each once and in order, no game aside", async () => {
    expect(await listAuditFacets(getDb())).toEqual({
      actions: ["refund.call", "refund.request", "settings.support_refund_limit", "subscription.cancel"],
      outcomes: ["needs_attention", "pending", "succeeded"],
      games: ["g1", "g2"],
    });
  });

  it("filters by action family, outcome, game, actor, target, key and time, with a total for paging", async () => {
    const db = getDb();
    const page = { offset: 0, limit: 50 };
    expect((await searchAuditEntries(db, { action: "refund." }, page)).total).toBe(3);
    expect((await searchAuditEntries(db, { action: "refund.call" }, page)).total).toBe(2);
    expect((await searchAuditEntries(db, { outcome: "needs_attention" }, page)).rows.map((r) => r.gameId)).toEqual([
      "g2",
    ]);
    expect((await searchAuditEntries(db, { gameId: "g1" }, page)).total).toBe(3);
    expect((await searchAuditEntries(db, { actor: "system" }, page)).rows.map((r) => r.action)).toEqual([
      "refund.call",
    ]);
    expect((await searchAuditEntries(db, { actor: "SAM.support" }, page)).total).toBe(4);
    expect((await searchAuditEntries(db, { target: "aaaaaaaa period" }, page)).total).toBe(2);
    expect((await searchAuditEntries(db, { target: "%" }, page)).total).toBe(0);
    expect((await searchAuditEntries(db, { idempotencyKey: "pd-refund-1" }, page)).rows.map((r) => r.outcome)).toEqual([
      "succeeded",
      "pending",
    ]);
    const now = Date.now();
    expect(
      (await searchAuditEntries(db, { from: new Date(now - 60_000), to: new Date(now + 60_000) }, page)).total,
    ).toBe(5);
    expect((await searchAuditEntries(db, { to: new Date(now - 60_000) }, page)).total).toBe(0);
    const second = await searchAuditEntries(db, {}, { offset: 2, limit: 2 });
    expect(second.total).toBe(5);
    expect(second.rows.map((r) => r.action)).toEqual(["refund.call", "refund.call"]);
  });

  it("pages the log as it stood when opened: entries written meanwhile neither repeat nor skip a row", async () => {
    const db = getDb();
    const first = await searchAuditEntries(db, {}, { offset: 0, limit: 2 });
    expect(first.newer).toBe(0);
    // Two lines written while the list is open (a download of it writes two).
    for (const outcome of ["started", "succeeded"])
      await recordAudit(t.db, {
        actor: null,
        via: "web",
        action: "export.audit-log",
        outcome,
        gameId: null,
        target: null,
      });
    const second = await searchAuditEntries(db, { upToId: first.upToId ?? undefined }, { offset: 2, limit: 2 });
    const third = await searchAuditEntries(db, { upToId: first.upToId ?? undefined }, { offset: 4, limit: 2 });
    const ids = [...first.rows, ...second.rows, ...third.rows].map((r) => r.id);
    expect(new Set(ids).size).toBe(5);
    expect(second.total).toBe(5);
    expect(second.newer).toBe(2);
    // Opened afresh, the newest come first.
    const fresh = await searchAuditEntries(db, {}, { offset: 0, limit: 2 });
    expect(fresh.rows.map((r) => r.action)).toEqual(["export.audit-log", "export.audit-log"]);
    expect(fresh.total).toBe(7);
  });

  it("tells an operator's command on a server from Payout Desk's own lines", async () => {
    const db = getDb();
    const page = { offset: 0, limit: 50 };
    await recordAudit(t.db, { actor: null, via: "cli", action: "user.create", outcome: "succeeded", target: "u9" });
    const command = await searchAuditEntries(db, { actor: "command line" }, page);
    expect(command.rows.map((r) => r.action)).toEqual(["user.create"]);
    expect(command.rows.map(auditActorLabel)).toEqual([expect.stringMatching(/^command line/)]);
    const system = await searchAuditEntries(db, { actor: "system" }, page);
    expect(system.rows.map((r) => r.action)).toEqual(["export.audit-log", "export.audit-log", "refund.call"]);
    expect(system.rows.map(auditActorLabel)).toEqual(["system", "system", "system"]);
  });
});
