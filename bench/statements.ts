// Benchmark of statement documents and emails: a paid batch of 20,000 recipients (three renewal lines each), every
// statement numbered and rendered to PDF and CSV (lib/statements/render.ts, as `desk statements render` and the send
// job do), then every email queued as a pg-boss job (lib/statements/send.ts, as the batch page's button does).
// Reports throughput (statements per second), each as a ratio to its floor measured in the same run, and the
// process's peak resident memory; no SMTP traffic is sent. Floors: rendering, laying out one statement's PDF alone
// (renderStatementPdf of the same document, no database, no CSV, no audit); queuing, a bare `select 1` round trip
// through the same pool. `pdfDigest` (SHA-256 over every PDF's SHA-256, in order) shows a change to the rendering
// path left the bytes alone.
// `npm run bench -- statements [--recipients N]`
import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { createDb, type Db } from "@/db";
import { startCluster, withDatabase } from "@/db/embedded";
import { migrateToLatest } from "@/db/migrate";
import { ensureDatabase } from "@/bin/runtime";
import { saveGame } from "@/lib/games/games";
import { SNAPSHOT_COLUMNS } from "./snapshot-row";
import { stopBoss } from "@/lib/jobs/queue";
import type { StatementDocument } from "@/lib/statements/model";
import { renderStatementPdf } from "@/lib/statements/pdf-render";
import { renderBatchStatements } from "@/lib/statements/render";
import { queueStatementSends } from "@/lib/statements/send";

const GAME_ID = "bench-statements";
const LINES_PER_RECIPIENT = 3;
const FLOOR_RUNS = 200;

/** Per second, over `runs` sequential calls. */
async function perSecond(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  return runs / ((performance.now() - t0) / 1000);
}

