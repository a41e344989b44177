import { expect, test } from "./fixtures/test";
import { confirmDialog } from "./fixtures/dialogs";
import { suiteEmulator } from "./fixtures/emulator";
import { shoot, signIn } from "./fixtures/session";
import { SLACK } from "./fixtures/slack";
import { query } from "./fixtures/query";

/**
 * A chargeback on a recipient's renewal, end to end: the emulator opens a dispute and sends purchase.disputed to the
 * app; the recipient's page shows the dispute and the flag blocking approval; the dispute is lost (shown with its
 * amount) and finance overrides the loss with a reason.
 */

const MONTH = "2026-06";
const LABEL = "June 2026";
const WINDOW_PATH = `/payouts/${MONTH}`;

const { admin: emulatorAdmin } = suiteEmulator();

async function disputeIs(disputeId: string, status: string): Promise<void> {
  await expect(async () => {
    const rows = await query<{ status: string }>("select status from service_dispute where dispute_id = $1", [
      disputeId,
    ]);
    expect(rows[0]?.status).toBe(status);
  }).toPass({ timeout: 30_000 * SLACK });
}

test("[finance] a disputed renewal blocks the recipient's payout; lost, it shows its amount until overridden", async ({
  page,
  a11y,
}) => {
  test.setTimeout(180_000 * SLACK);
  await signIn(page, "finance");
  await page.getByRole("button", { name: "Take snapshot" }).click();
  const snapDialog = page.getByRole("dialog");
  await snapDialog.getByRole("textbox", { name: "Month" }).fill(MONTH);
  await snapDialog.getByRole("button", { name: "Take snapshot" }).click();
  await expect(snapDialog).toBeHidden();
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("link", { name: LABEL, exact: true })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 120_000 * SLACK });
  await page.goto(WINDOW_PATH);
  await page.getByRole("button", { name: "Prepare payout batch" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Prepare" }).click();
  await expect(page.getByText("Draft batch").first()).toBeVisible({ timeout: 30_000 * SLACK });

  // A card-charged renewal of a resolved recipient in the batch's snapshot.
  const [line] = await query<{ period_id: string; recipient_player_id: string }>(
    `select l.period_id::text, l.recipient_player_id::text from snapshot_line l
       join payout_batch b on b.snapshot_id = l.snapshot_id and b.status = 'draft'
       join snapshot_recipient r on r.snapshot_id = l.snapshot_id and r.recipient_player_id = l.recipient_player_id
       and r.resolved
      where b.window_start = $1 and l.mint_order_id is not null and l.attributed_amount_usd > 0
      order by l.period_id limit 1`,
    [`${MONTH}-01T00:00:00Z`],
  );
  expect(line).toBeDefined();
  const opened = await emulatorAdmin("/disputes", { period_id: Number(line!.period_id), reason: "fraudulent" });
  const disputeId = String(opened.dispute_id);
  await disputeIs(disputeId, "open");

  await page.goto(`${WINDOW_PATH}/recipients/${line!.recipient_player_id}`);
  await expect(page.getByText("Disputed renewal: blocks approval")).toBeVisible();
  const disputes = page.getByRole("table", { name: /Disputes of this recipient/ });
  await expect(disputes).toContainText(disputeId);
  await expect(disputes).toContainText("Open");
  await shoot(page, "finance-dispute-open");
  // Its period is not refunded meanwhile: the page says why instead of offering the form.
  await page.goto(`/subscriptions/periods/${line!.period_id}`);
  await expect(page.getByText(/^The cardholder disputed this period's card charge/)).toBeVisible();
  await expect(page.getByRole("button", { name: /Review refund/ })).toHaveCount(0);
  await a11y.check();
  await shoot(page, "finance-dispute-period");
  await page.goto(`${WINDOW_PATH}/recipients/${line!.recipient_player_id}`);

  await emulatorAdmin(`/disputes/${disputeId}/close`, { dispute_status: "lost" });
  await disputeIs(disputeId, "lost");
  await page.reload();
  await expect(disputes).toContainText("Closed lost");
  await expect(disputes).toContainText(String(opened.usd_amount));
  await expect(page.getByText(/lost on period .* charged back/)).toBeVisible();
  await shoot(page, "finance-dispute-lost");

  await confirmDialog(page, "Override…", "Override flag", async (dialog) => {
    await dialog.getByLabel("Reason").fill("Chargeback recovered from the recipient by separate invoice");
  });
  await expect(page.getByRole("status").filter({ hasText: "Flag overridden; the reason is kept" })).toBeVisible();
  await expect(page.getByText("Disputed renewal: blocks approval")).toHaveCount(0);
  await expect(disputes).toContainText("Chargeback recovered from the recipient by separate invoice");
  await shoot(page, "finance-dispute-overridden");

  await page.goto(`${WINDOW_PATH}?q=${line!.recipient_player_id}`);
  await expect(page.getByRole("table", { name: /^Recipient payouts/ })).toContainText("Disputed renewal (overridden)");
  await shoot(page, "finance-dispute-window");
});
