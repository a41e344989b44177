import { expect, test } from "./fixtures/test";
import { shoot, signIn } from "./fixtures/session";
import { E2E_PASSWORD } from "./fixtures/users";

test.describe("sign-in and roles", () => {
  test("[anonymous] is sent to the sign-in page and a wrong password is refused", async ({ page }) => {
    await page.goto("/payouts");
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByRole("heading", { name: "Payout Desk" })).toBeVisible();
    await shoot(page, "sign-in");
    await page.getByLabel("Email").fill("viewer@e2e.test");
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).press("Enter");
    await expect(page.getByRole("alert").filter({ hasText: "do not match" })).toBeVisible();
    // Pressed from the keyboard, the button keeps focus through its wait and the refusal.
    await expect(page.getByRole("button", { name: "Sign in" })).toBeFocused();
    // The email typed stays to be corrected; the password does not.
    await expect(page.getByLabel("Email")).toHaveValue("viewer@e2e.test");
    await expect(page.getByLabel("Password")).toHaveValue("");
    await page.getByLabel("Email").fill("not an email");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText("Email must be an email address", { exact: true })).toBeVisible();
    await expect(page.getByRole("alert").filter({ hasText: "Email must be an email address" })).toBeVisible();
    await shoot(page, "sign-in-errors");
  });

  for (const role of ["viewer", "support", "finance"] as const) {
    test(`[${role}] sees the areas and no settings`, async ({ page }) => {
      await signIn(page, role);
      const nav = page.getByRole("navigation").first();
      for (const area of ["Payouts", "Subscriptions", "Webhooks"])
        await expect(nav.getByRole("link", { name: area })).toBeVisible();
      await expect(page.getByText(/No game is set up yet|No snapshot yet|Payout windows/).first()).toBeVisible();
      await shoot(page, `${role}-payouts`);
      await page.goto("/settings/games");
      await expect(page).toHaveURL(/\/forbidden\?needs=admin/);
      await expect(page.getByRole("heading", { name: "You do not have access to this page" })).toBeVisible();
      await page.goto("/settings/users");
      await expect(page).toHaveURL(/\/forbidden/);
    });
  }

  test("[anonymous] signed in from a link, lands on the page it asked for", async ({ page }) => {
    await page.goto("/audit?action=payouts.window_close");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Faudit%3Faction%3Dpayouts\.window_close$/);
    await page.getByLabel("Email").fill("viewer@e2e.test");
    await page.getByLabel("Password").fill(E2E_PASSWORD);
    await page.getByLabel("Password").press("Enter");
    await expect(page).toHaveURL(/\/audit\?action=payouts\.window_close$/);
    await expect(page.getByRole("heading", { name: "Audit log", level: 1 })).toBeVisible();
    // A session the server ended (its cookie still sent) also comes back to the page asked for.
    await page.context().clearCookies();
    await page
      .context()
      .addCookies([{ name: "payout-desk.session_token", value: "ended.session", url: new URL(page.url()).origin }]);
    await page.goto("/audit?action=payouts.window_close");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Faudit%3Faction%3Dpayouts\.window_close$/);
    // A "next" leading off this site lands on Payouts.
    await page.context().clearCookies();
    await page.goto("/sign-in?next=%2F.%2F%2Fevil.example%2Fpayouts");
    await page.getByLabel("Email").fill("viewer@e2e.test");
    await page.getByLabel("Password").fill(E2E_PASSWORD);
    await page.getByLabel("Password").press("Enter");
    await expect(page).toHaveURL(/\/payouts$/);
    expect(new URL(page.url()).hostname).not.toBe("evil.example");
  });

  test("[admin] manages users and signs out", async ({ page }) => {
    await signIn(page, "admin");
    await page.getByRole("navigation").first().getByRole("link", { name: "Settings" }).click();
    await expect(page.getByRole("heading", { name: "Settings" })).toBeVisible();
    await page.goto("/settings/users");
    await page.getByLabel("Email").fill("new-support@e2e.test");
    await page.getByLabel("Name").fill("New Support");
    await page.getByLabel("Role", { exact: true }).selectOption("support");
    await page.getByLabel("Initial password").fill("short");
    await page.getByRole("button", { name: "Create user" }).click();
    await expect(page.getByText(/Initial password must be at least 10 characters/)).toBeVisible();
    await page.getByLabel("Initial password").fill("a-long-enough-password");
    await page.getByRole("button", { name: "Create user" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Created new-support@e2e.test as support" })).toBeVisible();
    await expect(page.getByRole("cell", { name: "New Support new-support@e2e.test" })).toBeVisible();
    // The only admin who can sign in is offered no role change (it would be refused).
    const own = page.getByRole("row").filter({ hasText: "admin@e2e.test" });
    await expect(own.getByText("The only admin who can sign in")).toBeVisible();
    await expect(own.getByRole("combobox")).toHaveCount(0);
    await expect(page.getByLabel("Role of new-support@e2e.test")).toHaveValue("support");
    // A role changed shows as changed: the list is drawn again with it, and the form is reset to it.
    await page.getByLabel("Role of new-support@e2e.test").selectOption("finance");
    await page.getByRole("button", { name: "Change role of new-support@e2e.test" }).click();
    await expect(page.getByRole("status").filter({ hasText: "new-support@e2e.test is now finance" })).toBeVisible();
    await expect(page.getByLabel("Role of new-support@e2e.test")).toHaveValue("finance");
    await shoot(page, "admin-users");
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.goto("/settings");
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fsettings$/);
  });
  test("[admin] sees an account slowed by failed sign-ins and clears it", async ({ page, browser, checked }) => {
    // The account waits 15 s after its fifth failure. The admin is signed in and on the page first, so that only the
    // stranger's last attempt and a reload stand between that failure and the page showing the wait, even on a busy
    // machine (signing in took longer than the wait here).
    await signIn(page, "admin");
    await page.goto("/settings/users");
    const stranger = await checked(await browser.newPage());
    await stranger.goto("/sign-in");
    for (let i = 0; i < 6; i++) {
      await stranger.getByLabel("Email").fill("guessed@e2e.test");
      await stranger.getByLabel("Password").fill(`wrong-guess-${i}`);
      await stranger.getByRole("button", { name: "Sign in" }).click();
      // The form is reset once the answer is in (the email is kept, the password is not).
      await expect(stranger.getByLabel("Password")).toHaveValue("");
    }
    await expect(
      stranger.getByText(/Too many failed sign-ins for this account\. Try again in \d+ seconds\./),
    ).toBeVisible();
    await expect(stranger.getByLabel("Email")).toHaveValue("guessed@e2e.test");

    await page.reload();
    const row = page.getByRole("row").filter({ hasText: "guessed@e2e.test" });
    await expect(row.getByText("Waits until")).toBeVisible();
    await shoot(page, "admin-sign-in-limits");
    await shoot(stranger, "sign-in-delayed");
    await stranger.close();
    await row.getByRole("button", { name: "Clear failures of guessed@e2e.test" }).click();
    await expect(
      page.getByRole("status").filter({ hasText: "Cleared 5 failed sign-ins of guessed@e2e.test" }),
    ).toBeVisible();
    // The row left the page with its Clear button: the focus is on the result.
    await expect(page.locator(":focus")).toContainText("Cleared 5 failed sign-ins of guessed@e2e.test");
    await page.reload();
    await expect(page.getByRole("row").filter({ hasText: "guessed@e2e.test" })).toHaveCount(0);
    await shoot(page, "admin-sign-in-limits-cleared");
  });
});
