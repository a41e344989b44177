import { expect, test } from "./fixtures/test";
import { query } from "./fixtures/query";
import { formatUsd, money } from "../lib/money";
import { suiteEmulator } from "./fixtures/emulator";
import { findDemoSubscription, findRefundCandidate, type RefundCandidate } from "./fixtures/refunds";
import { shoot, signIn } from "./fixtures/session";

/**
 * Support tools against the emulator's demo game: lookup by email, a partial refund through the review step while the
 * service answers 503 to the first refund call, and the receipt. The emulator is asked directly (as the service would
 * be) how many refunds the period holds, so "exactly one" is checked at the source.
 */
const emulator = suiteEmulator();
const { service, admin } = emulator;

function findCandidate(skip: Set<string>): Promise<RefundCandidate> {
  return findRefundCandidate(emulator, skip);
}

const used = new Set<string>();

test("[support] finds a subscription by player email and refunds part of a period once, despite a 503", async ({
  page,
}) => {
  const candidate = await findCandidate(used);
  used.add(candidate.subscriptionId);
  await signIn(page, "support");

  await page.goto("/subscriptions");
  await page.getByLabel("Subscription id, player email or period id").fill(candidate.email);
  await page.getByLabel("Subscription id, player email or period id").press("Enter");
  await expect(page).toHaveURL(/\/subscriptions\/players\//);
  await expect(page.getByRole("heading", { level: 1, name: candidate.email })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Balance" })).toBeVisible();
  await expect(page.getByText("Saved cards are shown to support and above.")).toHaveCount(0);
  await shoot(page, "support-player");

  await page.getByRole("link", { name: candidate.subscriptionId }).click();
  await expect(page).toHaveURL(new RegExp(`/subscriptions/${candidate.subscriptionId}`));
  await expect(page.getByRole("heading", { name: "Billing periods" })).toBeVisible();
  await shoot(page, "support-subscription");

  await page.getByRole("link", { name: String(candidate.periodId), exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/subscriptions/periods/${candidate.periodId}`));
  await expect(page.getByRole("heading", { name: "Refund this period" })).toBeVisible();
  await shoot(page, "support-period");

  // The support limit is stated as it is applied: every refund support makes on the period counts.
  await expect(page.getByText(/Support may refund up to USD \d+\.\d{2} per period, in total/)).toBeVisible();
  await page.getByLabel("Partial").check();
  await page.getByLabel("Amount to refund (USD)").fill("1.00");
  await page.getByLabel("Reason").fill("Charged twice in March, per ticket 5512");
  await page.getByRole("button", { name: "Review refund" }).click();
  await expect(page.getByRole("heading", { name: "Review the refund" })).toBeVisible();
  // Focus follows the step, so a screen reader announces it.
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.textContent ?? ""))
    .toContain("Review the refund");
  await expect(page.getByText("Attribution the recipient loses (estimate)")).toBeVisible();
  await expect(page.getByText(/credited to the wallet as 10\.00 coins/)).toBeVisible();
  await shoot(page, "support-refund-review");

  // The service answers 503 to the first refund call; the same request id is sent again.
  await admin("/faults", { route: `/api/subscriptions/${candidate.subscriptionId}/refund`, fault: "503", count: 1 });
  await page.getByRole("button", { name: "Refund USD 1.00" }).click();
  await expect(page).toHaveURL(/\/subscriptions\/refunds\/[0-9a-f-]{36}$/);
  await expect(page.getByText("Refunded USD 1.00")).toBeVisible();
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.textContent ?? ""))
    .toContain("Refunded USD 1.00");
  await expect(page.getByText(/Player's balance after the refund/)).toBeVisible();
  await expect(page.getByText("Revenue share attribution")).toBeVisible();
  await expect(page.getByText("Card fee charged to the partner")).toBeVisible();
  await shoot(page, "support-refund-receipt");

  const faults = await admin("/faults");
  expect(faults.faults.filter((f: { route: string }) => f.route.includes(candidate.subscriptionId))).toEqual([]);
  const report = await service(`/api/subscriptions/reporting/periods/${candidate.periodId}`);
  expect(report.refunds.refund_count).toBe(candidate.refundCount + 1);
  expect(report.refunds.refunded_to_date_usd).toBe("1.00");

  // The period page lists the one attempt, and the service still holds exactly one new refund.
  await page.goBack();
  await page.reload();
  await expect(page.getByRole("table", { name: "Refund attempts on this period" }).getByRole("row")).toHaveCount(2);
  // A table wider than the screen scrolls from the keyboard; the service's codes are said in words.
  const events = page.getByRole("region", { name: /^Refund events of this period/ });
  await expect(events).toHaveAttribute("tabindex", "0");
  await expect(page.getByText(/^Figures are (exact: one row per refund|approximate: the period)/)).toBeVisible();
  await expect(
    events
      .getByText("Taken back from partner revenue")
      .or(events.getByText("Sale and fee reversed"))
      .or(events.getByText("Nothing reversed"))
      .first(),
  ).toBeVisible();
  await shoot(page, "support-period-after-refund");
  expect((await service(`/api/subscriptions/reporting/periods/${candidate.periodId}`)).refunds.refund_count).toBe(
    candidate.refundCount + 1,
  );

  await page.goto(`/audit?action=refund.&target=${candidate.subscriptionId}`);
  const rows = page.getByRole("table", { name: "Audit log entries, newest first" }).getByRole("row");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(1)).toContainText("refund.call");
  await expect(rows.nth(1)).toContainText("succeeded");
  await expect(rows.nth(2)).toContainText("pending");
  // The request was recorded as pending before the call; the log says what it led to.
  await expect(rows.nth(2)).toContainText("led to: refunded");
  await shoot(page, "support-audit");
});

test("[support] is told the remaining amount when asking for more than is left", async ({ page }) => {
  const candidate = await findCandidate(used);
  used.add(candidate.subscriptionId);
  await signIn(page, "support");
  await page.goto(`/subscriptions/periods/${candidate.periodId}`);
  await page.getByLabel("Partial").check();
  await page.getByLabel("Amount to refund (USD)").fill("999.00");
  await page.getByRole("button", { name: "Review refund" }).click();
  await expect(page.getByText(/must be at most the remaining refundable USD \d+\.\d{2}/)).toBeVisible();
  // What was chosen and typed stays after the error.
  await expect(page.getByLabel("Partial")).toBeChecked();
  await expect(page.getByLabel("Amount to refund (USD)")).toHaveValue("999.00");
  // Said on the field, not in an announced message: focus lands on the field, which reads out its error.
  await expect(page.getByLabel("Amount to refund (USD)")).toBeFocused();
  await shoot(page, "support-refund-too-much");
});

test("[support] is sent back to the amount with the new remaining figure when the period was refunded since", async ({
  page,
}) => {
  const candidate = await findCandidate(used);
  used.add(candidate.subscriptionId);
  const before = await service(`/api/subscriptions/reporting/periods/${candidate.periodId}`);
  await signIn(page, "support");
  await page.goto(`/subscriptions/periods/${candidate.periodId}`);
  await page.getByLabel("Partial").check();
  await page.getByLabel("Amount to refund (USD)").fill("1.00");
  await page.getByRole("button", { name: "Review refund" }).click();
  await expect(page.getByRole("heading", { name: "Review the refund" })).toBeVisible();

  // Meanwhile 0.50 of the period is refunded elsewhere (the service's own tools).
  const made = await admin("/refunds", {
    subscription_id: candidate.subscriptionId,
    period_seq: candidate.periodSeq,
    amount_usd: "0.50",
  });
  expect(made.status).toBe("recorded");
  const remaining = formatUsd(
    money(before.period.amount_usd).minus(money(before.refunds.refunded_to_date_usd)).minus(money("0.50")),
  );
  await page.getByRole("button", { name: "Refund USD 1.00" }).click();
  await expect(page.getByText(new RegExp(`USD ${remaining.replace(".", "\\.")} remains refundable now`))).toBeVisible();
  await expect(page.getByRole("button", { name: "Review refund" })).toBeVisible();
  await expect(page.getByText(`Full: everything that remains (USD ${remaining})`)).toBeVisible();
  await shoot(page, "support-refund-sent-back");
  // Reviewed again, the new review stands on its own: the refusal of the last one is not shown with it.
  await page.getByRole("button", { name: "Review refund" }).click();
  await expect(page.getByRole("heading", { name: "Review the refund" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Refund USD 1.00" })).toBeVisible();
  await expect(page.getByText(/remains refundable now/)).toHaveCount(0);
  // Nothing was refunded from Payout Desk.
  const after = await service(`/api/subscriptions/reporting/periods/${candidate.periodId}`);
  expect(after.refunds.refund_count).toBe(candidate.refundCount + 1);
});

test("[support] cancels at the end of the paid period, as the dialog said, keeping the reason through errors", async ({
  page,
}) => {
  const candidate = await findCandidate(used);
  used.add(candidate.subscriptionId);
  const before = (await service(`/api/subscriptions/${candidate.subscriptionId}`)).subscription;
  // What the service will do, from its own fields (its clock is not this machine's).
  const paidRunning =
    before.paid_through !== null && Date.parse(before.paid_through) > Date.parse(before.current_period_start);
  expect(paidRunning).toBe(true);
  await signIn(page, "support");
  await page.goto(`/subscriptions/${candidate.subscriptionId}`);
  await page.getByRole("button", { name: "Cancel subscription…" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this subscription?" });
  await expect(dialog.getByLabel("At the end of the paid period (default)")).toBeChecked();
  const said = dialog.getByRole("status", { name: "What the service will do" });
  await expect(said).toContainText("It stays active until");
  await expect(said).not.toContainText(/immediately|NO_PAID_PERIOD/);
  // Backed out of with "Now" chosen, the dialog opens again at the default, not one press from ending it now.
  await dialog.getByLabel("Now", { exact: true }).check();
  await expect(dialog.getByLabel("Now", { exact: true })).toBeChecked();
  await dialog.getByRole("button", { name: "Keep it" }).click();
  await expect(dialog).toBeHidden();
  await page.getByRole("button", { name: "Cancel subscription…" }).click();
  await expect(dialog.getByLabel("At the end of the paid period (default)")).toBeChecked();
  await expect(said).toContainText("It stays active until");
  await dialog.getByLabel("Reason").fill("Player asked by phone");
  await shoot(page, "support-cancel-dialog");

  // The service fails once: the dialog stays open with the error and keeps the reason typed.
  await admin("/faults", { route: `/api/subscriptions/${candidate.subscriptionId}/cancel`, fault: "503", count: 1 });
  await dialog.getByRole("button", { name: "Cancel subscription", exact: true }).click();
  await expect(dialog.getByRole("alert")).toContainText("No change of this subscription is sent for the next 30");
  await expect(dialog.getByLabel("Reason")).toHaveValue("Player asked by phone");
  await expect(dialog.getByLabel("At the end of the paid period (default)")).toBeChecked();
  await shoot(page, "support-cancel-error");
  const afterError = (await service(`/api/subscriptions/${candidate.subscriptionId}`)).subscription;

  if (!afterError.cancel_at_period_end) {
    // Pressed again at once: refused unsent (the service may still apply the first); 30 s on, sent.
    await dialog.getByRole("button", { name: "Cancel subscription", exact: true }).click();
    await expect(dialog.getByRole("alert")).toContainText("Another change of this subscription is under way");
    const lapse = "update subscription_change_hold set held_until = now() - interval '1 second'";
    await query(`${lapse} where subscription_id = $1`, [candidate.subscriptionId]);
    await dialog.getByRole("button", { name: "Cancel subscription", exact: true }).click();
  } else {
    // The failed call had landed (a 503 says nothing about the outcome): nothing to send again.
    await dialog.getByRole("button", { name: "Keep it" }).click();
    await page.reload();
  }
  await expect(dialog).toBeHidden();
  const sub = (await service(`/api/subscriptions/${candidate.subscriptionId}`)).subscription;
  expect(sub.cancel_at_period_end).toBe(true);
  expect(sub.status).not.toBe("canceled");
  // The page no longer promises a charge.
  await expect(page.getByText("Canceled: ends at the end of the paid period")).toBeVisible();
  await expect(page.getByText("None: it ends at the end of the paid period.")).toBeVisible();
  await shoot(page, "support-cancel-done");
});

test(
  "[support] a refund amount typed as abc, 12,50 or left " + "empty is refused on the field, keeping what was typed",
  async ({ page }) => {
    const candidate = await findCandidate(used);
    await signIn(page, "support");
    await page.goto(`/subscriptions/periods/${candidate.periodId}`);
    await page.getByLabel("Partial").check();
    for (const typed of ["abc", "12,50", ""]) {
      await page.getByLabel("Amount to refund (USD)").fill(typed);
      await page.getByLabel("Reason").fill(`Ticket 77 (${typed || "empty"})`);
      // Each refusal reads as the one before: wait for this submission's answer, or the next value typed could be
      // put back by the form resetting to the previous answer.
      const answered = page.waitForResponse(
        (r) => r.request().method() === "POST" && r.request().headers()["next-action"] !== undefined,
      );
      await page.getByRole("button", { name: "Review refund" }).click();
      await answered;
      await expect(page.getByRole("button", { name: "Review refund" })).toBeEnabled();
      await expect(
        page.getByText(/Amount to refund \(USD\) must be an amount in USD with at most two decimals/),
      ).toBeVisible();
      await expect(page.getByText("Something went wrong")).toHaveCount(0);
      await expect(page.getByLabel("Partial")).toBeChecked();
      await expect(page.getByLabel("Amount to refund (USD)")).toHaveValue(typed);
      await expect(page.getByLabel("Reason")).toHaveValue(`Ticket 77 (${typed || "empty"})`);
    }
    await shoot(page, "support-refund-bad-amount");
    // Back from the review keeps what was typed too.
    await page.getByLabel("Amount to refund (USD)").fill("1.00");
    await page.getByRole("button", { name: "Review refund" }).click();
    await page.getByRole("button", { name: "Back" }).click();
    await expect(page.getByLabel("Reason")).toHaveValue("Ticket 77 (empty)");
    // The Back button has left the page with the review: the focus is on the form it went back to, not lost.
    await expect(page.locator(":focus")).toContainText("Remaining refundable");
  },
);

test("[support] finds a subscription by its id typed in lower case", async ({ page }) => {
  const candidate = await findCandidate(used);
  await signIn(page, "support");
  await page.goto("/subscriptions");
  const box = page.getByLabel("Subscription id, player email or period id");
  await expect(box).toHaveAttribute("placeholder", /^SUB_\d+_[A-Z0-9]{8},/);
  await box.fill(candidate.subscriptionId.toLowerCase());
  await box.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/subscriptions/${candidate.subscriptionId}$`));
  await expect(page.getByRole("heading", { name: "Billing periods" })).toBeVisible();
});

for (const role of ["finance", "admin"] as const) {
  test(`[${role}] opens a subscription page and a price change refused by the service keeps the typed price`, async ({
    page,
  }) => {
    const candidate = await findCandidate(used);
    await signIn(page, role);
    const response = await page.goto(`/subscriptions/${candidate.subscriptionId}`);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "Billing periods" })).toBeVisible();
    await page.getByRole("button", { name: "Change price…" }).click();
    const dialog = page.getByRole("dialog", { name: "Change the price" });
    await expect(dialog.getByLabel("New price (USD)")).toHaveValue("");
    await dialog.getByLabel("New price (USD)").fill("abc");
    await expect(dialog.getByText(/must be an amount in USD/)).toBeVisible();
    if (role === "finance") {
      await dialog.getByLabel("New price (USD)").fill("4.99");
      await admin("/faults", {
        route: `/api/subscriptions/${candidate.subscriptionId}/amount`,
        fault: "503",
        count: 1,
      });
      await dialog.getByRole("button", { name: "Stage the new price" }).click();
      await expect(dialog.getByRole("alert")).toBeVisible();
      await expect(dialog.getByLabel("New price (USD)")).toHaveValue("4.99");
      await shoot(page, "finance-price-error");
    }
  });
}

