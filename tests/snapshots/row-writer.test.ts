import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { type Trx, transactionWithConnection } from "@/db";
import { attributionReportBody, renewalLineBody } from "@/lib/service/__fixtures__/bodies";
import { type AttributionRecipient, attributionReportSchema } from "@/lib/service/schemas";
import type { PageRecord } from "@/lib/snapshots/fetch";
import { createRowWriter, MAX_PAGES_PENDING, type RowWriter, withRowWriter } from "@/lib/snapshots/row-writer";
import { parseWindow } from "@/lib/time";
import { createTestDatabase, type TestDatabase } from "../support/db";

/**
 * A read started over voids what the writer wrote for it without the text of any page it keeps: the pages and the
 * part lines after the kept pages go, those before stay exactly as written.
 */

const WINDOW = parseWindow("2026-03-01", "2026-04-01");
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

/** One recipient with a line per period id, as a part of the window read in full would hand them over. */
function part(periodIds: number[]): AttributionRecipient[] {
  const body = attributionReportBody();
  const recipient = {
    ...body.recipients[0],
    periods: periodIds.map((id) => ({ ...renewalLineBody(), period_id: id })),
  };
  return attributionReportSchema.parse({ ...body, recipients: [recipient] }).recipients;
}

function page(seq: number, body: string): PageRecord {
  return { seq, window: WINDOW, recipientPlayerId: null, offset: 0, limit: 100, fetchedAt: new Date(), body };
}

/** Runs `work` in a transaction that is rolled back (the snapshot is never published). */
async function unpublished(
  work: (trx: Trx, connection: pg.PoolClient, snapshotId: string) => Promise<void>,
): Promise<void> {
  const rollback = new Error("rollback");
  await expect(
    transactionWithConnection(t.db, async (trx, connection) => {
      await work(trx, connection, randomUUID());
      throw rollback;
    }),
  ).rejects.toBe(rollback);
}

async function stored(trx: Trx, snapshotId: string) {
  const pages = await trx
    .selectFrom("snapshot_page")
    .select(["seq", "body"])
    .where("snapshot_id", "=", snapshotId)
    .orderBy("seq")
    .execute();
  const lines = await trx
    .selectFrom("snapshot_line")
    .select("period_id")
    .where("snapshot_id", "=", snapshotId)
    .orderBy("period_id")
    .execute();
  const recipients = await trx
    .selectFrom("snapshot_recipient")
    .select("recipient_player_id")
    .where("snapshot_id", "=", snapshotId)
    .execute();
  return {
    pages: pages.map((p) => [p.seq, p.body]),
    lines: lines.map((l) => Number(l.period_id)),
    recipients: recipients.length,
  };
}