function peakRssMb(): number {
  // ru_maxrss is in kilobytes on Linux: the kernel's high-water mark of this process.
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/** One approved-and-paid batch of `recipients` statements over a snapshot with their renewal lines, by SQL. */
async function seed(db: Db, recipients: number): Promise<string> {
  await saveGame(
    db,
    {
      id: GAME_ID,
      name: "Bench statements",
      environment: "sandbox",
      baseUrl: "http://127.0.0.1:9",
      secret: "gs_bench_statements_secret",
      webhookSecrets: [],
    },
    { replace: false, as: { actor: null, via: "cli" } },
  );
  const pullId = crypto.randomUUID();
  const snapshotId = crypto.randomUUID();
  const batchId = crypto.randomUUID();
  await sql`insert into snapshot_pull (id, game_id, window_start, window_end, status, via)
    values (${pullId}, ${GAME_ID}, '2026-03-01Z', '2026-04-01Z', 'complete', 'bench')`.execute(db);
  await sql`insert into snapshot (${SNAPSHOT_COLUMNS})
    values (${snapshotId}, ${GAME_ID}, '2026-03-01Z', '2026-04-01Z', 1, ${pullId}, now(), now(), now(), true,
      'single', 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '{}', 0, 0, 0, 0, 0, 0, ${recipients}, '{}', '{}',
      '[]', '[]', 'first_version')`.execute(db);
  await sql`insert into snapshot_line (snapshot_id, period_id, recipient_player_id, subscription_id, period_seq,
      item_id, item_name, status, period_start, period_end, paid_at, amount_usd, invo_fee_usd, partner_revenue_usd,
      partner_revenue_settled_usd, partner_revenue_reversed_usd, partner_leg_reversed, percent_at_renewal, base_usd,
      attributed_amount_usd, attribution_unavailable_reason, transaction_id, mint_order_id, funding, refund,
      reconciliation)
    select ${snapshotId}, g, 100000 + (g % ${recipients}), 'SUB_1700000000_' || lpad(g::text, 8, '0'), 1, 'pass',
      'Pass', 'paid', '2026-03-02Z', '2026-04-01Z', '2026-03-02Z'::timestamptz + (g || ' seconds')::interval, 49.99,
      1.00, 9.00, 9.00, 0, false, 20.00, 9.00, 1.80, null, 'tx_' || g, null, 'null', 'null', '{}'
    from generate_series(1, ${recipients * LINES_PER_RECIPIENT}) g`.execute(db);
  await sql`insert into payout_batch (id, game_id, window_start, window_end, snapshot_id, snapshot_version, status,
      min_payout_usd, two_person_rule, prepared_by_id, prepared_by_email, approved_by_id, approved_by_email,
      approved_at, paid_at)
    values (${batchId}, ${GAME_ID}, '2026-03-01Z', '2026-04-01Z', ${snapshotId}, 1, 'paid', 1.00, true, 'u1',
      'preparer@bench.test', 'u2', 'approver@bench.test', '2026-04-02T09:15:00Z', '2026-04-03T10:00:00Z')`.execute(db);
  await sql`insert into payout_statement (id, batch_id, game_id, recipient_player_id, in_snapshot, resolved,
      player_email, player_name, renewal_count, subscription_count, reversal_count, gross_attributed_usd,
      reversed_attributed_usd, net_attributed_usd, carried_in_usd, available_usd, payable_usd, carry_out_usd,
      recipient_flags, state, state_changed_by_email, paid_amount_usd, paid_on, payment_method, payment_reference,
      closed_at)
    select gen_random_uuid(), ${batchId}, ${GAME_ID}, 100000 + r, true, true, 'player' || r || '@bench.test',
      'Игрок ' || r, ${LINES_PER_RECIPIENT}, ${LINES_PER_RECIPIENT}, 0, 5.40, 0, 5.40, 0, 5.40, 5.40, 0, '[]',
      'paid', 'approver@bench.test', 5.40, '2026-04-03', 'bank_transfer', 'PAY-' || r, '2026-04-03T10:00:00Z'
    from generate_series(0, ${recipients - 1}) r`.execute(db);
  return batchId;
}

export async function run(args: string[]): Promise<void> {
  const flag = args.indexOf("--recipients");
  const recipients = flag >= 0 ? Number(args[flag + 1]) : 20_000;
  if (!Number.isInteger(recipients) || recipients < 1 || recipients > 200_000)
    throw new Error("--recipients must be a whole number from 1 to 200,000");
  process.env.PAYOUT_DESK_KEY ??= randomBytes(32).toString("base64");
  process.env.LOG_LEVEL ??= "silent";
  const dir = await mkdtemp(path.join(os.tmpdir(), "payout-desk-bench-statements-"));
  await chmod(dir, 0o755);
  const cluster = await startCluster({
    clusterDir: path.join(dir, "postgres"),
    password: randomBytes(12).toString("base64url"),
    durable: false,
  });
  try {
    await ensureDatabase(cluster.url, "bench_statements");
    const databaseUrl = withDatabase(cluster.url, "bench_statements");
    process.env.DATABASE_URL = databaseUrl;
    const db = createDb(databaseUrl, { max: 4 });
    await migrateToLatest(db);
    const batchId = await seed(db, recipients);
    const acting = { actor: null, via: "cli" as const };
    const baselineMb = peakRssMb();

    let rendered = 0;
    let pdfBytes = 0;
    let firstDoc: StatementDocument | null = null;
    const digest = createHash("sha256");
    const renderStart = performance.now();
    await renderBatchStatements(db, { gameId: GAME_ID, batchId }, acting, async (r) => {
      rendered += 1;
      pdfBytes += r.pdf.length;
      firstDoc ??= r.doc;
      digest.update(r.pdfSha256);
      if (rendered % 1_000 === 0) process.stderr.write(`bench statements: ${rendered} rendered\n`);
    });
    const renderMs = performance.now() - renderStart;
    const renderPeakMb = peakRssMb();

    const queueStart = performance.now();
    const sent = await queueStatementSends(db, { gameId: GAME_ID, batchId }, acting);
    const queueMs = performance.now() - queueStart;
    await stopBoss();
    const doc = firstDoc;
    const renderFloor = doc ? await perSecond(FLOOR_RUNS, () => renderStatementPdf(doc)) : 0;
    const queueFloor = await perSecond(FLOOR_RUNS * 10, () => sql`select 1`.execute(db));
    await db.destroy();
    const renderPerSecond = rendered / (renderMs / 1000);
    const queuedPerSecond = sent.queued / (queueMs / 1000);

    const report = {
      bench: "statements",
      recipients,
      rendered,
      renderSeconds: Number((renderMs / 1000).toFixed(1)),
      renderPerSecond: Number(renderPerSecond.toFixed(1)),
      renderFloorPerSecond: Number(renderFloor.toFixed(1)),
      renderToFloor: Number((renderPerSecond / renderFloor).toFixed(2)),
      averagePdfKb: Number((pdfBytes / rendered / 1024).toFixed(1)),
      queued: sent.queued,
      queueSeconds: Number((queueMs / 1000).toFixed(1)),
      queuedPerSecond: Number(queuedPerSecond.toFixed(1)),
      queueFloorPerSecond: Number(queueFloor.toFixed(1)),
      queuedToFloor: Number((queuedPerSecond / queueFloor).toFixed(2)),
      pdfDigest: digest.digest("hex"),
      peakRssMb: { beforeRender: baselineMb, afterRender: renderPeakMb, end: peakRssMb() },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