test("[finance] is offered only what can be done: nothing on an ended subscription, no card on a pcstore one", async ({
  page,
}) => {
  const ended = await findDemoSubscription(emulator, "canceled,expired", () => true);
  const pcstore = await findDemoSubscription(
    emulator,
    "active",
    (sub) => sub.funding_rail === "pcstore" && !sub.cancel_at_period_end,
  );
  await signIn(page, "finance");
  await page.goto(`/subscriptions/${ended}`);
  await expect(page.getByRole("heading", { name: "Billing periods" })).toBeVisible();
  await expect(
    page.getByText(/This subscription has ended \((canceled|expired)\): nothing to cancel or change\./),
  ).toBeVisible();
  for (const name of ["Cancel subscription…", "Change price…", "Change payment method…"])
    await expect(page.getByRole("button", { name })).toHaveCount(0);
  await shoot(page, "finance-subscription-ended");

  await page.goto(`/subscriptions/${pcstore}`);
  await expect(page.getByRole("button", { name: "Change price…" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Change payment method…" })).toHaveCount(0);
  await expect(page.getByText("The payment method of a pcstore subscription is managed in the pcstore.")).toBeVisible();
  await shoot(page, "finance-subscription-pcstore");
  // A price increase the service refuses on a pcstore subscription is refused on its field, and never sent.
  await page.getByRole("button", { name: "Change price…" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("New price (USD)").fill("999.00");
  await expect(dialog.getByText(/cannot be raised on a pcstore subscription/).first()).toBeVisible();
  await dialog.getByRole("button", { name: "Stage the new price" }).click();
  await expect(
    dialog.getByRole("alert").filter({ hasText: "cannot be raised on a pcstore subscription" }),
  ).toBeVisible();
  await expect(dialog).toBeVisible();
});

test("[finance] is not offered a payment method change on a wallet-only subscription with no card to attach", async ({
  page,
}) => {
  let subscriptionId = "";
  for (let n = 1; n <= 3_200 && !subscriptionId; n++) {
    const email = encodeURIComponent(`player${n}@demo.example`);
    const list = await service(`/api/subscriptions/player?player_email=${email}&status=active`);
    const walletOnly = (list.subscriptions as Record<string, unknown>[]).find(
      (sub) => sub.wallet_only === true && !sub.cancel_at_period_end,
    );
    if (!walletOnly) continue;
    const saved = await service(`/api/currency-purchases/player-cards?player_email=${email}`);
    if ((saved.cards as unknown[]).length === 0) subscriptionId = String(walletOnly.subscription_id);
  }
  expect(subscriptionId, "a demo wallet-only subscription whose player saved no card").not.toBe("");
  await signIn(page, "finance");
  await page.goto(`/subscriptions/${subscriptionId}`);
  await expect(page.getByRole("button", { name: "Change price…" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Change payment method…" })).toHaveCount(0);
  await expect(
    page.getByText("This subscription is wallet only and the player has no saved card to attach."),
  ).toBeVisible();
});

test("[viewer] sees a subscription and its periods but no refund or cancel controls, nor saved cards", async ({
  page,
}) => {
  const candidate = await findCandidate(used);
  await signIn(page, "viewer");
  await page.goto(`/subscriptions/players/${encodeURIComponent(candidate.email)}`);
  await expect(page.getByRole("heading", { name: "Balance" })).toBeVisible();
  await expect(page.getByText("Saved cards are shown to support and above.")).toBeVisible();
  await expect(page.getByText(/expires \d{2}\/\d{4} · card id/)).toHaveCount(0);
  await page.goto(`/subscriptions/${candidate.subscriptionId}`);
  await expect(page.getByRole("heading", { name: "Billing periods" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel subscription…" })).toHaveCount(0);
  await page.goto(`/subscriptions/periods/${candidate.periodId}`);
  await expect(page.getByRole("heading", { name: "Refund events" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Refund this period" })).toHaveCount(0);
});

test("[admin] sets the support refund limit", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/settings");
  await page.getByRole("link", { name: "Refunds" }).click();
  await expect(page).toHaveURL(/\/settings\/refunds$/);
  await page.getByLabel("Largest refund support may make (USD)").fill("75.5");
  await page.getByRole("button", { name: "Save limit" }).click();
  await expect(
    page.getByText("Support may now refund up to USD 75.50 per period, in total; beyond that, refunds need finance."),
  ).toBeVisible();
  await shoot(page, "settings-refunds");
  await page.getByLabel("Largest refund support may make (USD)").fill("50.00");
  await page.getByRole("button", { name: "Save limit" }).click();
  await expect(
    page.getByText("Support may now refund up to USD 50.00 per period, in total; beyond that, refunds need finance."),
  ).toBeVisible();
});
