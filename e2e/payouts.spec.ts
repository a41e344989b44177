import { expect, type Page, test } from "./fixtures/test";
import { E2E_PASSWORD } from "./fixtures/users";
import path from "node:path";
import { shoot, signIn } from "./fixtures/session";

/** The first screenful only, for pages too long to read as one picture. */
async function shootTop(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.resolve(import.meta.dirname, "screenshots", `${name}.png`) });
}

/**
 * Month-end payout review of a demo window, end to end: a finance user takes the snapshot, reviews the window, opens a
 * recipient's evidence, holds one recipient with a reason and approves the rest; a second finance user approves the
 * batch and records the payment; a viewer sees everything and can change nothing.
 */

const MONTH = "2026-08";
const LABEL = "August 2026";
const WINDOW_PATH = `/payouts/${MONTH}`;
const HOLD_REASON = "W-8BEN tax form missing for this recipient";

async function signInAsSecondFinance(page: Page): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill("finance2@e2e.test");
  await page.getByLabel("Password").fill(E2E_PASSWORD);
  await page.getByLabel("Password").press("Enter");
  await expect(page).toHaveURL(/\/payouts$/);
}

async function confirmDialog(page: Page, trigger: RegExp | string, confirm: RegExp | string, fill?: (dialog: ReturnType<Page["getByRole"]>) => Promise<void>) {
  await page.getByRole("button", { name: trigger }).first().click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  if (fill) await fill(dialog);
  await dialog.getByRole("button", { name: confirm }).click();
  await expect(dialog).toBeHidden({ timeout: 30_000 });
}

test.describe.configure({ mode: "serial" });

