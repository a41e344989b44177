import { readdirSync } from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../db/migrations";
import { createTestDatabase, type TestDatabase } from "../support/db";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

describe("migrations", () => {
  it("registers every migration file of db/migrations", () => {
    const files = readdirSync(path.resolve(import.meta.dirname, "../../db/migrations"))
      .filter((f) => /^\d{4}_\d{2}_\d{2}_\d{4}_.+\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ""));
    expect(Object.keys(MIGRATIONS).sort()).toEqual(files.sort());
  });

  it("keeps the audit log append-only, even for the owner", async () => {
    await t.db.insertInto("audit_log").values({ action: "test", outcome: "ok", detail: "{}" }).execute();
    await expect(t.db.updateTable("audit_log").set({ outcome: "changed" }).execute()).rejects.toThrow(/append-only/);
    await expect(t.db.deleteFrom("audit_log").execute()).rejects.toThrow(/append-only/);
    await expect(sql`truncate audit_log`.execute(t.db)).rejects.toThrow(/append-only/);
    const rows = await t.db.selectFrom("audit_log").select("outcome").execute();
    expect(rows).toEqual([{ outcome: "ok" }]);
  });
});
