import { expect, test } from "./fixtures/test";
import { DEMO_GAME_ID, DEMO_GAME_SECRET } from "../emulator/scenario/demo";
import { shoot, signIn } from "./fixtures/session";
import { SLACK } from "./fixtures/slack";

/**
 * The event log, fed by the emulator of the e2e setup, which delivers its webhooks to this app. A refund recorded in
 * the emulator must show up here, signed and stored, with its JSON.
 */

type Period = { subscription_id: string; period_seq: number };

async function refundSomePeriod(): Promise<string> {
  const emulator = process.env.E2E_EMULATOR_URL;
  if (!emulator) throw new Error("E2E_EMULATOR_URL is not set");
  const report = await fetch(
    `${emulator}/sandbox/api/subscriptions/reporting/attribution?start=2026-10-01&end=2026-11-20&limit=20`,
    {
      headers: { "X-Game-Secret-Key": DEMO_GAME_SECRET },
    },
  );
  const body = (await report.json()) as { recipients: { periods: Period[] }[] };
  for (const period of body.recipients.flatMap((r) => r.periods)) {
    const response = await fetch(`${emulator}/__emulator/refunds`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        subscription_id: period.subscription_id,
        period_seq: period.period_seq,
        amount_usd: "0.10",
        reason: "e2e",
      }),
    });
    if (response.status === 201) return period.subscription_id;
  }
  throw new Error("no refundable period found in the demo data");
}

