import { expect, type Page, test } from "./fixtures/test";
import Decimal from "decimal.js";
import { shoot, signIn } from "./fixtures/session";
import { SLACK } from "./fixtures/slack";
import { query } from "./fixtures/query";

/**
 * A closed month whose figures changed at the service after it was snapshotted: its next version drifts, and the
 * Payouts page says so with the figures that moved, though a newer month heads the list (usually the running month,
 * which cannot drift).
 */

// Months no other spec of this project snapshots.
const DRIFTING = "2025-12";
const NEWER = "2026-01";

async function takeSnapshot(page: Page, month: string, row: RegExp, state: string): Promise<void> {
  await page.getByRole("button", { name: "Take snapshot" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox", { name: "Month" }).fill(month);
  await dialog.getByRole("button", { name: "Take snapshot" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("table", { name: /^Payout windows/ }).getByRole("row", { name: row })).toContainText(
    state,
    { timeout: 60_000 * SLACK },
  );
}

test("[finance] a closed month that drifted is named on Payouts with the figures that moved", async ({ page }) => {
  test.setTimeout(180_000 * SLACK);
  await signIn(page, "finance");
  await takeSnapshot(page, DRIFTING, /December 2025/, "Complete");

  // One renewal's attributed amount is changed at the service, behind everybody's back.
  const [line] = await query<{ period_id: string; attributed_amount_usd: string }>(
    `select l.period_id::text, l.attributed_amount_usd::text from snapshot_line l
       join snapshot s on s.id = l.snapshot_id
     where s.window_start = $1 and l.attributed_amount_usd is not null
     order by l.period_id limit 1`,
    [`${DRIFTING}-01T00:00:00Z`],
  );
  expect(line).toBeDefined();
  const changed = new Decimal(line?.attributed_amount_usd ?? "0").plus(1).toFixed(2);
  const patched = await fetch(`${process.env.E2E_EMULATOR_URL}/__emulator/periods/${line?.period_id}`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ attributed_amount_usd: changed }),
  });
  expect(patched.ok, await patched.text()).toBe(true);

  await takeSnapshot(page, DRIFTING, /December 2025/, "Drift");
  await takeSnapshot(page, NEWER, /January 2026/, "Complete");
  await page.reload();

  // The newer month heads the list; December's drift is said all the same, with what moved.
  const title = page.getByText(/^Drift: .* no longer reproduces$/).filter({ hasText: /December 2025|2025-12/ });
  await expect(title).toBeVisible();
  const banner = title.locator("xpath=../..");
  await expect(banner).toContainText(
    `line ${line?.period_id} attributed_amount_usd: ${line?.attributed_amount_usd} → ${changed}`,
  );
  await expect(banner.getByRole("listitem").first()).toContainText("→");
  await shoot(page, "finance-payouts-drift");
});
