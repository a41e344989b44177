import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExport } from "@/lib/exports/run";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { addGame, insertSnapshot } from "./fixture";
import { type DeskRun, runDesk } from "../support/desk";

let t: TestDatabase;
let dir: string;
let snapshotId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-export-"));
  await addGame(t.db, "exp-cli");
  snapshotId = await insertSnapshot(t.db, {
    gameId: "exp-cli",
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    recipients: [{ id: 1, name: '=HYPERLINK("http://x","y")', email: "a@example.test" }],
    lines: [
      { periodId: 1, recipientId: 1, paidAt: "2026-03-02T00:00:00Z", amountUsd: "-3.10", attributedUsd: "-0.56" },
      { periodId: 2, recipientId: 1, paidAt: "2026-03-03T00:00:00Z", amountUsd: "10.00", attributedUsd: "1.80" },
    ],
  });
});
afterAll(async () => {
  await t?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function desk(...args: string[]): Promise<DeskRun> {
  return runDesk(t.url, args);
}

describe("npm run desk -- export", () => {
  it("writes the same bytes as the app's export and records an audit entry made by the CLI", async () => {
    const out = path.join(dir, "lines.csv");
    const result = await desk("export", "--snapshot", snapshotId, "--kind", "lines", "--out", out, "--bom");
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      file: string;
      rows: number;
      bytes: number;
      sha256: string;
      exportId: string;
    };
    expect(summary).toMatchObject({ file: out, rows: 2, kind: "lines" });

    const written = await readFile(out);
    const started = await startExport(t.db, { kind: "lines", snapshotId, bom: true, actor: null, via: "web" });
    const chunks: Buffer[] = [];
    for await (const chunk of started.chunks) chunks.push(chunk);
    expect(written.equals(Buffer.concat(chunks))).toBe(true);
    expect(written.toString("utf8")).toContain(`'=HYPERLINK(""http://x"",""y"")`);
    expect(written.toString("utf8")).toContain(",-3.10,");

    const audit = await t.db
      .selectFrom("audit_log")
      .selectAll()
      .where("idempotency_key", "=", summary.exportId)
      .orderBy("id")
      .execute();
    expect(audit.map((a) => a.outcome)).toEqual(["started", "succeeded"]);
    expect(audit[1]).toMatchObject({
      actor_id: null,
      actor_email: null,
      action: "export.lines",
      game_id: "exp-cli",
      target: snapshotId,
    });
    expect(audit[1]!.detail).toMatchObject({
      via: "cli",
      rows: 2,
      bytes: written.length,
      sha256: summary.sha256,
      bom: true,
    });
  });

  it.each([
    [["export", "--kind", "lines", "--out", "x.csv"], "--snapshot"],
    [["export", "--snapshot", "abc", "--kind", "lines", "--out", "x.csv"], "--snapshot"],
    [["export", "--snapshot", "0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11", "--kind", "ledger", "--out", "x.csv"], "--kind"],
    [["export", "--snapshot", "0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11", "--kind", "lines"], "--out"],
  ])("refuses %j naming %s, with exit code 2", async (args, flag) => {
    const result = await desk(...args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(flag);
  });

  it("a snapshot that does not exist fails with one line, and leaves no file behind", async () => {
    const out = path.join(dir, "missing.csv");
    const result = await desk(
      "export",
      "--snapshot",
      "0f8c3a52-5b1e-4c7e-9a57-2f4f1a8d6c11",
      "--kind",
      "reversals",
      "--out",
      out,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^desk export: --snapshot: No snapshot 0f8c3a52/);
    expect((await readdir(dir)).filter((f) => f.includes("missing"))).toEqual([]);
  });
});