test.describe("webhook event log", () => {
  test("[viewer] sees a refund made in the service, filters by subscription and reads the event's JSON", async ({
    page,
  }) => {
    const subscriptionId = await refundSomePeriod();
    await signIn(page, "viewer");
    await page.goto(`/webhooks?q=${subscriptionId}`);
    const link = page.getByRole("link", { name: /^subscription\.refunded/ });
    await expect(async () => {
      await page.reload();
      await expect(link.first()).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 20_000 * SLACK });
    await expect(page.getByRole("row").filter({ hasText: subscriptionId }).first()).toBeVisible();
    await expect(page.getByText("Accepted", { exact: true })).toBeVisible();
    await shoot(page, "webhooks-log");

    await link.first().click();
    await expect(page.getByRole("heading", { name: "subscription.refunded" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Event JSON" })).toContainText(subscriptionId);
    await expect(page.getByText("Current", { exact: false }).first()).toBeVisible();
    await shoot(page, "webhooks-event");
  });

  test("[viewer] sees an unsigned delivery counted as refused, with its reason", async ({ page, request }) => {
    const response = await request.post(`/api/webhooks/service/${DEMO_GAME_ID}`, {
      data: {
        event_id: "evt_forged",
        event_type: "subscription.refunded",
        created_at: "2026-11-20T00:00:00Z",
        tenant_id: DEMO_GAME_ID,
        data: {},
      },
      headers: { "x-service-idempotency-key": "idem_forged" },
    });
    expect(response.status()).toBe(400);
    await signIn(page, "viewer");
    await page.goto("/webhooks");
    const reasons = page.getByRole("table", { name: "Refused deliveries by reason" });
    await expect(reasons.getByRole("row", { name: /No signature header/ })).toBeVisible();
    await expect(page.getByRole("link", { name: /evt_forged/ })).toHaveCount(0);
    // Viewers see the automation settings but cannot change them.
    await expect(page.getByRole("checkbox", { name: /Pull a window again/ })).toBeDisabled();
  });

  test("[viewer] a table filter moved through by keyboard applies once, when chosen", async ({ page }) => {
    await signIn(page, "viewer");
    await page.goto("/webhooks");
    const status = page.getByLabel("Status", { exact: true });
    await status.focus();
    await status.press("ArrowDown");
    await status.press("ArrowDown");
    // Passing over options does not reload the table for each.
    await expect(status).toHaveValue("processed");
    expect(new URL(page.url()).searchParams.get("status")).toBeNull();
    await status.press("Enter");
    await expect(page).toHaveURL(/[?&]status=processed(&|$)/);
    // With the mouse (or a pointer's pick) it applies at once.
    await page.getByLabel("Status", { exact: true }).selectOption("pending");
    await expect(page).toHaveURL(/[?&]status=pending(&|$)/);
    // The page size the same way: one reload, when chosen.
    const size = page.getByLabel("Rows per page");
    const shown = await size.inputValue();
    await size.focus();
    await size.press("ArrowDown");
    await expect(size).not.toHaveValue(shown);
    expect(new URL(page.url()).searchParams.get("pageSize")).toBeNull();
    await size.press("Enter");
    await expect(page).toHaveURL(/[?&]pageSize=\d+(&|$)/);
    await expect(size).toBeFocused();
  });

  test("[viewer] clears a search that matched nothing by keyboard, and keeps its place in the table", async ({
    page,
  }) => {
    await signIn(page, "viewer");
    await page.goto("/webhooks?q=SUB_NO_SUCH_SUBSCRIPTION");
    const clear = page.getByRole("button", { name: "Clear search and filters" });
    await clear.focus();
    await page.keyboard.press("Enter");
    await expect(page).not.toHaveURL(/[?&]q=/);
    // The button left the page with the empty body: the focus is on the table's region, where the rows come back.
    const focused = page.locator(":focus");
    await expect(focused).toHaveAttribute("aria-label", /^Webhook events.* \(scrolls sideways\)$/);
    await expect(focused.getByRole("button", { name: "Clear search and filters" })).toHaveCount(0);
    await shoot(page, "webhooks-search-cleared");
  });

  test("[viewer] a day typed into the date filter applies once it is a day of this century", async ({ page }) => {
    await signIn(page, "viewer");
    await page.goto("/webhooks");
    const from = page.getByLabel("From (UTC)");
    // Every table the page asked the server for, with the day it asked for.
    const asked: string[] = [];
    page.on("request", (request) => {
      const day = new URL(request.url()).searchParams.get("from");
      if (new URL(request.url()).pathname === "/webhooks" && day) asked.push(day);
    });
    // The year typed digit by digit: 0002, 0020, 0202 are whole dates the field reports on the way to 2026.
    await from.focus();
    for (const key of "01010002") await page.keyboard.press(key);
    await expect(from).toHaveValue("0002-01-01");
    for (const key of "026") await page.keyboard.press(key);
    await expect(page).toHaveURL(/[?&]from=2026-01-01(&|$)/);
    // Asked for once, with the day typed whole: never for the years on the way.
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((day) => day === "2026-01-01")).toBe(true);
    // Cleared, it applies on Enter (or on leaving the field).
    await from.fill("");
    await from.press("Enter");
    await expect(page).not.toHaveURL(/[?&]from=/);
  });

  test("[admin] turns on auto-refresh for the game by keyboard, and the saving is read out", async ({ page }) => {
    // Every status region the page gains, as it arrives: a screen reader reads what changes in a region already
    // there, so the message must come into a region that arrived empty.
    await page.addInitScript(() => {
      const arrived: Element[] = [];
      (window as unknown as { __arrivedEmpty: Element[] }).__arrivedEmpty = arrived;
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of record.addedNodes) {
            if (!(node instanceof Element)) continue;
            for (const el of [node, ...node.querySelectorAll('[role="status"]')])
              if (el.getAttribute("role") === "status" && (el.textContent ?? "") === "") arrived.push(el);
          }
      }).observe(document, { subtree: true, childList: true });
    });
    await signIn(page, "admin");
    await page.goto("/webhooks");
    const autoRefresh = page.getByRole("checkbox", { name: /Pull a window again/ });
    await autoRefresh.focus();
    await page.keyboard.press("Space");
    await page.getByRole("button", { name: "Save automatic pulls" }).press("Enter");
    const saved = page.getByRole("status").filter({ hasText: "Saved the automatic pulls" });
    await expect(saved).toBeVisible();
    expect(
      await saved.evaluate((el) => (window as unknown as { __arrivedEmpty: Element[] }).__arrivedEmpty.includes(el)),
    ).toBe(true);
    await page.reload();
    await expect(page.getByRole("checkbox", { name: /Pull a window again/ })).toBeChecked();
    await shoot(page, "webhooks-automation");
  });
});
