import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import { preparePaidWindow } from "./fixtures/paid-window";
import { shoot, signIn } from "./fixtures/session";
import { expect, test } from "./fixtures/test";
import { SLACK } from "./fixtures/slack";

/**
 * Accounting at month end: an admin maps the game's ledger accounts, finance downloads the window's Xero manual
 * journals and closes the paid window with a reason.
 */

// A month no other spec prepares: closing it must not refuse their batches.
const MONTH = "2026-04";
const WINDOW_PATH = `/payouts/${MONTH}`;
const ACCOUNTS = [
  { label: "Revenue share expense", code: "6100", tax: "No GST" },
  { label: "Revenue share payable", code: "2150", tax: "BAS Excluded" },
  { label: "Revenue share payouts clearing", code: "1090", tax: "BAS Excluded" },
  { label: "Returned payouts", code: "1095", tax: "BAS Excluded" },
];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000 * SLACK);
  await preparePaidWindow(MONTH);
});

test("[finance] sees why the ledger files cannot be made while the accounts are unmapped", async ({ page }) => {
  await signIn(page, "finance");
  await page.goto(WINDOW_PATH);
  const exportsRegion = page.getByRole("region", { name: "Exports" });
  await expect(exportsRegion).toContainText("Accounts not mapped");
  await expect(exportsRegion).toContainText("/settings/accounting");
  await expect(exportsRegion.getByRole("link", { name: /Xero manual journals/ })).toHaveCount(0);
  await expect(exportsRegion.getByRole("link", { name: "Journal (CSV)" })).toBeVisible();
});

test("[admin] maps each account to a ledger code and tax rate; a refused code keeps what was typed", async ({
  page,
}) => {
  await signIn(page, "admin");
  await page.goto("/settings/accounting");
  await expect(page.getByRole("heading", { name: "Accounting", level: 1 })).toBeVisible();
  const [first] = ACCOUNTS;
  if (!first) throw new Error("no accounts");
  const expense = page.getByRole("form", { name: `Map ${first.label}` });
  await expense.getByLabel(`${first.label}: tax rate name`).fill(first.tax);
  await expense.getByRole("button", { name: `Map ${first.label.toLowerCase()}` }).click();
  await expect(expense.getByRole("alert")).toContainText("Code is required");
  await expect(expense.getByLabel(`${first.label}: tax rate name`)).toHaveValue(first.tax);
  await shoot(page, "admin-accounting-refused");

  for (const account of ACCOUNTS) {
    const form = page.getByRole("form", { name: `Map ${account.label}` });
    await form.getByLabel(`${account.label}: account code`).fill(account.code);
    await form.getByLabel(`${account.label}: tax rate name`).fill(account.tax);
    await form.getByRole("button", { name: new RegExp(`${account.label.toLowerCase()}$`) }).click();
    await expect(page.getByText(`Now: ${account.code}`)).toBeVisible();
  }
  await expect(page.getByText("All mapped")).toBeVisible();
  await shoot(page, "admin-accounting-mapped");
});

