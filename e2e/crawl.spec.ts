import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { payoutTable } from "../app/(desk)/payouts/[window]/table-state";
import { eventTable } from "../app/(desk)/webhooks/table-state";
import type { Role } from "../lib/auth/roles";
import type { TableStateDefinition } from "../lib/table-state";
import { signIn } from "./fixtures/session";
import { expect, test } from "./fixtures/test";
import { SLACK } from "./fixtures/slack";
import { CRAWL_MONTH } from "./fixtures/users";

/**
 * Every link the app shows, for every role: from the home page, over the demo with the snapshot and the prepared
 * batch global setup makes, each link (query-string variants of sorting, filters and pages included) is fetched once
 * with the role's session. No page may answer 5xx or show the error screen. Then each distinct route is opened in the
 * browser, where the page fixture runs axe-core on it.
 */

const ROLES: Role[] = ["viewer", "support", "finance", "admin"];
const MAX_PAGES = 320;
const MIN_PAGES = 150;
/** Keeps one route's sort, filter and page variants from crowding out the rest of the app. */
const MAX_PER_ROUTE = 45;
const CONCURRENCY = 4;
/**
 * Opening a page and running axe on it, in the browser: on an idle machine 0.1 – 9 s (the slowest, a recipient's
 * evidence with a table per reversal); the suite's other project shares the machine while this runs.
 */
const PAGE_ALLOWANCE_MS = 20_000;
const MAX_PAGE_MS = 90_000;
const APP_DIR = path.resolve(import.meta.dirname, "..", "app");

/**
 * The app's data tables keep sort, direction, page, page size and filters in the URL, changed by buttons (not links):
 * the crawl asks for what those controls would ask for, from the tables' own definitions.
 */
const TABLES: Record<string, TableStateDefinition<string, string>> = {
  "/payouts/[window]": payoutTable as unknown as TableStateDefinition<string, string>,
  "/webhooks": eventTable as unknown as TableStateDefinition<string, string>,
};

function tableVariants(url: string, route: string, origin: string): string[] {
  const table = TABLES[route];
  const at = new URL(url, origin);
  if (!table || at.search !== "") return [];
  const { config, defaults } = table;
  const states = [
    ...config.sortColumns.flatMap((sort) => (["asc", "desc"] as const).map((dir) => ({ ...defaults, sort, dir }))),
    ...[2, 3].map((page) => ({ ...defaults, page })),
    ...config.pageSizes.map((pageSize) => ({ ...defaults, pageSize, page: 2 })),
    ...Object.entries(config.filters as Record<string, readonly string[]>).flatMap(([name, values]) =>
      values.map((value) => ({ ...defaults, filters: { [name]: value } })),
    ),
  ];
  return states
    .map((state) => normalize(`${at.pathname}?${table.serialize(state).toString()}`, at.toString(), origin))
    .filter((u): u is string => u !== null);
}

type Route = { pattern: string; regex: RegExp; dynamic: number };

/** The app's page routes from its folders: `(group)` segments dropped, `[param]` matching one segment. */
function appRoutes(): Route[] {
  const routes: Route[] = [];
  const walk = (dir: string, segments: string[]) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith("_"))
        walk(path.join(dir, entry.name), [...segments, entry.name]);
      else if (entry.name === "page.tsx") {
        const parts = segments.filter((s) => !/^\(.*\)$/.test(s));
        const pattern = `/${parts.join("/")}`;
        const source = parts
          .map((s) => (/^\[.*\]$/.test(s) ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
          .join("/");
        routes.push({
          pattern,
          regex: new RegExp(`^/${source}/?$`),
          dynamic: parts.filter((s) => s.startsWith("[")).length,
        });
      }
    }
  };
  walk(APP_DIR, []);
  return routes.sort((a, b) => a.dynamic - b.dynamic);
}

const ROUTES = appRoutes();

function routeOf(pathname: string): string {
  if (pathname.startsWith("/api/")) return pathname.split("/").slice(0, 3).join("/");
  return ROUTES.find((r) => r.regex.test(pathname))?.pattern ?? `unknown:${pathname}`;
}

/** One spelling per URL: no fragment, query parameters in a fixed order. */
function normalize(href: string, base: string, origin: string): string | null {
  let url: URL;
  try {
    url = new URL(href.replace(/&amp;/g, "&"), base);
  } catch {
    return null;
  }
  if (url.origin !== origin) return null;
  url.hash = "";
  url.searchParams.sort();
  return `${url.pathname}${url.search}`;
}

