import { createDb } from "../db";
import { DEMO_GAME_ID } from "../emulator/scenario/demo";
import { insertBatch, insertSnapshot } from "../tests/exports/fixture";
import { shoot, signIn } from "./fixtures/session";
import { expect, test } from "./fixtures/test";
import { SLACK } from "./fixtures/slack";

/**
 * Statements, end to end: finance emails an approved batch's statements, the built-in mail catcher receives them,
 * an admin opens one from the Outbox and follows its link the way the recipient would, signed out.
 */

const MONTH = "2025-01";
const WINDOW_PATH = `/payouts/${MONTH}`;

test.describe.configure({ mode: "serial" });

/** The link of the email the admin opened, revoked by finance after. */
let emailedLink = "";

test.beforeAll(async () => {
  const db = createDb(process.env.E2E_DATABASE_URL ?? "", { max: 2 });
  try {
    const snapshotId = await insertSnapshot(db, {
      gameId: DEMO_GAME_ID,
      start: "2025-01-01T00:00:00Z",
      end: "2025-02-01T00:00:00Z",
      recipients: [],
      lines: [
        {
          periodId: 9_100_001,
          recipientId: 910001,
          paidAt: "2025-01-05T10:00:00Z",
          amountUsd: "49.99",
          attributedUsd: "40.10",
        },
        {
          periodId: 9_100_002,
          recipientId: 910002,
          paidAt: "2025-01-06T10:00:00Z",
          amountUsd: "99.99",
          attributedUsd: "1234.56",
        },
        {
          periodId: 9_100_003,
          recipientId: 910003,
          paidAt: "2025-01-07T10:00:00Z",
          amountUsd: "9.99",
          attributedUsd: "8.40",
        },
      ],
    });
    await insertBatch(db, {
      gameId: DEMO_GAME_ID,
      snapshotId,
      status: "approved",
      statements: [
        {
          recipientId: 910001,
          name: "Анна Петрова",
          email: "anna@e2e.test",
          gross: "40.10",
          reversed: "0.00",
          state: "paid",
        },
        {
          recipientId: 910002,
          name: "Ελένη Παπαδοπούλου",
          email: "eleni@e2e.test",
          gross: "1234.56",
          reversed: "0.00",
          state: "held",
          holdReason: "Waiting for a tax form",
        },
        {
          recipientId: 910003,
          name: "Nguyễn Văn An",
          email: "an@e2e.test",
          gross: "8.40",
          reversed: "0.00",
          state: "carried",
        },
      ],
    });
  } finally {
    await db.destroy();
  }
});