test("[finance] downloads the window's Xero manual journals and closes the paid window with a reason", async ({
  page,
  a11y,
}) => {
  await signIn(page, "finance");
  await page.goto(WINDOW_PATH);
  const exportsRegion = page.getByRole("region", { name: "Exports" });
  const xero = exportsRegion.getByRole("link", { name: /^Xero manual journals/ }).first();
  await expect(xero).toBeVisible();
  const quickbooks = exportsRegion.getByRole("link", { name: /^QuickBooks Online journal entries/ });
  await expect(quickbooks.first()).toBeVisible();
  const quickbooksParts = await quickbooks.count();
  // The spreadsheet option marks the files for a spreadsheet, never the ones made for the ledger's import.
  await exportsRegion.getByRole("checkbox", { name: "For a spreadsheet app" }).check();
  await expect(exportsRegion.getByRole("link", { name: "Payout file (CSV)" })).toHaveAttribute("href", /&bom=1$/);
  await expect(xero).not.toHaveAttribute("href", /bom=1/);
  await expect(quickbooks.first()).not.toHaveAttribute("href", /bom=1/);
  await exportsRegion.screenshot({
    path: new URL("./screenshots/finance-accounting-exports.png", import.meta.url).pathname,
  });

  const [download] = await Promise.all([page.waitForEvent("download"), xero.click()]);
  expect(download.suggestedFilename()).toMatch(/_journal-xero_2026-04-01_2026-05-01_v\d+_batch-[0-9a-f]{8}/);
  const [header, ...rows] = parse(await readFile(await download.path(), "utf8")) as string[][];
  // The header of Xero's downloaded template, an asterisk marking each mandatory column.
  expect(header).toEqual([
    "*Narration",
    "*Date",
    "Description",
    "*AccountCode",
    "*TaxRate",
    "*Amount",
    "TrackingName1",
    "TrackingOption1",
    "TrackingName2",
    "TrackingOption2",
  ]);
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.length).toBeLessThanOrEqual(300);
  const codes = new Set(ACCOUNTS.map((a) => a.code));
  for (const row of rows) {
    expect(row[1]).toMatch(/^\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) 2026$/);
    expect(codes.has(row[3] ?? "")).toBe(true);
  }

  // The page a large batch links to lists the same parts, each download carrying the split it was listed under.
  await page.goto(`${WINDOW_PATH}/parts/journal-xero`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Xero manual journals");
  const parts = page.getByRole("region", { name: "Parts" }).getByRole("link", { name: /^Xero manual journals/ });
  await expect(parts.first()).toHaveAttribute("href", /part=1&split=[0-9a-f]{16}&game=[\w-]+$/);
  await a11y.check();
  await shoot(page, "finance-xero-parts");
  // A part asked for under a split that no longer holds is refused with what to do, not downloaded.
  const listed = (await parts.first().getAttribute("href")) ?? "";
  await page.goto(listed.replace(/split=[0-9a-f]{16}/, "split=0000000000000000"));
  await expect(page).toHaveURL(/\/payouts\/export-refused\?/);
  const refusal = page.getByRole("alert").filter({ hasText: "This file cannot be made now" });
  await expect(refusal).toContainText("changed after their parts were listed");
  await expect(refusal).toContainText("Reload the window page and download every part again");
  await a11y.check();
  await shoot(page, "finance-xero-split-refused");
  // QuickBooks' entries have a page of parts too (1,000 rows a file), the same parts the window page lists.
  await page.goto(`${WINDOW_PATH}/parts/journal-quickbooks`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("QuickBooks Online journal entries");
  const entries = page.getByRole("region", { name: "Parts" }).getByRole("link", { name: /^QuickBooks Online/ });
  await expect(entries).toHaveCount(quickbooksParts);
  await expect(entries.first()).toHaveAttribute("href", /part=1&split=[0-9a-f]{16}&game=[\w-]+$/);
  await a11y.check();
  await shoot(page, "finance-quickbooks-parts");
  await page.goto(WINDOW_PATH);

  // Closing: a reason too short is refused and stays in the box; then the window closes and says so.
  const closing = page.getByRole("region", { name: "Closing" });
  const closeForm = closing.getByRole("form", { name: "Close the window" });
  await closeForm.getByLabel("Why close it").fill("ok");
  await closeForm.getByRole("button", { name: "Close the window" }).click();
  await expect(closeForm.getByRole("alert")).toContainText("must say why");
  await expect(closeForm.getByLabel("Why close it")).toHaveValue("ok");
  await closeForm.getByLabel("Why close it").fill("April books closed: the bank statement matches every payment");
  await closeForm.getByRole("button", { name: "Close the window" }).click();
  await expect(page.getByText("Window closed")).toBeVisible();
  // The answer stays said, and focus moves to it (the button it came from now reopens).
  const said = closing.getByRole("status");
  await expect(said).toContainText("is closed: no new payout batch for it");
  await expect(closing.locator(":focus")).toContainText("is closed: no new payout batch for it");
  await expect(closing).toContainText("April books closed: the bank statement matches every payment");
  await expect(closing.getByRole("form", { name: "Reopen the window" })).toBeVisible();
  await expect(closing.getByRole("button", { name: "Close the window" })).toHaveCount(0);
  await shoot(page, "finance-window-closed");
});