test.describe("payout review", () => {
  test("[finance] reviews a demo window, opens evidence, holds one recipient and approves the rest", async ({ page }) => {
    test.setTimeout(180_000);
    await signIn(page, "finance");

    // The snapshot, through the Payouts page's own form.
    await page.getByRole("button", { name: "Take snapshot" }).click();
    const snapDialog = page.getByRole("dialog");
    await snapDialog.getByRole("textbox", { name: "Month" }).fill(MONTH);
    await snapDialog.getByRole("button", { name: "Take snapshot" }).click();
    await expect(snapDialog).toBeHidden();
    await expect(async () => {
      await page.reload();
      await expect(page.getByRole("link", { name: LABEL, exact: true })).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 120_000 });
    await expect(page.getByRole("heading", { name: "Payout windows" })).toBeVisible();
    await shoot(page, "finance-payouts-overview");

    await page.getByRole("link", { name: LABEL, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${WINDOW_PATH}$`));
    await expect(page.getByRole("heading", { name: LABEL, level: 1 })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Totals of the window" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Unattributed renewals by reason" })).toContainText("spend_order_not_found");

    await confirmDialog(page, "Prepare payout batch", "Prepare");
    await expect(page.getByText("Draft batch").first()).toBeVisible();
    const table = page.getByRole("table", { name: /^Recipient payouts/ });
    await expect(table.getByRole("row")).not.toHaveCount(1);

    // Window-level flags block approval until overridden with a written reason.
    const overrides = page.getByRole("button", { name: "Override…" });
    const windowFlagCount = await overrides.count();
    for (let i = 0; i < windowFlagCount; i += 1) {
      await confirmDialog(page, "Override…", "Override flag", async (dialog) => {
        await dialog.getByLabel("Reason").fill("Checked with the service: the unreachable spend orders are test purchases");
      });
    }
    await expect(page.getByRole("button", { name: "Override…" })).toHaveCount(0);
    await shoot(page, "finance-payouts-window");

    // Keyboard: sorting by payable from the column header.
    await table.getByRole("button", { name: "Payable" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/sort=payable/);

    // Evidence of the recipient with the most net attributed.
    await page.goto(WINDOW_PATH);
    const firstRecipient = page.getByRole("table", { name: /^Recipient payouts/ }).getByRole("rowheader").first().getByRole("link");
    const recipientName = (await firstRecipient.textContent())?.trim() ?? "";
    await firstRecipient.click();
    await expect(page).toHaveURL(/\/recipients\/\d+$/);
    await expect(page.getByRole("heading", { name: /Renewal lines \(/ })).toBeVisible();
    await expect(page.getByRole("heading", { name: /Reversals reported in this window/ })).toBeVisible();
    await expect(page.getByRole("link", { name: /^SUB_/ }).first()).toHaveAttribute("href", /^\/subscriptions\/SUB_/);
    await expect(page.getByRole("link", { name: /^\d+$/ }).first()).toHaveAttribute("href", /^\/subscriptions\/periods\/\d+$/);
    await shoot(page, "finance-payouts-evidence");
    await shootTop(page, "finance-payouts-evidence-top");
    await page.getByRole("heading", { name: /Reversals reported in this window/ }).scrollIntoViewIfNeeded();
    await shootTop(page, "finance-payouts-evidence-reversals");

    // Hold that recipient with a reason, from the evidence page.
    await confirmDialog(page, "Hold…", "Hold payout", async (dialog) => {
      await dialog.getByLabel("Reason").fill(HOLD_REASON);
    });
    await expect(page.getByText("Held").first()).toBeVisible();
    await expect(page.getByText(HOLD_REASON).first()).toBeVisible();

    // Recipients the service cannot resolve stay flagged: hold them too, by bulk action, with the same care.
    await page.goto(`${WINDOW_PATH}?show=flagged&state=draft`);
    const flaggedRows = page.getByRole("table", { name: /^Recipient payouts/ }).getByRole("checkbox", { name: /^Select / });
    if ((await flaggedRows.count()) > 0) {
      await page.getByRole("checkbox", { name: "Select all rows on this page" }).check();
      await confirmDialog(page, "Hold selected…", "Hold", async (dialog) => {
        await dialog.getByLabel("Reason").fill("Unresolved recipient: the service has no player record to pay");
      });
    }

    // Approve the rest.
    await page.goto(WINDOW_PATH);
    await confirmDialog(page, "Approve all unflagged", "Approve");
    await expect(page.getByRole("status").filter({ hasText: /Approved/ }).or(page.getByText(/Approved \d/)).first()).toBeVisible();
    await page.goto(`${WINDOW_PATH}?state=draft`);
    await expect(page.getByText("No rows match")).toBeVisible();

    // The preparer may not approve the batch (two-person rule).
    await page.goto(WINDOW_PATH);
    await page.getByRole("button", { name: "Approve batch" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Approve batch" }).click();
    await expect(dialog.getByRole("alert")).toContainText("Two-person rule");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await page.goto(`${WINDOW_PATH}?state=held`);
    await expect(page.getByRole("table", { name: /^Recipient payouts/ })).toContainText(recipientName);
    await shoot(page, "finance-payouts-held");
  });

  test("[finance] a second finance user approves the batch and records the payment", async ({ page }) => {
    await signInAsSecondFinance(page);
    await page.goto(WINDOW_PATH);
    await confirmDialog(page, "Approve batch", "Approve batch");
    await expect(page.getByText("Approved", { exact: true }).first()).toBeVisible();
    await confirmDialog(page, "Mark approved paid…", "Record payment", async (d) => {
      await d.getByLabel("Method").selectOption("bank_transfer");
      await d.getByLabel("External reference").fill("WIRE-2026-08-001");
    });
    await expect(page.getByText("Paid", { exact: true }).first()).toBeVisible();
    await page.goto(`${WINDOW_PATH}?state=paid`);
    await expect(page.getByRole("table", { name: /^Recipient payouts/ }).getByText("Paid").first()).toBeVisible();
    await page.goto(`${WINDOW_PATH}?state=held`);
    await expect(page.getByText(HOLD_REASON).first()).toBeVisible();
    await shoot(page, "finance2-payouts-paid");
    await page.goto(WINDOW_PATH);
    await shootTop(page, "finance2-payouts-window-top");

    // The held recipient is still owed: the liability view says so.
    await page.goto("/payouts/liability");
    await expect(page.getByRole("heading", { name: "Liability", level: 1 })).toBeVisible();
    await expect(page.getByRole("table", { name: /Liability per recipient/ })).toBeVisible();
    await shoot(page, "finance2-liability");
    await shootTop(page, "finance2-liability-top");

    // A paid recipient's history shows the payment and its reference.
    await page.goto(`${WINDOW_PATH}?state=paid`);
    await page.getByRole("table", { name: /^Recipient payouts/ }).getByRole("rowheader").first().getByRole("link").click();
    await page.getByRole("link", { name: "History across months" }).click();
    await expect(page.getByText("Check passed: paid + carried = net attributed over the windows paid from.")).toBeVisible();
    await expect(page.getByRole("table", { name: "Ledger entries with the running balance" })).toContainText("WIRE-2026-08-001");
    await shoot(page, "finance2-recipient-history");
  });

  test("[viewer] sees the window, evidence and ledger but cannot change anything", async ({ page }) => {
    await signIn(page, "viewer");
    await page.goto(WINDOW_PATH);
    await expect(page.getByRole("heading", { name: LABEL, level: 1 })).toBeVisible();
    await expect(page.getByRole("table", { name: /^Recipient payouts/ })).toBeVisible();
    for (const name of ["Prepare payout batch", "Approve batch", "Approve all unflagged", "Mark approved paid…", "Override…", "Take snapshot"]) {
      await expect(page.getByRole("button", { name })).toHaveCount(0);
    }
    await expect(page.getByRole("checkbox")).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Exports" })).toHaveCount(0);
    await page.getByRole("table", { name: /^Recipient payouts/ }).getByRole("rowheader").first().getByRole("link").click();
    await expect(page.getByRole("heading", { name: /Renewal lines/ })).toBeVisible();
    await expect(page.getByRole("button", { name: /Hold|Approve|Release|Mark paid/ })).toHaveCount(0);
    await shoot(page, "viewer-payouts-evidence");
    const refused = await page.request.get(`/api/exports/payouts?snapshot=00000000-0000-4000-8000-000000000000`);
    expect(refused.status()).toBe(403);
  });
});

// Exports of the paid batch (the export routes: app/api/exports/[kind]).
test.describe("payout exports", () => {
  test("[finance] downloads each export of the paid window", async ({ page }) => {
    await signIn(page, "finance");
    await page.goto(WINDOW_PATH);
    const exportsCard = page.getByRole("region", { name: "Exports" }).or(page.locator("section", { has: page.getByRole("heading", { name: "Exports" }) }));
    for (const label of ["Payout file (CSV)", "Journal (CSV)", "Renewal lines (CSV)", "Reversals and refund events (CSV)"]) {
      const link = exportsCard.getByRole("link", { name: label });
      const href = await link.getAttribute("href");
      expect(href).toMatch(/^\/api\/exports\/(payouts|journal|lines|reversals)\?(batch|snapshot)=[0-9a-f-]{36}$/);
      const download = page.waitForEvent("download");
      await link.click();
      const file = await download;
      expect(await file.failure()).toBeNull();
      const response = await page.request.get(href ?? "");
      expect(response.status()).toBe(200);
      expect(response.headers()["content-type"]).toMatch(/text\/csv/);
      const text = await response.text();
      expect(text.split("\n").filter(Boolean).length).toBeGreaterThan(1);
    }
  });
});