describe("the row writer when a read starts over", () => {
  it("deletes the pages and part lines written after the kept pages and keeps those before as written", async () => {
    await unpublished(async (trx, connection, snapshotId) => {
      const writer = await createRowWriter(trx, connection, snapshotId);
      for (const seq of [1, 2]) writer.addPage(page(seq, `first part, page ${seq}`));
      writer.addPartLines(part([1, 2]), 2);
      for (const seq of [3, 4]) writer.addPage(page(seq, `second part, page ${seq}`));
      writer.addPartLines(part([3, 4]), 4);
      writer.addPage(page(5, "third part, abandoned"));

      await writer.reset(2);
      expect(await stored(trx, snapshotId)).toEqual({
        pages: [
          [1, "first part, page 1"],
          [2, "first part, page 2"],
        ],
        lines: [1, 2],
        recipients: 0,
      });

      writer.addPage(page(3, "second part read again"));
      writer.addPartLines(part([3, 5]), 3);
      const flushed = await writer.flush();
      expect(flushed.pages).toBe(3);
      expect(flushed.written.partPeriodIds).toEqual([1, 2, 3, 5]);
      expect(await stored(trx, snapshotId)).toEqual({
        pages: [
          [1, "first part, page 1"],
          [2, "first part, page 2"],
          [3, "second part read again"],
        ],
        lines: [1, 2, 3, 5],
        recipients: 0,
      });
    });
  });

  it("voids everything written when no page is kept, recipients included", async () => {
    await unpublished(async (trx, connection, snapshotId) => {
      const writer = await createRowWriter(trx, connection, snapshotId);
      writer.addPage(page(1, "first read"));
      writer.addRecipients(part([7, 8]));
      await writer.flush();
      expect(await stored(trx, snapshotId)).toEqual({ pages: [[1, "first read"]], lines: [7, 8], recipients: 1 });

      await writer.reset(0);
      expect(await stored(trx, snapshotId)).toEqual({ pages: [], lines: [], recipients: 0 });
      writer.addPage(page(1, "second read"));
      expect((await writer.flush()).pages).toBe(1);
      expect(await stored(trx, snapshotId)).toEqual({ pages: [[1, "second read"]], lines: [], recipients: 0 });
    });
  });

  it("deletes the recipients written when it keeps some pages", async () => {
    await unpublished(async (trx, connection, snapshotId) => {
      const writer = await createRowWriter(trx, connection, snapshotId);
      for (const seq of [1, 2]) writer.addPage(page(seq, `page ${seq}`));
      writer.addRecipients(part([7, 8]));
      await writer.reset(1);
      expect(await stored(trx, snapshotId)).toEqual({ pages: [[1, "page 1"]], lines: [], recipients: 0 });
      const flushed = await writer.flush();
      expect([flushed.pages, flushed.recipients]).toEqual([1, 0]);
    });
  });

  it("fails the read at its next page once a write failed, not after the rest of the window", async () => {
    await unpublished(async (trx, connection, snapshotId) => {
      const writer = await createRowWriter(trx, connection, snapshotId);
      writer.addPage(page(1, "page 1"));
      // An id PostgreSQL cannot store (a NUL the service's JSON escaped; names are kept with U+FFFD): the insert fails.
      const [recipient] = part([9]);
      if (!recipient) throw new Error("the part has a recipient");
      const reversals = recipient.reversals.map((r) => ({ ...r, subscription_id: "SUB\u0000" }));
      expect(reversals).toHaveLength(1);
      writer.addRecipients([{ ...recipient, reversals }]);
      const failed = await writer.flush().catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(Error);
      await expect(writer.addPage(page(2, "page 2"))).rejects.toBe(failed);
    });
  });

  it("stores a name, an item and a note the service sent with a NUL, read as U+FFFD, rather than failing", async () => {
    const body = attributionReportBody();
    const [first] = body.recipients;
    if (!first) throw new Error("the report has a recipient");
    const named = {
      ...first,
      recipient: { ...first.recipient, player_name: "A\u0000B", player_email: "a\u0000b@example.com" },
      periods: [{ ...renewalLineBody(), period_id: 5, item_name: "Gold\u0000Pass" }],
      reversals: first.reversals.map((r) => ({ ...r, note: "refunded\u0000" })),
    };
    // As the service's JSON carries it: the escape, parsed into the character.
    const [recipient] = attributionReportSchema.parse(
      JSON.parse(JSON.stringify({ ...body, recipients: [named] })),
    ).recipients;
    if (!recipient) throw new Error("the report has a recipient");
    await unpublished(async (trx, connection, snapshotId) => {
      const writer = await createRowWriter(trx, connection, snapshotId);
      writer.addRecipients([recipient]);
      await writer.flush();
      const row = await trx
        .selectFrom("snapshot_recipient")
        .select(["player_name", "player_email"])
        .where("snapshot_id", "=", snapshotId)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ player_name: "A\uFFFDB", player_email: "a\uFFFDb@example.com" });
      const line = await trx
        .selectFrom("snapshot_line")
        .select("item_name")
        .where("snapshot_id", "=", snapshotId)
        .executeTakeFirstOrThrow();
      expect(line.item_name).toBe("Gold\uFFFDPass");
      const notes = await trx
        .selectFrom("snapshot_reversal")
        .select("note")
        .where("snapshot_id", "=", snapshotId)
        .execute();
      expect(notes.map((n) => n.note)).toEqual(first.reversals.map(() => "refunded\uFFFD"));
    });
  });

  it("copies each page's fields and bytes exactly, and refuses bytes that are not UTF-8", async () => {
    const fetchedAt = new Date("2026-03-04T05:06:07.891Z");
    const body = Buffer.from('{"name":"Zoë ✓","note":"tab\\there, a \\\\ and \\"quotes\\""}');
    await unpublished(async (trx, connection, snapshotId) => {
      const writer = await createRowWriter(trx, connection, snapshotId);
      const recipient = 9_007_199_254_740_000;
      writer.addPage({
        seq: 1,
        window: WINDOW,
        recipientPlayerId: recipient,
        offset: 200,
        limit: 100,
        fetchedAt,
        body,
      });
      writer.addPage({ ...page(2, "a page given as text"), window: parseWindow("2026-03-02", "2026-03-03") });
      await writer.flush();
      const rows = await trx
        .selectFrom("snapshot_page")
        .selectAll()
        .where("snapshot_id", "=", snapshotId)
        .orderBy("seq")
        .execute();
      expect(
        rows.map((row) => ({
          seq: row.seq,
          window: [row.window_start.getTime(), row.window_end.getTime()],
          recipient: row.recipient_player_id === null ? null : Number(row.recipient_player_id),
          offset: row.page_offset,
          limit: row.page_limit,
          body: row.body,
        })),
      ).toEqual([
        { seq: 1, window: [WINDOW.startMs, WINDOW.endMs], recipient, offset: 200, limit: 100, body: body.toString() },
        {
          seq: 2,
          window: [Date.parse("2026-03-02T00:00:00Z"), Date.parse("2026-03-03T00:00:00Z")],
          recipient: null,
          offset: 0,
          limit: 100,
          body: "a page given as text",
        },
      ]);
      expect(rows[0]?.fetched_at.getTime()).toBe(fetchedAt.getTime());
    });
    await unpublished(async (trx, connection, snapshotId) => {
      const writer = await createRowWriter(trx, connection, snapshotId);
      // Refused at its first page while megabytes of the pages after it are still being sent.
      writer.addPage({ ...page(1, ""), body: Buffer.from([0x7b, 0xff, 0x7d]) });
      for (let seq = 2; seq <= 10; seq += 1) writer.addPage(page(seq, `"${"x".repeat(2 * 1024 * 1024)}"`));
      const failed = await writer.flush().catch((error: unknown) => error);
      expect(String(failed)).toMatch(/invalid byte sequence for encoding "UTF8"/);
    });
  });

  it("writes nothing it had queued once closed, and waits for the write under way", async () => {
    await unpublished(async (trx, connection, snapshotId) => {
      const writer = await createRowWriter(trx, connection, snapshotId);
      const add = (seq: number) => void writer.addPage(page(seq, `page ${seq}`)).catch(() => {});
      // A statement's worth of pages, its write begun; then three more statements' worth queued behind it.
      for (let seq = 1; seq <= 10; seq += 1) add(seq);
      await new Promise((resolve) => setImmediate(resolve));
      for (let seq = 11; seq <= 40; seq += 1) add(seq);
      await writer.close();
      expect((await stored(trx, snapshotId)).pages.map(([seq]) => seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await stored(trx, snapshotId)).pages).toHaveLength(10);
      // Nothing more is taken once closed.
      await expect(writer.addPage(page(41, "page 41"))).rejects.toThrow(/closed/);
      await expect(writer.flush()).rejects.toThrow(/closed/);
      await expect(writer.reset(1)).rejects.toThrow(/closed/);
    });
  });

  it("is closed however the work given it ends, a failure passed on as it came", async () => {
    await unpublished(async (trx, connection, snapshotId) => {
      let kept: RowWriter | null = null;
      const failed = await withRowWriter(trx, connection, snapshotId, async (writer) => {
        kept = writer;
        for (let seq = 1; seq <= 10; seq += 1) void writer.addPage(page(seq, `page ${seq}`)).catch(() => {});
        throw new Error("the read failed");
      }).catch((error: unknown) => error);
      expect(String(failed)).toBe("Error: the read failed");
      await expect((kept as RowWriter | null)?.flush()).rejects.toThrow(/closed/);
      // Given back with the work's answer, closed all the same.
      const pages = await withRowWriter(trx, connection, snapshotId, async (writer) => {
        kept = writer;
        return (await writer.flush()).pages;
      });
      expect(pages).toBe(0);
      await expect((kept as RowWriter | null)?.addPage(page(11, "page 11"))).rejects.toThrow(/closed/);
    });
  });

  it("holds a page's text only until its insert has run, and has the read wait when too many pages wait", async () => {
    await unpublished(async (trx, connection, snapshotId) => {
      const writer = await createRowWriter(trx, connection, snapshotId);
      const seqs = Array.from({ length: MAX_PAGES_PENDING }, (_, i) => i + 1);
      const added = seqs.map((seq) => writer.addPage(page(seq, `page ${seq}`)));
      expect(writer.pagesPending()).toBe(MAX_PAGES_PENDING);
      await Promise.all(added);
      // Up to the limit the read goes on while the pages are written.
      expect(writer.pagesPending()).toBe(MAX_PAGES_PENDING);
      await writer.addPage(page(MAX_PAGES_PENDING + 1, "one page too many"));
      // Past it, the read goes on once every queued page is written.
      expect(writer.pagesPending()).toBe(0);
      expect((await stored(trx, snapshotId)).pages).toHaveLength(MAX_PAGES_PENDING + 1);
      expect((await writer.flush()).pages).toBe(MAX_PAGES_PENDING + 1);
      expect(writer.pagesPending()).toBe(0);
    });
  });
});
