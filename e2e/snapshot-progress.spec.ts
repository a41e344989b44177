import { expect, test } from "./fixtures/test";
import { DEMO_GAME_ID } from "../emulator/scenario/demo";
import { suiteEmulator } from "./fixtures/emulator";
import { shoot, signIn } from "./fixtures/session";
import { SLACK } from "./fixtures/slack";

/**
 * A pull under way is shown in two places, its card and its window's row of the table; both read the same live
 * figures, and the outage the pull is riding out shows on the card. The first page is refused once with a 429 whose
 * retry_after holds the pull still long enough to look at.
 */

// A month no other spec of its project snapshots: the row then shows this pull's outcome, not an earlier one.
const MONTH = "2026-02";

const { admin } = suiteEmulator();

test("[finance] a pull's card and its window's row show the same progress, and the outage it rides out", async ({
  page,
}) => {
  test.setTimeout(120_000 * SLACK);
  await signIn(page, "finance");
  await admin("/faults", {
    route: "/api/subscriptions/reporting/attribution",
    fault: "429",
    retry_after: 20 * SLACK,
    count: 1,
  });

  await page.getByRole("button", { name: "Take snapshot" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox", { name: "Month" }).fill(MONTH);
  await dialog.getByRole("button", { name: "Take snapshot" }).click();
  await expect(dialog).toBeHidden();

  const card = page.getByRole("region", { name: /^Snapshot 2026-02-01/ });
  const row = page.getByRole("table", { name: /^Payout windows/ }).getByRole("row", { name: /February 2026/ });
  await expect(card).toContainText("The service failed 1 time; a failing page is asked again for up to 15m 00s");
  await expect(card).toContainText("answered 429; asking for the same page again");
  await expect(card.getByRole("definition").first()).toHaveText("0 / 1");
  await expect(row).toContainText("Pulling 0%");
  await expect(row).toContainText("0 / 1 pages, 0 recipients");
  await shoot(page, "finance-snapshot-progress");
  // Asked again meanwhile, the request joins that pull, and says so once its dialog has closed.
  await page.getByRole("button", { name: "Take snapshot" }).click();
  await dialog.getByRole("textbox", { name: "Month" }).fill(MONTH);
  await dialog.getByRole("button", { name: "Take snapshot" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "was already under way" })).toHaveText(
    /^A pull of February 2026 was already under way: this request joined it \(its progress is below\)\.$/,
  );

  // Once the wait is over the pull completes, and both places move on together without a reload.
  await expect(row).toContainText("Complete", { timeout: 60_000 * SLACK });
  await expect(card).toBeHidden();
  await expect(row.getByRole("link", { name: "February 2026" })).toBeVisible();
});

test("[finance] a pull the service refuses for good fails at once, with the service's reason on its card", async ({
  page,
}) => {
  await signIn(page, "finance");
  const game = `${process.env.E2E_EMULATOR_URL}/__emulator/games/${DEMO_GAME_ID}`;
  const setStatus = (status: string) =>
    fetch(game, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ status }) });
  expect((await setStatus("suspended")).ok).toBe(true);
  try {
    await page.getByRole("button", { name: "Take snapshot" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("textbox", { name: "Month" }).fill("2026-05");
    await dialog.getByRole("button", { name: "Take snapshot" }).click();
    await expect(dialog).toBeHidden();
    const card = page.getByRole("region", { name: /^Snapshot 2026-05-01/ });
    // What happened and what to do, then the status, code and error id once: no request path, no repeated code.
    const alert = card.getByRole("alert");
    await expect(alert).toHaveText(/^Failed: The service refused the report: the service refused this game access /, {
      timeout: 30_000,
    });
    await expect(alert).toHaveText(
      /\(it may be suspended\)\. Tell an admin\. \(HTTP 403, \w+, service error id \S+\)$/,
    );
    await expect(
      page.getByRole("table", { name: /^Payout windows/ }).getByRole("row", { name: /May 2026/ }),
    ).toContainText("Pull failed");
    await shoot(page, "finance-snapshot-refused");
  } finally {
    await setStatus("live");
  }
  // Taken again once the game is let back in: the failure's card goes, the window's snapshot having been published.
  await page.getByRole("button", { name: "Take snapshot" }).click();
  const again = page.getByRole("dialog");
  await again.getByRole("textbox", { name: "Month" }).fill("2026-05");
  await again.getByRole("button", { name: "Take snapshot" }).click();
  await expect(again).toBeHidden();
  await expect(
    page.getByRole("table", { name: /^Payout windows/ }).getByRole("row", { name: /May 2026/ }),
  ).toContainText("Complete", { timeout: 60_000 * SLACK });
  await page.reload();
  await expect(page.getByRole("region", { name: /^Snapshot 2026-05-01/ })).toBeHidden();
});
