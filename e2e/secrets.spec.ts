import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures/test";
import pg from "pg";
import { shoot, signIn } from "./fixtures/session";

const SECRET = `gs_live_${"e2e".repeat(3)}_${Date.now().toString(36)}_do_not_leak`;
const WEBHOOK_SECRET = `whsec_${Date.now().toString(36)}_also_secret`;

test("[admin] a game secret saved in settings never appears in the database, the pages or the log", async ({
  page,
}) => {
  const bodies: string[] = [];
  page.on("response", async (response) => {
    try {
      bodies.push(await response.text());
    } catch {
      // redirects and aborted requests have no body
    }
  });

  await signIn(page, "admin");
  await page.goto("/settings/games");
  await page.getByLabel("Game id").fill("secret-test");
  await page.getByLabel("Name").fill("Secret Test");
  await page.getByLabel("Environment").selectOption("production");
  await page.getByLabel("Service base URL").fill("https://api.example.test");
  await page.getByLabel("Game secret").fill(SECRET);
  await page.getByLabel("Webhook signing secret", { exact: true }).fill(WEBHOOK_SECRET);
  await page.getByRole("button", { name: "Save game" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved Secret Test" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "gs_live_••••leak" })).toBeVisible();
  await shoot(page, "admin-games");

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
  expect(bodies.length).toBeGreaterThan(10);
  const scripts = bodies.filter((b) => b.includes("function") || b.includes("=>"));
  expect(scripts.length).toBeGreaterThan(0);
  for (const body of bodies) {
    expect(body).not.toContain(SECRET);
    expect(body).not.toContain(WEBHOOK_SECRET);
  }

  // Every text column of every table in the database.
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    expect(tables.rows.length).toBeGreaterThan(5);
    let sawGame = false;
    for (const { table_name } of tables.rows) {
      const dump = await client.query(`select t::text as row from ${client.escapeIdentifier(table_name)} t`);
      for (const { row } of dump.rows as { row: string }[]) {
        if (row.includes("secret-test")) sawGame = true;
        expect(row).not.toContain(SECRET);
        expect(row).not.toContain(WEBHOOK_SECRET);
      }
    }
    expect(sawGame).toBe(true);
  } finally {
    await client.end();
  }

  // The server's own output.
  const log = readFileSync(process.env.E2E_SERVER_LOG ?? "", "utf8");
  expect(log.length).toBeGreaterThan(0);
  expect(log).not.toContain(SECRET);
  expect(log).not.toContain(WEBHOOK_SECRET);
});