function linksOf(html: string, base: string, origin: string): string[] {
  const out: string[] = [];
  for (const match of html.matchAll(/<a\b[^>]*?\shref="([^"]*)"/g)) {
    const link = normalize(match[1] ?? "", base, origin);
    if (link) out.push(link);
  }
  return out;
}

/** Next's error document, or an error boundary's digest streamed into a page that had already answered 200. */
function showsErrorScreen(html: string): boolean {
  return (
    html.includes('id="__next_error__"') ||
    /data-dgst="(?!NEXT_)/.test(html) ||
    /Application error: a (server|client)-side exception/.test(html)
  );
}

type Visit = { url: string; route: string; status: number; error: boolean };

async function crawl(request: APIRequestContext, origin: string): Promise<Visit[]> {
  const visits: Visit[] = [];
  const queued = new Set<string>(["/"]);
  const perRoute = new Map<string, number>([["/", 1]]);
  const queue = ["/"];
  let active = 0;
  const visit = async (url: string) => {
    const route = routeOf(new URL(url, origin).pathname);
    const response = await request.get(url, { maxRedirects: 5, timeout: 30_000 * SLACK });
    const type = response.headers()["content-type"] ?? "";
    const body = type.includes("text/html") ? await response.text() : "";
    if (!body) await response.body().catch(() => null);
    visits.push({ url, route, status: response.status(), error: showsErrorScreen(body) });
    for (const variant of tableVariants(url, route, origin)) {
      if (queued.has(variant)) continue;
      queued.add(variant);
      queue.push(variant);
    }
    for (const link of linksOf(body, response.url(), origin)) {
      if (queued.has(link)) continue;
      const linkRoute = routeOf(new URL(link, origin).pathname);
      const count = perRoute.get(linkRoute) ?? 0;
      if (count >= MAX_PER_ROUTE) continue;
      perRoute.set(linkRoute, count + 1);
      queued.add(link);
      queue.push(link);
    }
  };
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      while (active < CONCURRENCY && queue.length > 0 && visits.length + active < MAX_PAGES) {
        const url = queue.shift() as string;
        active++;
        visit(url).then(() => {
          active--;
          pump();
        }, reject);
      }
      if (active === 0) resolve();
    };
    pump();
  });
  return visits;
}

/**
 * What a role's crawl found, for its axe test: in the project's output folder, which Playwright empties at the start of
 * a run, so the axe test never reads a crawl of an earlier run (it fails, saying so, when this run's did not write it).
 */
function resultsFile(role: Role): string {
  return path.join(test.info().project.outputDir, `crawl-${role}.json`);
}

test.describe("crawl", () => {
  for (const role of ROLES) {
    test(`[${role}] every page linked from home answers without a server error or the error screen`, async ({
      page,
      baseURL,
    }) => {
      test.setTimeout(180_000 * SLACK);
      await signIn(page, role);
      const origin = new URL(baseURL ?? page.url()).origin;
      const visits = await crawl(page.request, origin);
      mkdirSync(path.dirname(resultsFile(role)), { recursive: true });
      writeFileSync(resultsFile(role), JSON.stringify(visits, null, 1));

      const failing = visits
        .filter((v) => v.status >= 500 || v.error)
        .map((v) => `${v.status}${v.error ? " error screen" : ""} ${v.url}`);
      const missing = visits.filter((v) => v.status === 404).map((v) => `404 ${v.url}`);
      test.info().annotations.push({
        type: "pages",
        description: `${visits.length} pages, ${new Set(visits.map((v) => v.route)).size} routes`,
      });
      if (missing.length > 0)
        test.info().annotations.push({ type: "links to missing pages", description: missing.join("\n") });
      expect(failing, `pages answering 5xx or showing the error screen:\n${failing.join("\n")}`).toEqual([]);
      expect(visits.length).toBeGreaterThanOrEqual(MIN_PAGES);
    });
  }

  for (const role of ROLES) {
    test(`[${role}] one page of every route it reaches passes axe in the browser`, async ({ page, a11y }) => {
      test.setTimeout(180_000 * SLACK);
      const visits = JSON.parse(readFileSync(resultsFile(role), "utf8")) as Visit[];
      await signIn(page, role);
      const byRoute = new Map<string, string>();
      for (const v of visits) {
        if (v.route.startsWith("/api/") || v.status >= 400 || byRoute.has(v.route)) continue;
        byRoute.set(v.route, v.url);
      }
      // The allowance follows from the number of routes the role reaches; each page has one of its own, so a page that
      // stalls fails by its name instead of eating the test's.
      test.setTimeout((60_000 + byRoute.size * PAGE_ALLOWANCE_MS) * SLACK);
      const errors: string[] = [];
      for (const url of byRoute.values()) {
        await test.step(
          `open ${url} and check it with axe`,
          async () => {
            await page.goto(url);
            if (await page.getByText(/Application error: a (server|client)-side exception/).count()) errors.push(url);
            await a11y.check();
          },
          { timeout: MAX_PAGE_MS * SLACK },
        );
      }
      expect(errors, `pages showing the error screen in the browser:\n${errors.join("\n")}`).toEqual([]);
      expect(byRoute.size).toBeGreaterThan(5);
    });
  }
});

