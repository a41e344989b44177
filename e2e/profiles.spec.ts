import { expect, test } from "./fixtures/test";
import { SECOND_FINANCE } from "./fixtures/users";
import { shoot, signIn } from "./fixtures/session";

/**
 * Payout profiles, end to end: a finance user imports profiles from CSV (a dry run that lists every change and the
 * refused row, an apply refused whole, then a clean apply), changes a recipient's IBAN (the change waits), and a second
 * finance user approves it. Details only ever show masked.
 */
const RECIPIENT = 100_004;
const FIRST_IBAN = "DE89370400440532013000";
const NEXT_IBAN = "NL91ABNA0417164300";
const HEADER =
  "player_id,method,currency,paypal_email,account_holder,iban,bic,bank_country,tax_form,tax_form_received_on," +
  "tax_form_expires_on";
const GOOD = [
  `${RECIPIENT},bank_transfer,EUR,,Ada Lovelace,${FIRST_IBAN},COBADEFFXXX,DE,W-8BEN,2026-01-15,2029-12-31`,
  "100005,paypal,USD,creator100005@example.com,,,,,,,",
];
const BAD = "100007,bank_transfer,EUR,,Bad Digits,DE89370400440532013001,COBADEFFXXX,DE,,,";
const file = (rows: string[]) => ({
  name: "profiles.csv",
  mimeType: "text/csv",
  buffer: Buffer.from([HEADER, ...rows].join("\n")),
});

