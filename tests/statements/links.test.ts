import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET, HEAD } from "@/app/api/statement-links/[token]/route";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { whileInsertsRefused } from "../support/refused-inserts";
import { readKeyring } from "@/lib/crypto";
import { namedKey, sealingKey } from "@/lib/keys/check";
import {
  readStatementLink,
  revokeStatementLinks,
  signStatementLink,
  statementLinkUrl as linkUrl,
} from "@/lib/statements/links";
import { pruneLinkDownloads } from "@/db/queries/statement-links";
import { LINK_DOWNLOADS_PER_HOUR } from "@/lib/statements/link-download";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";
import { statementFixture } from "./fixture";

const GAME = "stmt-link";
let t: TestDatabase;
let batchId: string;
let februaryBatch: string;
let statementIds: string[];
const acting = { actor: { id: "u-fin", email: "finance@payout-desk.test" }, via: "web" as const };

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  ({ marchBatch: batchId, marchStatements: statementIds, februaryBatch } = await statementFixture(t.db, GAME));
});
afterAll(async () => t?.drop());

async function follow(token: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await GET(new Request(`http://localhost:3000/api/statement-links/${token}`), {
    params: Promise.resolve({ token }),
  });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** A link signed under this process's key, as a send signs it. */
function statementLinkUrl(statementId: string, days: number, now?: number): string {
  return linkUrl(statementId, days, readKeyring().current, now);
}

function tokenOf(url: string): string {
  return url.split("/api/statement-links/")[1] ?? "";
}

describe("signed statement links", () => {
  let refusal: { status: number; body: Buffer };

  beforeAll(async () => {
    refusal = await follow(
      signStatementLink("00000000-0000-4000-8000-000000000000", {
        issuedAt: Date.now(),
        expiresAt: Date.now() + 60_000,
        master: readKeyring().current,
      }),
    );
  });

  it("refuses a link to a statement that does not exist", () => {
    expect(refusal.status).toBe(404);
    expect(refusal.body.toString()).toBe('{"error":{"code":"NOT_FOUND","message":"No such statement."}}');
  });

  it("serves exactly the linked statement, and audits the download", async () => {
    const served = await follow(tokenOf(statementLinkUrl(statementIds[2] ?? "", 30)));
    expect(served.status).toBe(200);
    expect(served.type).toBe("application/pdf");
    const direct = await follow(tokenOf(statementLinkUrl(statementIds[2] ?? "", 30)));
    expect(direct.body.equals(served.body)).toBe(true);
    const other = await follow(tokenOf(statementLinkUrl(statementIds[1] ?? "", 30)));
    expect(other.body.equals(served.body)).toBe(false);
    const audits = await t.db
      .selectFrom("audit_log")
      .select(["target", "actor_email"])
      .where("action", "=", "statement.link.download")
      .execute();
    expect(audits.map((a) => a.target)).toEqual([statementIds[2], statementIds[2], statementIds[1]]);
    expect(audits.every((a) => a.actor_email === null)).toBe(true);
  });

  it("answers a link's head from the link alone: no download counted or audited", async () => {
    await t.db.deleteFrom("statement_link_download").execute();
    const auditsBefore = await t.db.selectFrom("audit_log").select("id").execute();
    const head = (token: string) =>
      HEAD(new Request(`http://localhost:3000/api/statement-links/${token}`, { method: "HEAD" }), {
        params: Promise.resolve({ token }),
      });
    const token = tokenOf(statementLinkUrl(statementIds[0] ?? "", 30));
    for (let i = 0; i <= LINK_DOWNLOADS_PER_HOUR; i += 1) {
      const answer = await head(token);
      expect([answer.status, answer.headers.get("content-type"), await answer.text()]).toEqual([
        200,
        "application/pdf",
        "",
      ]);
    }
    expect((await head(`${token.slice(0, -2)}xx`)).status).toBe(404);
    expect(await t.db.selectFrom("statement_link_download").select("statement_id").execute()).toEqual([]);
    expect(await t.db.selectFrom("audit_log").select("id").execute()).toHaveLength(auditsBefore.length);
    // The statement is still there to download.
    expect((await follow(token)).status).toBe(200);
  });

  it("refuses a statement's downloads past an hour's limit, whichever its link, until the hour is over", async () => {
    await t.db.deleteFrom("statement_link_download").execute();
    const id = statementIds[1] ?? "";
    const audited = () =>
      t.db
        .selectFrom("audit_log")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("action", "=", "statement.link.download")
        .where("target", "=", id)
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n));
    const auditedBefore = await audited();
    // Two links of the same statement share its limit.
    const links = [tokenOf(statementLinkUrl(id, 30)), tokenOf(statementLinkUrl(id, 7))];
    for (let i = 0; i < LINK_DOWNLOADS_PER_HOUR; i++) expect((await follow(links[i % 2] ?? "")).status).toBe(200);
    const response = await GET(new Request(`http://localhost:3000/api/statement-links/${links[0]}`), {
      params: Promise.resolve({ token: links[0] ?? "" }),
    });
    expect(response.status).toBe(429);
    const retryAfter = Number(response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await response.json()).toEqual({
      error: {
        code: "TOO_MANY_DOWNLOADS",
        message: "This statement was downloaded too many times in the last hour. Try again later.",
      },
    });
    expect((await follow(links[1] ?? "")).status).toBe(429);
    // A head says the same, without counting.
    const head = await HEAD(new Request(`http://localhost:3000/api/statement-links/${links[0]}`, { method: "HEAD" }), {
      params: Promise.resolve({ token: links[0] ?? "" }),
    });
    expect([head.status, Number(head.headers.get("retry-after")) >= 1]).toEqual([429, true]);
    // Refused downloads render nothing and write no audit line.
    expect(await audited()).toBe(auditedBefore + LINK_DOWNLOADS_PER_HOUR);
    // Another statement is not held back.
    expect((await follow(tokenOf(statementLinkUrl(statementIds[2] ?? "", 30)))).status).toBe(200);
    // Once the hour is over (both counts moved an hour back), the statement opens again and its count starts afresh;
    // the other statement's count, whose hour is over, is pruned.
    await t.db.updateTable("statement_link_download").set({ since: sql<Date>`since - interval '1 hour'` }).execute();
    expect((await follow(links[0] ?? "")).status).toBe(200);
    expect(await pruneLinkDownloads(t.db)).toBe(1);
    const left = await t.db.selectFrom("statement_link_download").select(["statement_id", "downloads"]).execute();
    expect(left).toEqual([{ statement_id: id, downloads: 1 }]);
  });

  it("refuses tampered, expired and malformed links with the same answer", async () => {
    const token = tokenOf(statementLinkUrl(statementIds[0] ?? "", 30));
    const [body, mac] = token.split(".") as [string, string];
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
    const other = tokenOf(statementLinkUrl(statementIds[1] ?? "", 30));
    const candidates = [
      `${flip(body, 3)}.${mac}`,
      `${body}.${flip(mac, 10)}`,
      `${body}.${other.split(".")[1]}`,
      signStatementLink(statementIds[0] ?? "", {
        issuedAt: Date.now() - 120_000,
        expiresAt: Date.now() - 1,
        master: readKeyring().current,
      }),
      `${body}.`,
      "not-a-token",
      `${token}x`,
    ];
    for (const candidate of candidates) {
      const answer = await follow(candidate);
      expect(answer.status, candidate).toBe(refusal.status);
      expect(answer.body.equals(refusal.body), candidate).toBe(true);
    }
  });

  it("refuses links of a revoked batch issued before the revocation, and accepts later ones", async () => {
    const before = tokenOf(statementLinkUrl(statementIds[0] ?? "", 30));
    expect((await follow(before)).status).toBe(200);
    await revokeStatementLinks(t.db, { gameId: GAME, batchId }, acting);
    const answer = await follow(before);
    expect(answer.status).toBe(404);
    expect(answer.body.equals(refusal.body)).toBe(true);
    const after = tokenOf(statementLinkUrl(statementIds[0] ?? "", 30, Date.now() + 5));
    expect((await follow(after)).status).toBe(200);
  });

  it("during a key rotation, signs with the key the database names and opens links under either key", async () => {
    const stored = await sealingKey(t.db);
    const fresh = randomBytes(32);
    const unknown = randomBytes(32);
    const rollout = { current: fresh, previous: stored };
    // Rolled out with a new key, before the rotation: the database still names the old one, which signs.
    expect((await namedKey(t.db, rollout)).equals(stored)).toBe(true);
    const id = statementIds[0] ?? "";
    const times = { issuedAt: Date.now(), expiresAt: Date.now() + 60_000 };
    const underOld = signStatementLink(id, { ...times, master: stored });
    const underNew = signStatementLink(id, { ...times, master: fresh });
    expect(readStatementLink(underOld, rollout)?.statementId).toBe(id);
    expect(readStatementLink(underNew, rollout)?.statementId).toBe(id);
    expect(readStatementLink(underNew, { current: stored, previous: null })).toBeNull();
    expect(readStatementLink(signStatementLink(id, { ...times, master: unknown }), rollout)).toBeNull();
    await expect(namedKey(t.db, { current: unknown, previous: null })).rejects.toThrow(/not the key/);
  });

  it("judges a revocation on the database's clock, whatever the clock of the server revoking", async () => {
    const feb = await t.db
      .selectFrom("payout_statement")
      .select("id")
      .where("batch_id", "=", februaryBatch)
      .executeTakeFirstOrThrow();
    // Emailed a minute ago (issued on the database's clock, which this machine shares).
    const issuedAt = Date.now() - 60_000;
    const token = signStatementLink(feb.id, {
      issuedAt,
      expiresAt: issuedAt + 86_400_000,
      master: readKeyring().current,
    });
    expect((await follow(token)).status).toBe(200);
    // Revoked from a server whose clock is two minutes behind: the link must still be refused.
    vi.useFakeTimers({ now: Date.now() - 120_000, toFake: ["Date"] });
    try {
      await revokeStatementLinks(t.db, { gameId: GAME, batchId: februaryBatch }, acting);
    } finally {
      vi.useRealTimers();
    }
    expect((await follow(token)).status).toBe(404);
  });

  it("judges a link's expiry on the database's clock, whatever the clock of the server it is opened on", async () => {
    const expiredAt = Date.now() - 60_000;
    const token = signStatementLink(statementIds[0] ?? "", {
      issuedAt: expiredAt - 86_400_000,
      expiresAt: expiredAt,
      master: readKeyring().current,
    });
    // Opened on a server whose clock is two minutes behind: expired a minute ago all the same.
    vi.useFakeTimers({ now: Date.now() - 120_000, toFake: ["Date"] });
    try {
      expect((await follow(token)).status).toBe(404);
    } finally {
      vi.useRealTimers();
    }
  });

  it("tells a recipient whose download fails on the desk's side that the link still works", async () => {
    const token = tokenOf(statementLinkUrl(statementIds[0] ?? "", 30));
    const refusal = { table: "statement_link_download", message: "database unavailable" };
    const failed = await whileInsertsRefused(t.db, refusal, () => follow(token));
    expect(failed.status).toBe(503);
    expect(JSON.parse(failed.body.toString())).toEqual({
      error: {
        code: "UNAVAILABLE",
        message: "The statement could not be prepared just now. The link still works: try it again in a few minutes.",
      },
    });
    expect((await follow(token)).status).toBe(200);
  });
});
