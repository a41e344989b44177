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
const activeSubscription = () =>
  findDemoSubscription(emulator, "active", (s) => s.cancel_at_period_end === false, { from: 2_400, to: 2_600 });

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
  const ended = await fetch(`${process.env.E2E_EMULATOR_URL}/sandbox/api/subscriptions/${subscriptionId}/cancel`, {
    method: "POST",
    headers: { "X-Game-Secret-Key": DEMO_GAME_SECRET, "content-type": "application/json" },
    body: JSON.stringify({ at_period_end: false, reason: "Ended elsewhere" }),
  });
  expect(ended.status).toBe(200);
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
