import { expect, type Page, test } from "./fixtures/test";
import { suiteEmulator } from "./fixtures/emulator";
import { shoot, signIn } from "./fixtures/session";

/**
 * A refund that needs manual attention, settled by finance with what the service confirmed. "Nothing refunded" frees
 * the refund: support can make it again, and the service then holds exactly that one refund.
 */
const { service, admin } = suiteEmulator();

/** A demo card subscription whose latest paid period has no refund yet (searched from the last players down). */
async function findCandidate(): Promise<{ subscriptionId: string; periodId: number; refundCount: number }> {
  for (let n = 200; n >= 1; n--) {
    const list = await service(
      `/api/subscriptions/player?player_email=${encodeURIComponent(`player${n}@demo.example`)}&status=active`,
    );
    for (const sub of list.subscriptions) {
      if (sub.funding_rail !== "card" || sub.wallet_only) continue;
      const periods = await service(
        `/api/subscriptions/reporting/subscriptions/${sub.subscription_id}/attribution?status=paid&limit=1`,
      );
      const period = periods.periods[0];
      if (period?.funding?.rail !== "card" || Number(period.funding.card_charged_usd) <= 0) continue;
      if (Number(period.refund?.refunded_amount_usd ?? "0") > 0) continue;
      const report = await service(`/api/subscriptions/reporting/periods/${period.period_id}`);
      return {
        subscriptionId: sub.subscription_id,
        periodId: period.period_id,
        refundCount: report.refunds.refund_count,
      };
    }
  }
  throw new Error("no refundable demo subscription found");
}

async function refundOneDollar(page: Page, periodId: number): Promise<void> {
  await page.goto(`/subscriptions/periods/${periodId}`);
  await page.getByLabel("Partial").check();
  await page.getByLabel("Amount to refund (USD)").fill("1.00");
  await page.getByLabel("Reason").fill("Ticket 7781");
  await page.getByRole("button", { name: "Review refund" }).click();
  await expect(page.getByRole("heading", { name: "Review the refund" })).toBeVisible();
  await page.getByRole("button", { name: "Refund USD 1.00" }).click();
  await expect(page).toHaveURL(/\/subscriptions\/refunds\/[0-9a-f-]{36}$/);
}

test("[finance] settles a refund that needs attention as nothing refunded; [support] then makes it once", async ({
  page,
}) => {
  const candidate = await findCandidate();
  await signIn(page, "support");
  await admin("/faults", {
    route: `/api/subscriptions/${candidate.subscriptionId}/refund`,
    fault: "502",
    error_code: "REFUND_MISMATCH",
    count: 1,
  });
  await refundOneDollar(page, candidate.periodId);
  await expect(page.getByRole("alert").filter({ hasText: "Needs manual attention" })).toBeVisible();
  const attemptUrl = page.url();

  await page.context().clearCookies();
  await signIn(page, "finance");
  await page.goto(attemptUrl);
  const settle = page.getByRole("form", { name: "Mark as settled" });
  await expect(settle.getByRole("group", { name: "Did the service refund it?" })).toBeVisible();
  await settle.getByLabel("What the service confirmed").fill("Service confirmed no refund was made (ticket 7782).");
  await shoot(page, "refund-settle-form");
  await settle.getByLabel(/No, nothing was refunded/).check();
  await settle.getByRole("button", { name: "Mark as settled" }).click();
  // Asked once more, since it lets the same refund be made again; the focus is on the answer.
  const confirm = settle.getByRole("button", { name: "Yes, nothing was refunded" });
  await expect(
    settle.getByRole("group", { name: /Nothing was refunded\? Support can then make the same refund/ }),
  ).toBeVisible();
  await expect(confirm).toBeFocused();
  await shoot(page, "refund-settle-confirm");
  await page.keyboard.press("Enter");
  await expect(page.getByText("Settled by hand: nothing refunded")).toBeVisible();
  // The form goes with the settling; its answer stays in its place and takes the focus, not the page's start.
  await expect(page.locator(":focus")).toContainText("Marked as settled: nothing was refunded");
  await shoot(page, "refund-settled-nothing");

  // The same refund can be made again; the service holds exactly that one.
  await page.context().clearCookies();
  await signIn(page, "support");
  await refundOneDollar(page, candidate.periodId);
  await expect(page.getByText("Refunded USD 1.00")).toBeVisible();
  const report = await service(`/api/subscriptions/reporting/periods/${candidate.periodId}`);
  expect(report.refunds.refund_count).toBe(candidate.refundCount + 1);
});
