import { createDb } from "../db";
import { DEMO_GAME_ID } from "../emulator/scenario/demo";
import { insertBatch, insertSnapshot } from "../tests/exports/fixture";
import { query } from "./fixtures/query";
import { shoot, signIn } from "./fixtures/session";
import { expect, test } from "./fixtures/test";

/**
 * An approved batch whose statement has a chargeback opened since approval: recording the approved statements paid
 * would be refused, so the page shows "Mark approved paid…" disabled, naming the recipient, rather than offering it.
 */

const MONTH = "2024-10";
const DISPUTE = "dp_e2e_payment_bar";

test.beforeAll(async () => {
  const db = createDb(process.env.E2E_DATABASE_URL ?? "", { max: 2 });
  try {
    const line = { paidAt: "2024-10-05T10:00:00Z", amountUsd: "49.99", attributedUsd: "40.10" };
    const snapshotId = await insertSnapshot(db, {
      gameId: DEMO_GAME_ID,
      start: "2024-10-01T00:00:00Z",
      end: "2024-11-01T00:00:00Z",
      recipients: [],
      lines: [
        { ...line, periodId: 9_200_001, recipientId: 920001, mintOrderId: "ord_e2e_payment_bar" },
        { ...line, periodId: 9_200_002, recipientId: 920002 },
      ],
    });
    const statement = { gross: "40.10", reversed: "0.00", state: "approved" as const };
    await insertBatch(db, {
      gameId: DEMO_GAME_ID,
      snapshotId,
      status: "approved",
      statements: [
        { ...statement, recipientId: 920001, name: "Maya Okafor", email: "maya@e2e.test" },
        { ...statement, recipientId: 920002, name: "Tomás Rivera", email: "tomas@e2e.test" },
      ],
    });
  } finally {
    await db.destroy();
  }
  await query(
    `insert into service_dispute (game_id, dispute_id, order_id, reason, usd_amount, status, opened_at)
     values ($1, $2, 'ord_e2e_payment_bar', 'fraudulent', 49.99, 'open', now())`,
    [DEMO_GAME_ID, DISPUTE],
  );
});

test.afterAll(async () => {
  await query("delete from service_dispute where game_id = $1 and dispute_id = $2", [DEMO_GAME_ID, DISPUTE]);
});

test("[finance] an approved batch with a chargeback since approval does not offer recording it paid", async ({
  page,
}) => {
  await signIn(page, "finance");
  await page.goto(`/payouts/${MONTH}`);
  const markPaid = page.getByRole("button", { name: "Mark approved paid…" });
  await expect(markPaid).toHaveAttribute("aria-disabled", "true");
  await expect(
    page.getByText(
      "An approved statement has a flag raised since approval that stops its payment (recipient 920001): resolve " +
        "or override it with a reason on the recipient's row, or hold the payout; then record the payment.",
    ),
  ).toBeVisible();
  // Reached by keyboard (its reason read with it) and pressed all the same, it opens nothing.
  await markPaid.press("Enter");
  await expect(markPaid).toBeFocused();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await shoot(page, "finance-mark-paid-barred");
});