test.describe("statements", () => {
  test("[finance] emails a batch's statements and sees each delivery on the statement page", async ({ page }) => {
    test.setTimeout(120_000 * SLACK);
    await signIn(page, "finance");
    await page.goto(WINDOW_PATH);
    await page.getByRole("button", { name: "Email statements…" }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText("Email 3 statements");
    await dialog.getByRole("button", { name: "Queue emails" }).click();
    await expect(dialog).toBeHidden({ timeout: 30_000 * SLACK });
    await expect(page.getByText("Queued 3 statement emails.")).toBeVisible();
    // Every statement was emailed: the batch now offers them all again, not a second send of the same ones.
    await expect(page.getByRole("button", { name: "Email statements again…" })).toBeVisible();
    await shoot(page, "statements-finance-batch");

    await page.goto(`${WINDOW_PATH}/recipients/910001`);
    const log = page.getByRole("table", { name: "Delivery log, newest first" });
    await expect(async () => {
      await page.reload();
      await expect(log.getByText("sent", { exact: true })).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 60_000 * SLACK });
    await expect(log).toContainText("anna@e2e.test");
    await expect(page.getByRole("link", { name: "Download PDF" })).toBeVisible();
    await shoot(page, "statements-finance-recipient");

    // Sending one statement again from its page says what was done.
    await page.getByRole("button", { name: "Email statement…" }).click();
    const one = page.getByRole("dialog", { name: "Email this statement" });
    await one.getByRole("button", { name: "Queue email" }).click();
    await expect(one).toBeHidden({ timeout: 30_000 * SLACK });
    await expect(page.getByRole("status").filter({ hasText: "Queued 1 statement email." })).toBeVisible();
  });

  test("[admin] opens a statement email in the outbox and follows its link signed out", async ({
    page,
    browser,
    checked,
  }) => {
    await signIn(page, "admin");
    await page.getByRole("link", { name: "Outbox" }).click();
    await expect(page.getByRole("heading", { name: "Outbox", level: 1 })).toBeVisible();
    const outbox = page.getByRole("table", { name: "Emails received, newest first" });
    // The batch's three emails go out two at a time, in no set order: the page is read again until Eleni's arrived.
    await expect(async () => {
      await page.reload();
      await expect(outbox).toContainText("eleni@e2e.test", { timeout: 1_000 });
    }).toPass({ timeout: 60_000 * SLACK });
    await shoot(page, "statements-admin-outbox");

    // Anna's statement was sent twice (the batch, then again from her statement page): the newest first.
    await outbox
      .getByRole("row", { name: /anna@e2e\.test/ })
      .getByRole("link")
      .first()
      .click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText(/^Statement PD-demo-game-\d{6} from /);
    await expect(page.getByText("Hello Анна Петрова,")).toBeVisible();
    await expect(page.getByRole("link", { name: /Download PD-demo-game-\d{6}\.pdf/ })).toBeVisible();
    await shoot(page, "statements-admin-email");

    const body = (await page.locator("pre").textContent()) ?? "";
    const link = /https?:\/\/\S+\/api\/statement-links\/[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}/.exec(body)?.[0];
    expect(link).toBeTruthy();

    // As the recipient: a browser with no session.
    const recipient = await browser.newContext({ baseURL: process.env.E2E_BASE_URL });
    try {
      const pdf = await recipient.request.get(link ?? "");
      expect(pdf.status()).toBe(200);
      expect(pdf.headers()["content-type"]).toBe("application/pdf");
      expect((await pdf.body()).subarray(0, 5).toString()).toBe("%PDF-");
      const tampered = await recipient.request.get(`${link?.slice(0, -1)}${link?.endsWith("A") ? "B" : "A"}`);
      expect(tampered.status()).toBe(404);
      const desk = await checked(await recipient.newPage());
      await desk.goto("/payouts");
      await expect(desk).toHaveURL(/\/sign-in$/);
    } finally {
      await recipient.close();
    }
    emailedLink = link ?? "";
  });

  test("[finance] revokes the batch's links: the one emailed stops opening its statement", async ({ page, a11y }) => {
    expect(emailedLink).not.toBe("");
    await signIn(page, "finance");
    await page.goto(WINDOW_PATH);
    await page.getByRole("button", { name: "Revoke statement links…" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke this batch's statement links?" });
    await expect(dialog).toContainText("Emails queued and not yet sent are not sent");
    await a11y.check("dialog revoke links");
    await shoot(page, "statements-finance-revoke");
    await dialog.getByRole("button", { name: "Revoke links" }).click();
    await expect(dialog).toBeHidden({ timeout: 30_000 * SLACK });
    await expect(
      page.getByRole("status").filter({ hasText: "Every statement link of this batch sent so far now answers" }),
    ).toBeVisible();
    const after = await page.request.get(emailedLink);
    expect(after.status()).toBe(404);
  });
});

test("[finance] a batch of no statement offers no email and no links to revoke", async ({ page }) => {
  // A month nobody earned in: its approved batch has no statement.
  const db = createDb(process.env.E2E_DATABASE_URL ?? "", { max: 2 });
  try {
    const snapshotId = await insertSnapshot(db, {
      gameId: DEMO_GAME_ID,
      start: "2024-12-01T00:00:00Z",
      end: "2025-01-01T00:00:00Z",
      recipients: [],
      lines: [],
    });
    await insertBatch(db, { gameId: DEMO_GAME_ID, snapshotId, status: "approved", statements: [] });
  } finally {
    await db.destroy();
  }
  await signIn(page, "finance");
  await page.goto("/payouts/2024-12");
  await expect(page.getByText("This batch has no statement to email.")).toBeVisible();
  await expect(page.getByRole("button", { name: /Email statements|Revoke statement links/ })).toHaveCount(0);
  await shoot(page, "statements-finance-empty-batch");
});
