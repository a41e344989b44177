import { readFileSync } from "node:fs";
import type { Page, Response } from "@playwright/test";
import { expect, test } from "./fixtures/test";
import pg from "pg";
import { shoot, signIn } from "./fixtures/session";
import { CRAWL_MONTH } from "./fixtures/users";
import { SLACK } from "./fixtures/slack";

const SECRET = `gs_live_${"e2e".repeat(3)}_${Date.now().toString(36)}_do_not_leak`;
const WEBHOOK_SECRET = `whsec_${Date.now().toString(36)}_also_secret`;
const ROTATED_SECRET = `whsec_${Date.now().toString(36)}_rotated_secret`;
// A real French IBAN (valid check digits), entered as a demo recipient's bank details.
const IBAN = "FR1420041010050500013M02606";
const ACCOUNT_HOLDER = `Holder ${Date.now().toString(36)} Never Shown`;
const IBAN_RECIPIENT = 100_006;
const BODY_WAIT_MS = 15_000 * SLACK;

test("[admin] a game secret saved in settings never appears in the database, the pages or the log", async ({
  page,
}) => {
  const received = collectBodies(page);

  await signIn(page, "admin");
  await page.goto("/settings/games");
  await page.getByLabel("Game id").fill("secret-test");
  await page.getByLabel("Name").fill("Secret Test");
  await page.getByRole("combobox", { name: "Environment", exact: true }).selectOption("production");
  await page.getByLabel("Service base URL").fill("https://api.example.test");
  await page.getByLabel("Game secret").fill(SECRET);
  await page.getByLabel("Webhook signing secret", { exact: true }).fill(WEBHOOK_SECRET);
  await page.getByRole("button", { name: "Save game" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved Secret Test" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "gs_live_••••leak" })).toBeVisible();
  await shoot(page, "admin-games");
  // Rotated, the previous signing secret stays accepted until it is stopped; the row then loses its control, and the
  // page still says what was done.
  const rotate = page.getByRole("form", { name: "Rotate a webhook signing secret" });
  await rotate.getByLabel("Game").selectOption("secret-test");
  await rotate.getByLabel("New webhook signing secret").fill(ROTATED_SECRET);
  await rotate.getByRole("button", { name: "Rotate signing secret" }).click();
  await expect(rotate.getByRole("status")).toContainText("stays accepted for 7 days");
  const row = page.getByRole("row").filter({ hasText: "Secret Test" });
  await expect(row).toContainText("accepted until");
  await row.getByRole("button", { name: "Stop accepting it now…" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Stop accepting it" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "previous signing secret is no longer accepted" }),
  ).toBeVisible();
  await expect(row).not.toContainText("accepted until");
  await expect(page.locator("#main-content")).toBeFocused();
  await shoot(page, "admin-games-previous-revoked");
  // Switched to, the game is the one the whole page shows: the switcher, and no sandbox banner for a live game.
  const switcher = page.locator("#shell-game");
  await switcher.selectOption("secret-test");
  await page.getByRole("button", { name: "Switch" }).click();
  await expect(page).toHaveURL(/\/payouts$/);
  await expect(page.getByRole("heading", { name: "Payouts", level: 1 })).toBeVisible();
  await expect(switcher).toHaveValue("secret-test");
  await expect(page.getByText("No snapshot yet")).toBeVisible();
  await expect(page.getByText("Sandbox game: figures are test data")).toHaveCount(0);

  // Every page of the app, and every script it loads, as the browser received them.
  for (const path of [
    "/payouts",
    "/subscriptions",
    "/webhooks",
    "/audit",
    "/settings",
    "/settings/games",
    "/settings/users",
  ]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
  }
  const bodies = await received.read();
  expect(bodies.length).toBeGreaterThan(10);
  const scripts = bodies.filter((b) => b.includes("function") || b.includes("=>"));
  expect(scripts.length).toBeGreaterThan(0);
  for (const body of bodies) {
    expect(body).not.toContain(SECRET);
    expect(body).not.toContain(WEBHOOK_SECRET);
    expect(body).not.toContain(ROTATED_SECRET);
  }

  // Every text column of every table in the database.
  expect(await databaseRowsContaining("secret-test")).toBeGreaterThan(0);
  await expectNowhereInDatabase([SECRET, WEBHOOK_SECRET, ROTATED_SECRET]);
  // The server's own output.
  expectNotInServerLog([SECRET, WEBHOOK_SECRET, ROTATED_SECRET]);
});

const IBAN_TEST = "[finance] an IBAN saved on a recipient's page never appears in plain text anywhere";

// Anywhere: the database, a page or script, the profiles export and the server's log.
test(IBAN_TEST, async ({ page }) => {
  // A long flow: it downloads two exports of every batch the suite has made and reads every row of the database.
  test.setTimeout(180_000 * SLACK);
  const received = collectBodies(page);
  await signIn(page, "finance");
  await page.goto(`/recipients/${IBAN_RECIPIENT}`);
  const form = page.getByRole("form", { name: "Payout details" });
  await form.getByLabel("Method").selectOption("bank_transfer");
  await form.getByLabel("Account holder").fill(ACCOUNT_HOLDER);
  await form.getByLabel(/^IBAN/).fill(IBAN);
  await form.getByLabel("BIC").fill("BNPAFRPPXXX");
  await form.getByLabel("Bank country").fill("FR");
  await form.getByLabel("Payout currency").fill("EUR");
  await form.getByRole("button", { name: "Save payout details" }).click();
  await expect(form.getByRole("status")).toContainText("Saved: IBAN ••••2606, BIC ••••PXXX");
  await shoot(page, "finance-recipient-iban-masked");

  for (const path of [`/recipients/${IBAN_RECIPIENT}`, "/recipients", "/payouts/profiles", "/payouts"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
  }
  // The window pages (with their payment files panel) and every batch's payout and journal exports.
  await page.goto(`/payouts/${CRAWL_MONTH}`);
  await page.waitForLoadState("networkidle");
  const bodies = await received.read();
  const batches = await withDatabase((client) => client.query<{ id: string }>("select id from payout_batch"));
  for (const { id } of batches.rows) {
    for (const kind of ["payouts", "journal"])
      bodies.push(await (await page.request.get(`/api/exports/${kind}?batch=${id}`)).text());
  }
  const exported = await page.request.get("/api/profiles/export");
  expect(exported.status()).toBe(200);
  const csv = await exported.text();
  expect(csv).toContain("IBAN ••••2606, BIC ••••PXXX");
  for (const body of [...bodies, csv]) {
    expect(body).not.toContain(IBAN);
    expect(body).not.toContain(ACCOUNT_HOLDER);
  }
  await expectNowhereInDatabase([IBAN, ACCOUNT_HOLDER, "BNPAFRPPXXX"]);
  expect(await databaseRowsContaining("••••2606")).toBeGreaterThan(0);
  expectNotInServerLog([IBAN, ACCOUNT_HOLDER]);
});

/**
 * Every response body the page receives, as text, from now on: `read()` waits for the bodies of every response
 * received so far (each is read as it arrives, after the page has it), then gives them all. Chromium finishes a
 * body only as the page reads it, so a response the page left unread (a prefetch it no longer wanted) would keep
 * the wait going for good: past BODY_WAIT_MS a GET still unread is asked for again, as the page asked for it, and its
 * body taken instead; any other still unread fails the check, named (its body was never seen).
 */
function collectBodies(page: Page): { read: () => Promise<string[]> } {
  const bodies: string[] = [];
  const pending = new Map<Promise<void>, Response>();
  page.on("response", (response) => {
    const reading: Promise<void> = response.text().then(
      (text) => void bodies.push(text),
      () => {}, // redirects and aborted requests have no body
    );
    pending.set(reading, response);
    void reading.finally(() => pending.delete(reading));
  });
  return {
    read: async () => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, BODY_WAIT_MS);
      });
      await Promise.race([Promise.all(pending.keys()), deadline]);
      clearTimeout(timer);
      const unread = [...pending.values()];
      const read = [...bodies];
      for (const response of unread.filter((r) => r.request().method() === "GET")) {
        const again = await page.request.get(response.url(), { headers: await response.request().allHeaders() });
        read.push(await again.text());
      }
      if (unread.length > 0)
        test.info().annotations.push({
          type: "bodies never finished, asked for again",
          description: unread.map((r) => r.url()).join("\n"),
        });
      expect(
        unread.filter((r) => r.request().method() !== "GET").map((r) => `${r.request().method()} ${r.url()}`),
        "responses whose bodies were never read",
      ).toEqual([]);
      return read;
    },
  };
}

async function withDatabase<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Every row of every table of the database, as text. */
async function everyRow(): Promise<string[]> {
  return withDatabase(async (client) => {
    const tables = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    expect(tables.rows.length).toBeGreaterThan(5);
    const rows: string[] = [];
    for (const { table_name } of tables.rows) {
      const dump = await client.query(`select t::text as row from ${client.escapeIdentifier(table_name)} t`);
      rows.push(...(dump.rows as { row: string }[]).map((r) => r.row));
    }
    return rows;
  });
}

async function databaseRowsContaining(text: string): Promise<number> {
  return (await everyRow()).filter((row) => row.includes(text)).length;
}

/** Fails naming every row that holds one of the values (one assertion over all rows, not one per row). */
async function expectNowhereInDatabase(values: string[]): Promise<void> {
  const holding = (await everyRow()).filter((row) => values.some((value) => row.includes(value)));
  expect(holding, "database rows holding a value in plain text").toEqual([]);
}

function expectNotInServerLog(values: string[]): void {
  const log = readFileSync(process.env.E2E_SERVER_LOG ?? "", "utf8");
  expect(log.length).toBeGreaterThan(0);
  for (const value of values) expect(log).not.toContain(value);
}