test("[viewer] sees the closed window and is offered neither close nor reopen", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto(WINDOW_PATH);
  await expect(page.getByText("Window closed")).toBeVisible();
  await expect(page.getByRole("region", { name: "Closing" }).getByRole("form")).toHaveCount(0);
});

test("[finance] reads the year's payee totals and downloads them", async ({ page }) => {
  await signIn(page, "finance");
  await page.getByRole("link", { name: "Year-end payee totals" }).click();
  await page.getByLabel("Year", { exact: true }).fill("2026");
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page.getByRole("heading", { name: "Year-end payee totals, 2026", level: 1 })).toBeVisible();
  const table = page.getByRole("table", { name: "Payee totals for 2026" });
  await expect(table.getByRole("row")).not.toHaveCount(1);
  await expect(table).toContainText("unknown");
  // Fifty recipients a page (the demo pays more than a hundred), the year kept from page to page.
  const pager = page.getByRole("navigation", { name: "Payee totals pages" });
  await expect(pager).toContainText(/Rows 1–50 of \d+ · page 1 of \d+/);
  await expect(table.getByRole("row")).toHaveCount(51);
  await shoot(page, "finance-payee-totals");
  await pager.getByRole("link", { name: "Next ›" }).press("Enter");
  await expect(pager).toContainText(/Rows 51–100 of \d+ · page 2 of \d+/);
  await expect(page).toHaveURL(/year=2026&page=2/);
  await expect(table.getByRole("row")).toHaveCount(51);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download payee totals (CSV)" }).click(),
  ]);
  const plain = await readFile(await download.path());
  const [header, ...rows] = parse(plain.toString("utf8")) as string[][];
  expect(header?.slice(0, 2)).toEqual(["year", "recipient_player_id"]);
  expect(rows.length).toBeGreaterThan(0);
  expect([...plain.subarray(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
  await page.getByLabel("For a spreadsheet app").check();
  const [forExcel] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download payee totals (CSV)" }).click(),
  ]);
  const marked = await readFile(await forExcel.path());
  expect([...marked.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  expect(marked.subarray(3).equals(plain)).toBe(true);
});

test("[viewer] downloads the audit log with the page's filters", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/audit?action=payouts.window_close");
  const link = page.getByRole("link", { name: "Download CSV (filtered)" });
  await expect(link).toHaveAttribute("href", "/api/audit/export?action=payouts.window_close");
  await shoot(page, "viewer-audit-download");
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  const [header, ...rows] = parse(await readFile(await download.path(), "utf8")) as string[][];
  expect(header).toContain("action");
  expect(rows.map((r) => r[(header ?? []).indexOf("action")])).toEqual(["payouts.window_close"]);
  await page.getByLabel("For a spreadsheet app").check();
  await expect(link).toHaveAttribute("href", "/api/audit/export?action=payouts.window_close&bom=1");
});

test("[finance] a download from a page of another game than the one selected now is refused, in the app", async ({
  page,
}) => {
  await signIn(page, "finance");
  // A payee totals link of a page drawn before the game was switched in another tab.
  await page.goto("/api/payee-totals?year=2026&game=another-game");
  await expect(page).toHaveURL(/\/download-refused\?game=another-game$/);
  await expect(page.getByRole("heading", { name: "Nothing was downloaded", level: 1 })).toBeVisible();
  await expect(page.getByText(/switched to Demo Game in another tab/)).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Payouts" })).toBeVisible();
  await shoot(page, "finance-download-refused");

  // Where a download another site started lands (lib/routes.ts refuses it before reading anything).
  await page.goto("/download-refused?from=elsewhere");
  await expect(page.getByRole("heading", { name: "Nothing was downloaded", level: 1 })).toBeVisible();
  await expect(page.getByText(/started from another site/)).toBeVisible();
  await shoot(page, "finance-download-refused-elsewhere");

  // Any other refused download link: its refusal on a page of the desk, not a JSON body saved as the file.
  await page.goto("/api/payee-totals?year=1999");
  await expect(page).toHaveURL(/\/download-refused\?from=refusal$/);
  await expect(page.getByRole("heading", { name: "Nothing was downloaded", level: 1 })).toBeVisible();
  await expect(page.getByText("year: must be 2000 or later")).toBeVisible();
  await shoot(page, "finance-download-refused-refusal");
});
