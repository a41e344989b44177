import { expect, test } from "./fixtures/test";
import { DEMO_GAME_SECRET } from "../emulator/scenario/demo";
import { suiteEmulator } from "./fixtures/emulator";
import { shoot, signIn } from "./fixtures/session";

/**
 * A dialog refused because what the page showed moved on, when the page drawn again no longer offers the dialog: the
 * refusal stays on the page, read out, and focus stays in the page's content rather than falling to its start.
 */
const { service } = suiteEmulator();

/** An active card subscription of a player no other spec picks (the refund specs take the first 200 players). */
async function activeSubscription(): Promise<string> {
  for (let n = 2_400; n <= 2_600; n++) {
    const email = encodeURIComponent(`player${n}@demo.example`);
    const list = await service(`/api/subscriptions/player?player_email=${email}&status=active`);
    const found = (list.subscriptions as Record<string, unknown>[]).find((s) => s.cancel_at_period_end === false);
    if (found) return String(found.subscription_id);
  }
  throw new Error("no active demo subscription among players 2,400 to 2,600");
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
  await alert.getByRole("button", { name: "Dismiss the message" }).click();
  await expect(alert).toBeHidden();
});
