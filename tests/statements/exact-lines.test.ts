import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listEvidenceLines } from "@/db/queries/payouts";
import { listSnapshotReversals } from "@/db/queries/snapshot-evidence";
import { listStatementLines, listStatementReversals } from "@/db/queries/statements";
import { statementCsv } from "@/lib/statements/csv";
import { buildStatementDocument } from "@/lib/statements/model";
import type { PayoutStatement } from "@/lib/payouts/statements";
import { addGame, insertSnapshot } from "../exports/fixture";
import { createTestDatabase, type TestDatabase, applyTestEnv } from "../support/db";

/**
 * A statement's lines are the service's figures as it gave them: rounded each to the cent, three renewals of 0.3333
 * would print 0.99 against a total of 1.00 (0.9999 rounded once), and two reversals of 0.125 would print 0.26 against
 * 0.25.
 */

const GAME = "stmt-exact";
let t: TestDatabase;
let snapshotId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  applyTestEnv(t);
  await addGame(t.db, GAME);
  const refund = (periodId: number) => ({
    periodId,
    recipientId: 77,
    reversedAttributedUsd: "0.125",
    events: [
      {
        refundedAt: "2026-03-20T00:00:00Z",
        amountUsd: "0.625",
        before: "0.00",
        after: "0.625",
        reversedAttributedUsd: "0.125",
        full: false,
      },
    ],
  });
  snapshotId = await insertSnapshot(t.db, {
    gameId: GAME,
    start: "2026-03-01T00:00:00Z",
    end: "2026-04-01T00:00:00Z",
    recipients: [{ id: 77, name: "Ana", email: "ana@example.test", net: "0.7499" }],
    lines: [1, 2, 3].map((i) => ({
      periodId: 300 + i,
      recipientId: 77,
      paidAt: `2026-03-0${i}T10:00:00Z`,
      amountUsd: "1.99",
      attributedUsd: "0.3333",
      percent: "18.5185",
    })),
    reversals: [refund(401), refund(402)],
  });
});
afterAll(async () => t?.drop());

it("reads renewal lines and reversals exactly; the CSV writes them so, each share of the base it is of", async () => {
  const params = { gameId: GAME, snapshotId, recipientPlayerId: 77 };
  const lines = await listStatementLines(t.db, params);
  const reversals = await listStatementReversals(t.db, params);
  expect(lines.map((l) => [l.amountUsd, l.baseUsd, l.attributedAmountUsd])).toEqual([
    ["1.99", "9.00", "0.3333"],
    ["1.99", "9.00", "0.3333"],
    ["1.99", "9.00", "0.3333"],
  ]);
  expect(reversals.map((r) => r.reversedAttributedUsd)).toEqual(["0.125", "0.125"]);

  const statement = {
    id: "00000000-0000-4000-8000-000000000001",
    windowStart: "2026-03-01T00:00:00.000Z",
    windowEnd: "2026-04-01T00:00:00.000Z",
    recipientPlayerId: 77,
    playerName: "Ana",
    playerEmail: "ana@example.test",
    renewalCount: 3,
    subscriptionCount: 3,
    reversalCount: 2,
    grossAttributedUsd: "1.00",
    reversedAttributedUsd: "0.25",
    reversedBeforeUsd: "0.00",
    netAttributedUsd: "0.75",
    carriedInUsd: "0.00",
    availableUsd: "0.75",
    payableUsd: "0.00",
    carryOutUsd: "0.75",
    minPayoutUsd: "25.00",
    state: "carried",
  } as unknown as PayoutStatement;
  const doc = buildStatementDocument({
    statement,
    number: 1,
    gameId: GAME,
    issuedAt: "2026-04-02T09:00:00.000Z",
    settings: { studioName: "Studio", studioAddress: "", linkDays: 30 },
    lines,
    reversals,
    carriedIn: [],
  });
  const cells = parse(statementCsv(doc), { columns: true, bom: true }) as Record<string, string>[];
  const renewals = cells.filter((c) => c.section === "renewal");
  expect(renewals.map((c) => c.amount_usd)).toEqual(["0.3333", "0.3333", "0.3333"]);
  expect(renewals[0]?.detail).toBe("Pass; 18.5185% of 9.00 (the price 1.99 less the service fee)");
  expect(cells.filter((c) => c.section === "reversal").map((c) => c.amount_usd)).toEqual(["-0.125", "-0.125"]);
});

it("shows the same exact figures on the recipient's evidence page, where a reviewer adds them up", async () => {
  const params = { gameId: GAME, snapshotId, recipientPlayerId: 77 };
  const evidence = await listEvidenceLines(t.db, { ...params, page: 1, pageSize: 50 });
  expect(evidence.rows.map((l) => [l.amountUsd, l.baseUsd, l.attributedAmountUsd])).toEqual([
    ["1.99", "9.00", "0.3333"],
    ["1.99", "9.00", "0.3333"],
    ["1.99", "9.00", "0.3333"],
  ]);
  const reversals = await listSnapshotReversals(t.db, params);
  expect(reversals.map((r) => r.reversedAttributedUsd)).toEqual(["0.125", "0.125"]);
  expect(reversals.flatMap((r) => r.events.map((e) => [e.refundedAmountUsd, e.reversedAttributedUsd]))).toEqual([
    ["0.625", "0.125"],
    ["0.625", "0.125"],
  ]);
});
