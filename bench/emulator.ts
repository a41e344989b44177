// Benchmark of the emulator's reporting: a window of 20,000 settled renewals in a ledger of 100,000 periods.
// Issue 3: "A report for a window of 20,000 settled renewals answers in under 1 s on this machine".
// `npm run bench -- emulator pages`: every page of a window of 20,000 renewals paying 15,300 recipients (a studio's
// sub-window), served afresh for every page, then with the window's aggregate kept across its pages.
import { ledgerChanged } from "@/emulator/ledger/revision";
import type { ScenarioInput } from "@/emulator/scenario/schema";
import { type RunningEmulator, startEmulator } from "@/emulator/server";
import { addInterval, DAY, formatInstant, HOUR, MINUTE } from "@/emulator/time";
import { median } from "./median";

const SECRET = "gs_bench";
const SUBSCRIPTIONS = 5_000;
const MONTHS = 20; // 100,000 periods
const RECIPIENTS = 400;
const RUNS = 7;
const PRICES = ["4.99", "9.99", "14.99", "19.99"];
/** Four months of renewals: 4 × 5,000 = 20,000 settled in the window. */
const WINDOW = { start: "2026-03-01", end: "2026-07-01" };

type Shape = { subscriptions: number; months: number; recipients: number; clock: string };

const REPORT_SHAPE: Shape = {
  subscriptions: SUBSCRIPTIONS,
  months: MONTHS,
  recipients: RECIPIENTS,
  clock: "2026-10-01T00:00:00Z",
};

/** Two months of 20,000 subscriptions: February 2025 holds 20,000 renewals paying 15,300 recipients (153 pages). */
const PAGES_SHAPE: Shape = { subscriptions: 20_000, months: 2, recipients: 17_000, clock: "2025-03-05T00:00:00Z" };
const PAGES_WINDOW = { start: "2025-02-01", end: "2025-03-01" };

function buildScenario(shape: Shape): ScenarioInput {
  const first = Date.UTC(2025, 0, 1);
  const subscriptions: NonNullable<ScenarioInput["subscriptions"]> = [];
  for (let i = 0; i < shape.subscriptions; i++) {
    const created = first + (i % 28) * DAY + (i % 1440) * MINUTE;
    const amount = PRICES[i % PRICES.length] as string;
    const periods = [];
    const refunds = [];
    for (let m = 0; m < shape.months; m++) {
      const start = addInterval(created, "month", m);
      periods.push({
        period_seq: m + 1,
        status: "paid" as const,
        period_start: formatInstant(start),
        period_end: formatInstant(addInterval(created, "month", m + 1)),
        paid_at: formatInstant(start),
      });
      // About 2% of renewals are refunded: in full, in part, or known only from the period row.
      if ((i * 31 + m * 7) % 50 === 0) {
        const kind = (i + m) % 3;
        refunds.push({
          period_seq: m + 1,
          amount_usd: kind === 1 ? "1.00" : amount,
          refunded_at: formatInstant(start + 3 * DAY + (i % 24) * HOUR),
          receipt: kind !== 2,
          client_request_id: `b-${i}-${m}`,
        });
      }
    }
    subscriptions.push({
      game_id: "bench",
      subscription_id: `SUB_1735689600_${String(i).padStart(8, "0")}`,
      player_id: 1 + (i % 3000),
      item_id: "pass",
      item_name: "Pass",
      amount_usd: amount,
      created_at: formatInstant(created),
      status: "active",
      revenue_share: i % 10 === 0 ? null : { recipient_player_id: 10_001 + (i % shape.recipients), percent: "15.00" },
      periods,
      refunds,
    });
  }
  const players = Array.from({ length: 3000 }, (_, k) => ({
    game_id: "bench",
    player_id: k + 1,
    email: `p${k + 1}@bench.test`,
    date_joined: "2024-06-01",
  }));
  for (let r = 0; r < shape.recipients; r++)
    players.push({ game_id: "bench", player_id: 10_001 + r, email: `r${r}@bench.test`, date_joined: "2024-06-01" });
  return {
    clock: shape.clock,
    games: [{ game_id: "bench", name: "Bench", status: "live", secret: SECRET }],
    players,
    subscriptions,
  };
}

