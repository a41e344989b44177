import { expect, test } from "./fixtures/test";
import { DEMO_GAME_SECRET } from "../emulator/scenario/demo";
import { suiteEmulator } from "./fixtures/emulator";
import { findDemoSubscription } from "./fixtures/refunds";
import { shoot, signIn } from "./fixtures/session";

/**
 * A dialog refused because what the page showed moved on, when the page drawn again no longer offers the dialog: the
 * refusal stays on the page, read out, and focus stays in the page's content rather than falling to its start.
 */
const emulator = suiteEmulator();

/** An active subscription not set to end, of a player no other spec picks (the refund specs take the first 200). */
const activeSubscription = (players = { from: 2_400, to: 2_600 }) =>
  findDemoSubscription(emulator, "active", (s) => s.cancel_at_period_end === false && Boolean(s.paid_through), players);

/** A colleague's (another tool's) cancel at the service, while the page still shows the subscription as it was. */
async function cancelElsewhere(subscriptionId: string, atPeriodEnd: boolean) {
  const answer = await fetch(`${process.env.E2E_EMULATOR_URL}/sandbox/api/subscriptions/${subscriptionId}/cancel`, {
    method: "POST",
    headers: { "X-Game-Secret-Key": DEMO_GAME_SECRET, "content-type": "application/json" },
    body: JSON.stringify({ at_period_end: atPeriodEnd, reason: "Ended elsewhere" }),
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as { cancel_at_period_end: boolean };
}

test("[support] a cancel refused because a colleague ended the subscription first stays on the page", async ({
  page,
}) => {
  const subscriptionId = await activeSubscription();
  await signIn(page, "support");
  await page.goto(`/subscriptions/${subscriptionId}`);
  await page.getByRole("button", { name: "Cancel subscription…" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this subscription?" });
  await dialog.getByLabel("Reason").fill("Asked by the player");
  // Meanwhile ended at the service (a colleague, another tool): the page still offers the cancel.
  await cancelElsewhere(subscriptionId, false);
  await dialog.getByRole("button", { name: "Cancel subscription" }).click();
  // The page drawn again shows the subscription ended and offers no cancel; the refusal is kept at its top.
  await expect(page.getByText(/This subscription has ended \(canceled\)/)).toBeVisible();
  await expect(dialog).toBeHidden();
  const alert = page.getByRole("alert").filter({ hasText: "The subscription changed since this page was drawn" });
  await expect(alert).toBeVisible();
  await expect(page.locator("#main-content")).toBeFocused();
  await shoot(page, "support-cancel-refused-gone");
  await alert.getByRole("button", { name: "Dismiss the message" }).press("Enter");
  await expect(alert).toBeHidden();
  // The button went with the message: focus goes on from the page's content, not the document's start.
  await expect(page.locator("#main-content")).toBeFocused();
});

test("[support] a cancel at the period's end refused because a colleague did it first never ends it now", async ({
  page,
}) => {
  const subscriptionId = await activeSubscription({ from: 2_600, to: 2_800 });
  await signIn(page, "support");
  await page.goto(`/subscriptions/${subscriptionId}`);
  await page.getByRole("button", { name: "Cancel subscription…" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this subscription?" });
  await expect(dialog.getByRole("radio", { name: "At the end of the paid period (default)" })).toBeChecked();
  expect((await cancelElsewhere(subscriptionId, true)).cancel_at_period_end).toBe(true);
  await dialog.getByRole("button", { name: "Cancel subscription" }).click();
  await expect(dialog.getByRole("alert")).toContainText("The subscription changed since this page was drawn");
  // Drawn again behind the dialog as ending: what was asked is done, and ending it now is the person's choice.
  await expect(dialog.getByText(/Meanwhile it was set to end at the end of its paid period/)).toBeVisible();
  const periodEnd = dialog.getByRole("radio", { name: "At the end of the paid period (already set: nothing is sent)" });
  await expect(periodEnd).toBeChecked();
  await shoot(page, "support-cancel-ending-meanwhile");
  await dialog.getByRole("button", { name: "Cancel subscription" }).click();
  await expect(dialog.getByRole("alert")).toContainText(
    "It is already set to end at the end of its paid period. Nothing was sent.",
  );
  const read = await emulator.service(`/api/subscriptions/${subscriptionId}`);
  expect(read.subscription).toMatchObject({ status: "active", cancel_at_period_end: true });
  await page.keyboard.press("Escape");

  // Set to end at its paid period's end: a price or card change would never be used.
  await page.context().clearCookies();
  await signIn(page, "finance");
  await page.goto(`/subscriptions/${subscriptionId}`);
  await expect(page.getByText(/a price or payment method change would never\s+be used/)).toBeVisible();
  for (const name of ["Change price…", "Change payment method…"])
    await expect(page.getByRole("button", { name })).toHaveCount(0);
});
