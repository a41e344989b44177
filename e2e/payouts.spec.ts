import { expect, type Page, test } from "./fixtures/test";
import { confirmDialog } from "./fixtures/dialogs";
import { SECOND_FINANCE } from "./fixtures/users";
import path from "node:path";
import { shoot, signIn } from "./fixtures/session";
import { SLACK } from "./fixtures/slack";

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

test.describe.configure({ mode: "serial" });

test.describe("payout review", () => {
  test("[finance] reviews a demo window, opens evidence, holds one recipient and approves the rest", async ({
    page,
  }) => {
    test.setTimeout(180_000 * SLACK);
    await signIn(page, "finance");

    // A refused window is not shown again when the dialog is opened anew.
    await page.getByRole("button", { name: "Take snapshot" }).click();
    const snapDialog = page.getByRole("dialog");
    const start = snapDialog.getByRole("textbox", { name: /^Start/ });
    await snapDialog.getByRole("radio", { name: "Any window" }).check();
    await start.fill("2026-02-30");
    await snapDialog.getByRole("textbox", { name: /^End/ }).fill("2026-03-02");
    await snapDialog.getByRole("button", { name: "Take snapshot" }).click();
    await expect(start).toHaveAttribute("aria-invalid", "true");
    await expect(start).toHaveValue("2026-02-30");
    await expect(snapDialog.getByRole("radio", { name: "Any window" })).toBeChecked();
    await shoot(page, "finance-snapshot-refused");
    await page.keyboard.press("Escape");
    await expect(snapDialog).toBeHidden();
    await page.getByRole("button", { name: "Take snapshot" }).click();
    await expect(snapDialog.getByRole("radio", { name: "A month (UTC)" })).toBeChecked();
    await snapDialog.getByRole("radio", { name: "Any window" }).check();
    await expect(start).toHaveValue("");
    await expect(start).not.toHaveAttribute("aria-invalid");
    await snapDialog.getByRole("radio", { name: "A month (UTC)" }).check();

    // The snapshot, through the Payouts page's own form.
    await snapDialog.getByRole("textbox", { name: "Month" }).fill(MONTH);
    await snapDialog.getByRole("button", { name: "Take snapshot" }).click();
    await expect(snapDialog).toBeHidden();
    await expect(async () => {
      await page.reload();
      await expect(page.getByRole("link", { name: LABEL, exact: true })).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 120_000 * SLACK });
    await expect(page.getByRole("heading", { name: "Payout windows" })).toBeVisible();
    await shoot(page, "finance-payouts-overview");

    await page.getByRole("link", { name: LABEL, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${WINDOW_PATH}$`));
    await expect(page.getByRole("heading", { name: LABEL, level: 1 })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Totals of the window" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Unattributed renewals by reason" })).toContainText(
      "spend_order_not_found",
    );

    await confirmDialog(page, "Prepare payout batch", "Prepare");
    await expect(page.getByText("Draft batch").first()).toBeVisible();
    const table = page.getByRole("table", { name: /^Recipient payouts/ });
    await expect(table.getByRole("row")).not.toHaveCount(1);

    // The work comes first: the recipient table starts within the first screenful.
    const tableTop = (await table.boundingBox())?.y ?? Number.POSITIVE_INFINITY;
    expect(tableTop).toBeLessThan(page.viewportSize()?.height ?? 720);
    await shootTop(page, "finance-payouts-window-draft-top");

    // Row checkboxes are named by recipient, never by a statement id.
    const rowBoxes = table.getByRole("checkbox", { name: /^Select (?!all)/ });
    await expect(rowBoxes.first()).toBeVisible();
    for (const name of await rowBoxes.evaluateAll((boxes) => boxes.map((b) => b.getAttribute("aria-label") ?? ""))) {
      expect(name).toMatch(/^Select (.+ \(player \d+\)|player \d+)$/);
      expect(name).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    }

    // Exports offer only what can be made now: no journal of a draft; the spreadsheet option is a checkbox.
    const exportsRegion = page.getByRole("region", { name: "Exports" });
    await expect(exportsRegion.getByRole("link", { name: "Journal (CSV)" })).toHaveCount(0);
    await expect(exportsRegion).toContainText("The journal is empty until the batch is approved");
    const payoutLink = exportsRegion.getByRole("link", { name: "Payout file (CSV)" });
    await expect(payoutLink).not.toHaveAttribute("href", /bom=1/);
    await exportsRegion.getByRole("checkbox", { name: "For a spreadsheet app" }).check();
    await expect(payoutLink).toHaveAttribute("href", /&bom=1$/);
    const batchQuery = new URL((await payoutLink.getAttribute("href")) ?? "", "http://x").searchParams.get("batch");
    await exportsRegion.screenshot({
      path: path.resolve(import.meta.dirname, "screenshots", "finance-payouts-exports-draft.png"),
    });

    // A refused download opened in the browser is a page of the app with the reason, not a JSON file.
    await page.goto(`/api/exports/journal?batch=${batchQuery}`);
    await expect(page).toHaveURL(/\/payouts\/export-refused\?/);
    await expect(page.getByRole("heading", { name: "Journal: not downloaded", level: 1 })).toBeVisible();
    await expect(page.getByRole("alert").filter({ hasText: "This file cannot be made now" })).toContainText(
      "The journal is empty until the batch is approved",
    );
    await expect(page.getByRole("navigation").first()).toBeVisible();
    await shootTop(page, "finance-export-refused");
    // A script still gets JSON.
    const api = await page.request.get(`/api/exports/journal?batch=${batchQuery}`, {
      headers: { Accept: "application/json" },
    });
    expect(api.status()).toBe(409);
    expect(((await api.json()) as { error: { message: string } }).error.message).toContain(
      "until the batch is approved",
    );
    await page.getByRole("link", { name: `Back to ${LABEL}` }).click();
    await expect(page).toHaveURL(new RegExp(`${WINDOW_PATH}$`));

    // Window-level flags block approval until overridden with a written reason.
    const overrides = page.getByRole("button", { name: "Override…" });
    const windowFlagCount = await overrides.count();
    for (let i = 0; i < windowFlagCount; i += 1) {
      await confirmDialog(page, "Override…", "Override flag", async (dialog) => {
        await dialog
          .getByLabel("Reason")
          .fill("Checked with the service: the unreachable spend orders are test purchases");
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
    const firstRecipient = page
      .getByRole("table", { name: /^Recipient payouts/ })
      .getByRole("rowheader")
      .first()
      .getByRole("link");
    const recipientName = (await firstRecipient.textContent())?.trim() ?? "";
    await firstRecipient.click();
    await expect(page).toHaveURL(/\/recipients\/\d+$/);
    await expect(page.getByRole("heading", { name: /Renewal lines \(/ })).toBeVisible();
    await expect(page.getByRole("heading", { name: /Reversals reported in this window/ })).toBeVisible();
    await expect(page.getByRole("link", { name: /^SUB_/ }).first()).toHaveAttribute("href", /^\/subscriptions\/SUB_/);
    await expect(page.getByRole("link", { name: /^\d+$/ }).first()).toHaveAttribute(
      "href",
      /^\/subscriptions\/periods\/\d+$/,
    );
    await shoot(page, "finance-payouts-evidence");
    await shootTop(page, "finance-payouts-evidence-top");
    await page.getByRole("heading", { name: /Reversals reported in this window/ }).scrollIntoViewIfNeeded();
    await shootTop(page, "finance-payouts-evidence-reversals");
    // A badge's reason is shown on keyboard focus too, not only on hover.
    const basis = page.getByText(/^(Exact, per refund|Estimated for the whole period): /).first();
    await basis.focus();
    await expect(basis).toBeFocused();
    await expect(page.getByRole("tooltip")).toContainText(/refund by refund|No per-refund detail/);
    await shootTop(page, "finance-payouts-evidence-badge-reason");
    await page.keyboard.press("Escape");
    await expect(page.getByRole("tooltip")).toBeHidden();

    // Hold that recipient with a reason, from the evidence page. A refused reason stays typed, with the error.
    await page.getByRole("button", { name: "Hold…" }).click();
    const holdDialog = page.getByRole("dialog");
    await holdDialog.getByLabel("Reason").fill("W-8");
    await holdDialog.getByRole("button", { name: "Hold payout" }).click();
    await expect(holdDialog.getByRole("alert")).toContainText(/at least 5 characters/);
    await expect(holdDialog.getByLabel("Reason")).toHaveValue("W-8");
    await holdDialog.getByLabel("Reason").fill(HOLD_REASON);
    await holdDialog.getByRole("button", { name: "Hold payout" }).click();
    await expect(holdDialog).toBeHidden({ timeout: 30_000 * SLACK });
    await expect(page.getByText("Held").first()).toBeVisible();
    await expect(page.getByText(HOLD_REASON).first()).toBeVisible();

    // Recipients the service cannot resolve stay flagged: hold them too, by bulk action, with the same care (the focus
    // then on the table's selection line, not at the page's start).
    await page.goto(`${WINDOW_PATH}?show=flagged&state=draft`);
    const flaggedRows = page
      .getByRole("table", { name: /^Recipient payouts/ })
      .getByRole("checkbox", { name: /^Select / });
    if ((await flaggedRows.count()) > 0) {
      await page.getByRole("checkbox", { name: "Select all rows on this page" }).check();
      await confirmDialog(page, "Hold selected…", "Hold", async (dialog) => {
        await dialog.getByLabel("Reason").fill("Unresolved recipient: the service has no player record to pay");
      });
      // The table's selection line, or the table itself when no row it could act on is left (the line goes too).
      await expect(page.getByRole("status").filter({ hasText: /^Held \d+ statements?\./ })).toBeVisible();
      const focusLandedWell = () =>
        page.evaluate(() => {
          const at = document.activeElement;
          const line = [...document.querySelectorAll('[role="status"]')].find(
            (e) => e.textContent === "No rows selected",
          );
          const onTable = /^Recipient payouts.* \(scrolls sideways\)$/.test(at?.getAttribute("aria-label") ?? "");
          return line ? at === line : onTable;
        });
      await expect.poll(focusLandedWell).toBe(true);
    }

    // Approve the rest.
    await page.goto(WINDOW_PATH);
    await confirmDialog(page, "Approve all unflagged", "Approve");
    await expect(
      page
        .getByRole("status")
        .filter({ hasText: /Approved/ })
        .or(page.getByText(/Approved \d/))
        .first(),
    ).toBeVisible();
    await page.goto(`${WINDOW_PATH}?state=draft`);
    await expect(page.getByText("No rows match")).toBeVisible();

    // The preparer is not offered the approval (two-person rule) and is told why, before trying.
    await page.goto(WINDOW_PATH);
    await expect(page.getByRole("button", { name: "Approve batch" })).toHaveCount(0);
    await expect(page.getByText("you prepared this batch, so another finance user must approve it")).toBeVisible();
    await shootTop(page, "finance-payouts-preparer-top");
    await page.goto(`${WINDOW_PATH}?state=held`);
    await expect(page.getByRole("table", { name: /^Recipient payouts/ })).toContainText(recipientName);
    await shoot(page, "finance-payouts-held");
  });

  test("[finance] a second finance user approves the batch and records the payment", async ({ page }) => {
    // A long flow (two users, a dozen pages and dialogs, each checked by axe): like the review above, not one step.
    test.setTimeout(180_000 * SLACK);
    await signIn(page, { email: SECOND_FINANCE });
    await page.goto(WINDOW_PATH);
    await confirmDialog(page, "Approve batch", "Approve batch");
    await expect(page.getByText("Approved", { exact: true }).first()).toBeVisible();
    // A selection with statements not owed (held, carried) marks only the owed ones, and its dialog says so.
    await page.goto(`${WINDOW_PATH}?sort=payable&dir=desc`);
    await page.getByRole("checkbox", { name: "Select all rows on this page" }).check();
    await page.getByRole("button", { name: "Mark selected paid…" }).click();
    const chosen = page.getByRole("dialog");
    const recordOf = /^Record payment of \d+ statements?: USD [\d,]+\.\d\d$/; // the owed statements' payables, in all
    await expect(chosen.getByRole("heading", { name: recordOf })).toBeVisible();
    const leftOut = /^\d+ other selected statements? (is|are) not owed, or flagged since approval: left out\./;
    await expect(chosen.getByText(leftOut)).toBeVisible();
    await shootTop(page, "finance2-mark-selected-paid");
    await chosen.getByRole("button", { name: "Cancel" }).click();
    // Cleared by keyboard, the focus stays on the table's selection line, not the document's start.
    await page.getByRole("button", { name: "Clear selection" }).press("Enter");
    await expect(page.getByRole("status").filter({ hasText: "No rows selected" })).toBeFocused();
    await page.goto(WINDOW_PATH);
    const posts: string[] = [];
    const post = (request: { method(): string }) => request.method() === "POST" && posts.push(request.method());
    page.on("request", post);
    await confirmDialog(page, "Mark approved paid…", "Record payment", async (d) => {
      await d.getByLabel("Method").selectOption("bank_transfer");
      await d.getByLabel("External reference").fill("WIRE-2026-08-001");
      await d.getByLabel("External reference").press("Enter");
    });
    page.off("request", post);
    // Enter after typing the reference recorded nothing: the one post is the button's.
    expect(posts).toEqual(["POST"]);
    await expect(page.getByText("Paid", { exact: true }).first()).toBeVisible();
    await page.goto(`${WINDOW_PATH}?state=paid`);
    const paidRow = page.getByRole("table", { name: /^Recipient payouts/ }).getByText("Paid");
    await expect(paidRow.first()).toBeVisible();
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
    await page
      .getByRole("table", { name: /^Recipient payouts/ })
      .getByRole("rowheader")
      .first()
      .getByRole("link")
      .click();
    await page.getByRole("link", { name: "History across months" }).click();
    await expect(
      page.getByText("Check passed: paid + carried = net attributed over the windows paid from."),
    ).toBeVisible();
    await expect(page.getByRole("table", { name: "Ledger entries with the running balance" })).toContainText(
      "WIRE-2026-08-001",
    );
    await shoot(page, "finance2-recipient-history");

    // Held statements of the paid batch are never stuck. Unresolved recipients (their flag can no longer be
    // overridden) are carried forward whole into their next statement.
    await page.goto(`${WINDOW_PATH}?state=held&show=unresolved`);
    const heldTable = page.getByRole("table", { name: /^Recipient payouts/ });
    if ((await heldTable.getByRole("checkbox", { name: /^Select (?!all)/ }).count()) > 0) {
      await page.getByRole("checkbox", { name: "Select all rows on this page" }).check();
      await expect(page.getByRole("button", { name: "Carry forward…" })).toBeEnabled();
      // Releasing cannot succeed (an open flag, a paid batch): it is shown disabled, with why.
      await expect(page.getByRole("button", { name: "Release hold…" })).toBeDisabled();
      await expect(page.getByText("can no longer be overridden: carry the balance forward instead")).toBeVisible();
      await shootTop(page, "finance2-payouts-held-bulk");
      await confirmDialog(page, "Carry forward…", "Carry forward", async (d) => {
        await d.getByLabel("Reason").fill("No player record yet: pay with the next statement once resolved");
      });
      const notice = page.getByRole("status").filter({ hasText: /Carried forward \d/ });
      await expect(notice).toBeVisible();
      // The message floats in a live region: it moves no button and no row.
      await expect(notice).toHaveCSS("position", "fixed");
      await page.goto(`${WINDOW_PATH}?state=carried&show=unresolved`);
      await expect(heldTable.getByText("Carried forward").first()).toBeVisible();
    }

    // The recipient held for a tax form: released by someone other than the preparer and paid in its own batch.
    await page.goto(`${WINDOW_PATH}?state=held`);
    await heldTable.getByRole("row").filter({ hasText: HOLD_REASON }).getByRole("rowheader").getByRole("link").click();
    await expect(page.getByRole("button", { name: "Carry forward…" })).toBeVisible();
    await shootTop(page, "finance2-statement-held-in-paid-batch");
    await confirmDialog(page, "Release hold…", "Release", async (d) => {
      await d.getByLabel("Reason").fill("W-8BEN received and filed");
    });
    await page.goto(WINDOW_PATH);
    await confirmDialog(page, "Mark approved paid…", "Record payment", async (d) => {
      await d.getByLabel("External reference").fill("WIRE-2026-08-002");
    });
    await page.goto(`${WINDOW_PATH}?state=held`);
    await expect(page.getByText("No rows match")).toBeVisible();
    await page.goto(WINDOW_PATH);
    await expect(page.getByText("Paid", { exact: true }).first()).toBeVisible();
    await shootTop(page, "finance2-payouts-settled-top");
  });

  test("[viewer] sees the window, evidence and ledger but cannot change anything", async ({ page }) => {
    await signIn(page, "viewer");
    await page.goto(WINDOW_PATH);
    await expect(page.getByRole("heading", { name: LABEL, level: 1 })).toBeVisible();
    await expect(page.getByRole("table", { name: /^Recipient payouts/ })).toBeVisible();
    for (const name of [
      "Prepare payout batch",
      "Approve batch",
      "Approve all unflagged",
      "Mark approved paid…",
      "Override…",
      "Take snapshot",
    ]) {
      await expect(page.getByRole("button", { name })).toHaveCount(0);
    }
    await expect(page.getByRole("checkbox")).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Exports" })).toHaveCount(0);
    await page
      .getByRole("table", { name: /^Recipient payouts/ })
      .getByRole("rowheader")
      .first()
      .getByRole("link")
      .click();
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
    const exportsCard = page
      .getByRole("region", { name: "Exports" })
      .or(page.locator("section", { has: page.getByRole("heading", { name: "Exports" }) }));
    for (const label of [
      "Payout file (CSV)",
      "Journal (CSV)",
      "Renewal lines (CSV)",
      "Reversals and refund events (CSV)",
    ]) {
      const link = exportsCard.getByRole("link", { name: label });
      const href = await link.getAttribute("href");
      expect(href).toMatch(/^\/api\/exports\/(payouts|journal|lines|reversals)\?(batch|snapshot)=[0-9a-f-]{36}&game=/);
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