async function time(url: string): Promise<{ ms: number; bytes: number; status: number; body: any }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { "X-Game-Secret-Key": SECRET } });
  const text = await response.text();
  return { ms: performance.now() - started, bytes: text.length, status: response.status, body: JSON.parse(text) };
}

export async function run(args: string[] = []): Promise<void> {
  if (args[0] === "pages") return runPages();
  const built = performance.now();
  const scenario = buildScenario(REPORT_SHAPE);
  const buildMs = performance.now() - built;
  const loading = performance.now();
  const emulator = await startEmulator({ port: 0, scenario, rateLimits: "off" });
  const loadMs = performance.now() - loading;
  try {
    const results: Record<string, unknown> = {};
    for (const limit of [50, 100]) {
      const url =
        `${emulator.url}/api/subscriptions/reporting/attribution` +
        `?start=${WINDOW.start}&end=${WINDOW.end}&limit=${limit}`;
      const first = await time(url);
      if (first.status !== 200) throw new Error(`report failed: ${JSON.stringify(first.body).slice(0, 300)}`);
      const runs: number[] = [];
      let bytes = 0;
      for (let i = 0; i < RUNS; i++) {
        // Each run computes the report afresh: the aggregate kept for a window's next pages is dropped.
        ledgerChanged(emulator.ledger());
        const r = await time(url);
        runs.push(r.ms);
        bytes = r.bytes;
      }
      results[`limit_${limit}`] = {
        first_ms: Math.round(first.ms),
        median_ms: Math.round(median(runs)),
        max_ms: Math.round(Math.max(...runs)),
        response_bytes: bytes,
        settled_renewals: first.body.totals.renewals_settled,
        refund_events_in_window: first.body.totals.refund_events_in_window,
        recipient_count: first.body.totals.recipient_count,
      };
    }
    const medians = Object.values(results).map((r: any) => r.median_ms as number);
    process.stdout.write(
      `${JSON.stringify({
        bench: "emulator",
        periods: emulator.ledger().periods.size,
        window: WINDOW,
        build_scenario_ms: Math.round(buildMs),
        load_ms: Math.round(loadMs),
        runs: RUNS,
        ...results,
        under_1s: medians.every((m) => m < 1000),
      })}\n`,
    );
  } finally {
    await emulator.close();
  }
}

/** Serves every page of the window in order; `fresh` drops the kept aggregate before each page. */
async function allPages(emulator: RunningEmulator, fresh: boolean): Promise<{ ms: number; texts: string[] }> {
  const texts: string[] = [];
  const started = performance.now();
  for (let offset = 0; ; offset += 100) {
    if (fresh) ledgerChanged(emulator.ledger());
    const url =
      `${emulator.url}/api/subscriptions/reporting/attribution` +
      `?start=${PAGES_WINDOW.start}&end=${PAGES_WINDOW.end}&limit=100&offset=${offset}`;
    const response = await fetch(url, { headers: { "X-Game-Secret-Key": SECRET } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`report failed: ${text.slice(0, 300)}`);
    texts.push(text);
    if (!(JSON.parse(text) as { pagination: { has_more: boolean } }).pagination.has_more) break;
  }
  return { ms: performance.now() - started, texts };
}

async function runPages(): Promise<void> {
  const emulator = await startEmulator({ port: 0, scenario: buildScenario(PAGES_SHAPE), rateLimits: "off" });
  try {
    const fresh = await allPages(emulator, true);
    const kept = await allPages(emulator, false);
    const first = JSON.parse(kept.texts[0] as string) as { totals: Record<string, number> };
    process.stdout.write(
      `${JSON.stringify({
        bench: "emulator pages",
        periods: emulator.ledger().periods.size,
        window: PAGES_WINDOW,
        settled_renewals: first.totals.renewals_settled,
        recipient_count: first.totals.recipient_count,
        pages: kept.texts.length,
        every_page_computed_ms: Math.round(fresh.ms),
        aggregate_kept_ms: Math.round(kept.ms),
        ratio: Math.round((fresh.ms / kept.ms) * 10) / 10,
        identical_pages: fresh.texts.every((text, k) => text === kept.texts[k]),
      })}\n`,
    );
  } finally {
    await emulator.close();
  }
}