test.describe
  .serial("payout profiles", () => {
    test("[finance] imports payout profiles: a dry run lists changes and refusals, applying is all or nothing", async ({
      page,
    }) => {
      await signIn(page, "finance");
      await page.goto("/recipients");
      await page.getByRole("link", { name: "Import or export payout profiles" }).click();
      await expect(page.getByRole("heading", { name: "Payout profiles", level: 1 })).toBeVisible();

      // A file larger than any form the server reads is refused on its field, the page kept.
      const huge = Buffer.alloc(22 * 1024 * 1024, "a");
      await page.getByLabel("CSV file").setInputFiles({ name: "huge.csv", mimeType: "text/csv", buffer: huge });
      await page.getByRole("button", { name: "Check the file" }).click();
      await expect(page.getByText("must be under 2 MB")).toBeVisible();
      await shoot(page, "finance-profiles-too-large");
      await expect(page.getByRole("heading", { name: "Payout profiles", level: 1 })).toBeVisible();
      // A form over 1 MB reaches the import from a signed-in browser (proxy.ts lets it through on a session cookie the
      // deployment signed), which answers it on its own terms.
      const long = file(Array.from({ length: 21_000 }, () => BAD));
      expect(long.buffer.length).toBeGreaterThan(1_048_576);
      await page.getByLabel("CSV file").setInputFiles(long);
      await page.getByRole("button", { name: "Check the file" }).click();
      await expect(page.getByText("At most 5000 rows per file.").first()).toBeVisible();

      await page.getByLabel("CSV file").setInputFiles(file([...GOOD, BAD]));
      await page.getByRole("button", { name: "Check the file" }).click();
      await expect(
        page.getByRole("status").filter({ hasText: "Dry run: 3 changes and 1 refused row in 3 rows" }),
      ).toBeVisible();
      const refused = page.getByRole("table", { name: "Refused rows" });
      await expect(refused).toContainText("iban: is not a valid IBAN");
      const changes = page.getByRole("table", { name: "Changes the import makes" });
      await expect(changes).toContainText("IBAN ••••3000, BIC ••••FXXX (EUR)");
      await expect(changes).not.toContainText(FIRST_IBAN);
      await shoot(page, "finance-profiles-dry-run");

      // Applying with the refused row still in the file changes nothing; the file and the choice stay.
      await page.getByLabel("Apply: all rows or none").check();
      await page.getByRole("button", { name: "Import" }).click();
      await expect(page.getByRole("alert").filter({ hasText: "Nothing was imported: 1 row refused" })).toBeVisible();
      await expect(page.getByLabel("Apply: all rows or none")).toBeChecked();
      expect(await page.getByLabel("CSV file").evaluate((el) => (el as HTMLInputElement).files?.[0]?.name)).toBe(
        "profiles.csv",
      );

      await page.getByLabel("CSV file").setInputFiles(file(GOOD));
      await page.getByRole("button", { name: "Import" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Imported: 3 changes from 2 rows" })).toBeVisible();
      await shoot(page, "finance-profiles-imported");

      await page.goto(`/recipients/${RECIPIENT}`);
      const profile = page.getByRole("region", { name: "Payout profile history" });
      await expect(page.getByText("IBAN ••••3000, BIC ••••FXXX").first()).toBeVisible();
      await expect(profile).toContainText("Applied");
    });

    test("[finance] changes a recipient's IBAN: the change waits for a second finance user", async ({ page }) => {
      await signIn(page, "finance");
      await page.goto(`/recipients/${RECIPIENT}`);
      const form = page.getByRole("form", { name: "Payout details" });
      await form.getByLabel("Account holder").fill("Ada Lovelace");
      await form.getByLabel(/^IBAN/).fill("NL91 ABNA 0417 1643 01");
      await form.getByLabel("BIC").fill("ABNANL2AXXX");
      await form.getByLabel("Bank country").fill("NL");
      await form.getByLabel("Payout currency").fill("EUR");
      await form.getByRole("button", { name: "Submit change for review" }).click();
      // A wrong check digit: the error names the field and everything typed stays.
      await expect(form.getByRole("alert")).toContainText("IBAN is not a valid IBAN");
      await expect(form.getByLabel(/^IBAN/)).toHaveValue("NL91 ABNA 0417 1643 01");
      await expect(form.getByLabel("BIC")).toHaveValue("ABNANL2AXXX");
      await form.getByLabel(/^IBAN/).fill(NEXT_IBAN);
      await form.getByRole("button", { name: "Submit change for review" }).click();
      await expect(form.getByRole("status")).toContainText("Saved for review: IBAN ••••4300, BIC ••••AXXX");
      await page.reload();
      await expect(page.getByRole("heading", { name: "Change awaiting review" })).toBeVisible();
      await expect(page.getByText("You entered this change: a second finance user reviews it.")).toBeVisible();
      await expect(page.getByRole("button", { name: "Approve change" })).toHaveCount(0);
      await shoot(page, "finance-profile-change-pending");
    });

    test("[finance] a second finance user approves the changed IBAN", async ({ page }) => {
      await signIn(page, { email: SECOND_FINANCE });
      await page.goto(`/recipients/${RECIPIENT}`);
      await expect(page.getByRole("heading", { name: "Change awaiting review" })).toBeVisible();
      await shoot(page, "finance2-profile-review");
      await page.getByLabel("Note (optional)").fill("Confirmed by phone");
      // Enter in the note gives no review: only a button does. Every form post of the page is counted from here.
      const posts: string[] = [];
      page.on("request", (request) => {
        if (request.method() === "POST") posts.push(request.url());
      });
      await page.getByLabel("Note (optional)").press("Enter");
      await expect(page.getByRole("button", { name: "Approve change" })).toBeEnabled();
      await page.getByRole("button", { name: "Approve change" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Approved: IBAN ••••4300" })).toBeVisible();
      expect(posts).toHaveLength(1);
      // The form and its button are gone: the focus is on the outcome that replaced them.
      await expect(page.locator(":focus")).toContainText("Approved: IBAN ••••4300");
      await page.reload();
      await expect(page.getByRole("heading", { name: "Change awaiting review" })).toHaveCount(0);
      const history = page.getByRole("region", { name: "Payout profile history" });
      await expect(history).toContainText("Approved");
      await expect(history).toContainText(SECOND_FINANCE);
      await expect(page.locator("body")).not.toContainText(NEXT_IBAN);
      await shoot(page, "finance2-profile-approved");
    });

    test("[finance] records a tax form; one saved from a page drawn before it is refused", async ({
      page,
      checked,
    }) => {
      await signIn(page, "finance");
      await page.goto(`/recipients/${RECIPIENT}`);
      // A colleague's tab, drawn now, before the save below.
      const other = await checked(await page.context().newPage());
      await other.goto(`/recipients/${RECIPIENT}`);
      const form = page.getByRole("form", { name: "Tax form" });
      await form.getByLabel("Tax form on file").selectOption("W-9");
      await form.getByLabel(/^Received/).fill("2026-04-01");
      await form.getByRole("button", { name: "Save tax form" }).click();
      await expect(form.getByRole("status")).toContainText("Saved: tax form W-9.");
      const stale = other.getByRole("form", { name: "Tax form" });
      await stale.getByLabel("Tax form on file").selectOption("W-8BEN");
      await stale.getByLabel(/^Received/).fill("2026-03-01");
      await stale.getByLabel(/^Expires/).fill("2029-12-31");
      await stale.getByRole("button", { name: "Save tax form" }).click();
      await expect(stale.getByRole("alert")).toContainText("changed by someone else since this page was shown");
      await expect(stale.getByLabel("Tax form on file")).toHaveValue("W-8BEN");
      // The colleague's form is named; saving again, on purpose, replaces it with what was typed (kept).
      await expect(stale.getByText(/^On file now, recorded by someone else: W-9, received 2026-04-01\b/)).toBeVisible();
      await shoot(other, "finance-tax-form-replacing");
      await stale.getByRole("button", { name: "Save tax form" }).click();
      await expect(stale.getByRole("status")).toContainText("Saved: tax form W-8BEN.");
      await expect(stale.getByText(/On file now, recorded by someone else/)).toHaveCount(0);
      await other.close();
    });
    test("[finance] details imported ahead of any earnings: the change is listed and reviewed by another", async ({
      page,
    }) => {
      const AHEAD = 987_654;
      const ahead = (email: string) => `${AHEAD},paypal,USD,${email},,,,,,,`;
      await signIn(page, "finance");
      await page.goto("/payouts/profiles");
      await page.getByLabel("Apply: all rows or none").check();
      await page.getByLabel("CSV file").setInputFiles(file([ahead("ahead@example.com")]));
      await page.getByRole("button", { name: "Import" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Imported" })).toBeVisible();
      // Moved to a bank account in euros.
      const moved = `${AHEAD},bank_transfer,EUR,,Ada Lovelace,${FIRST_IBAN},COBADEFFXXX,DE,,,`;
      await page.getByLabel("CSV file").setInputFiles(file([moved]));
      await page.getByRole("button", { name: "Import" }).click();
      const made = page.getByRole("table", { name: "Changes made" });
      await expect(made).toContainText("Awaits review");
      await expect(made.getByRole("link", { name: String(AHEAD) })).toHaveAttribute("href", `/recipients/${AHEAD}`);
      await page.reload();
      const waiting = page.getByRole("table", { name: "Changes of payout details waiting for review" });
      await expect(waiting.getByRole("row")).toHaveCount(2);
      await expect(waiting).toContainText(`#${AHEAD}`);
      await shoot(page, "finance-profiles-waiting-for-review");

      await page.context().clearCookies();
      await signIn(page, { email: SECOND_FINANCE });
      await page.goto("/payouts/profiles");
      await page
        .getByRole("table", { name: "Changes of payout details waiting for review" })
        .getByRole("link", { name: new RegExp(`^#${AHEAD}`) })
        .click();
      await expect(page.getByRole("heading", { name: `Player ${AHEAD}`, level: 1 })).toBeVisible();
      await expect(page.getByRole("heading", { name: "Change awaiting review" })).toBeVisible();
      await page.getByRole("button", { name: "Approve change" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Approved" })).toBeVisible();
      // The form for a further change starts from the details now in force.
      const details = page.getByRole("form", { name: "Payout details" });
      await expect(details.getByLabel(/^Method/)).toHaveValue("bank_transfer");
      await expect(details.getByLabel(/^Payout currency/)).toHaveValue("EUR");
      await shoot(page, "finance2-profile-ahead-approved");
      await page.goto("/payouts/profiles");
      await expect(page.getByText("No change of payout details is waiting for review.")).toBeVisible();
    });
  });