test("[finance] the accessibility check reports a serious fault planted on a page, where it is", async ({
  page,
  a11y,
}) => {
  await signIn(page, "finance");
  await page.goto("/payouts");
  await a11y.check();
  expect(a11y.violations).toEqual([]);
  // A document without a language: a serious fault axe-core knows as html-has-lang. (The attribute, unlike a node
  // added to the page, stays put when React renders the page again.)
  await page.evaluate(() => document.documentElement.removeAttribute("lang"));
  await a11y.check("planted fault");
  expect(a11y.violations.map((v) => [v.where, v.rule, v.impact, v.targets])).toEqual([
    ["/payouts (planted fault)", "html-has-lang", "serious", ["html"]],
  ]);
  // The fault was planted by this test: taken away, so the check at the test's end passes.
  await page.evaluate(() => document.documentElement.setAttribute("lang", "en"));
  a11y.violations.length = 0;

  // Over an open dialog, contrast is measured inside the dialog and every other rule on the whole document: text too
  // faint in the dialog and a document in no known language are both reported; faint text on the page behind the
  // dialog's overlay is not, and is once the dialog has closed.
  const faint = (selector: string, color: string | null) =>
    page.locator(selector).evaluate((el, c) => {
      (el as HTMLElement).style.color = c ?? "";
    }, color);
  await page.getByRole("button", { name: "Take snapshot" }).click();
  const dialog = page.getByRole("dialog", { name: "Take a snapshot" });
  await expect(dialog).toBeVisible();
  await a11y.settle(); // the check the dialog's opening queued sees it as the desk drew it
  await faint('[role="dialog"] h2', "#e4e4e7");
  await faint("main h1", "#e4e4e7");
  await page.evaluate(() => document.documentElement.setAttribute("lang", "a1"));
  await a11y.check('dialog "Take a snapshot", planted faults');
  const found = () => a11y.violations.map((v) => [v.where, v.rule, v.impact, v.targets.length]);
  const where = '/payouts (dialog "Take a snapshot", planted faults)';
  expect(found()).toEqual([
    [where, "color-contrast", "serious", 1],
    [where, "html-lang-valid", "serious", 1],
  ]);
  await page.evaluate(() => document.documentElement.setAttribute("lang", "en"));
  await faint('[role="dialog"] h2', null);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  a11y.violations.length = 0;
  await a11y.check("planted fault behind the closed dialog");
  expect(found()).toEqual([["/payouts (planted fault behind the closed dialog)", "color-contrast", "serious", 1]]);
  await faint("main h1", null);
  a11y.violations.length = 0;

  // A long table's rows styled alike have their contrast measured once; a row styled apart from the rest, further
  // down, is measured as well.
  await page.goto(`/payouts/${CRAWL_MONTH}`);
  const rows = page.getByRole("table", { name: /^Recipient payouts/ }).locator("tbody tr");
  expect(await rows.count()).toBeGreaterThan(10);
  const cell = rows.nth(8).locator("td").filter({ hasText: /\d/ }).first();
  const paint = (color: string | null) =>
    cell.evaluate((el, c) => {
      for (const node of [el, ...el.querySelectorAll("*")])
        c === null ? node.removeAttribute("style") : node.setAttribute("style", `color: ${c}`);
    }, color);
  await paint("#e4e4e7");
  await a11y.check("planted fault in one row");
  expect(a11y.violations.map((v) => v.rule)).toEqual(["color-contrast"]);
  expect(a11y.violations[0]?.targets.length).toBeGreaterThan(0);
  await paint(null);
  a11y.violations.length = 0;
});
