import "server-only";
import { databaseNowMs } from "@/db/queries/scalar";
import type { Db } from "@/db";
import { markChangesStale, type StaleChange } from "@/db/queries/stale-marks";
import {
  claimPendingWebhookEvents,
  completeWebhookEvents,
  recordRepullsForEvents,
  type WebhookEventCompletion,
} from "@/db/queries/webhook-drain";
import { readGameAutomation } from "@/db/queries/webhooks";
import { log } from "@/lib/log";
import { formatInstant, type TimeWindow, windowToQuery } from "@/lib/time";
import { parseStoredEvent } from "./event-json";
import { processWebhookEventOnce } from "./process-event-job.handler";
import { applyEffects, type ApplyStaleness, type Effect, sameWindow, stalenessOutcome } from "./process-event";
import { pullServesChange, snapshotLink, type SnapshotLink } from "./snapshot-link";

/**
 * Processes stored events in chunks: one transaction claims up to `chunkSize` pending events (FOR UPDATE SKIP
 * LOCKED, so drains in several workers take different events and none is processed twice), applies what each asks,
 * marks the windows they touch stale once per window (db/queries/stale-marks.ts) and completes them in one statement.
 * Re-pulls are queued after the commit, once per window and chunk. A chunk that fails is rolled back and its events
 * are processed one by one (lib/webhooks/process-event.ts), so that one bad event fails alone and is retried.
 */

export const DRAIN_CHUNK = 250;
/** A drain hands over after this long (another drain job carries on), so a worker stopping waits for one chunk. */
export const DRAIN_MAX_MS = 30_000;

export type DrainResult = { processed: number; unprocessable: number; failed: number; chunks: number; more: boolean };

type Deferred = { index: number; change: StaleChange };
/** game -> window key -> the events owed a re-pull of that window, each with the time of its change. */
type Owed = Map<string, Map<string, { id: string; instantMs: number }[]>>;
type Chunk = { completions: WebhookEventCompletion[]; repull: Owed } | null;

async function drainChunk(db: Db, chunkSize: number, exclude: string[]): Promise<Chunk> {
  return db.transaction().execute(async (trx) => {
    const rows = await claimPendingWebhookEvents(trx, { limit: chunkSize, excludeIds: exclude });
    if (rows.length === 0) return null;
    const completions: WebhookEventCompletion[] = [];
    const deferred = new Map<string, Deferred[]>();
    for (const row of rows) {
      const parsed = parseStoredEvent(row.body);
      if (!parsed.success) {
        completions.push({
          id: row.id,
          status: "unprocessable",
          effect: { kind: "unprocessable", issues: parsed.issues },
        });
        continue;
      }
      const index = completions.length;
      // The staleness is gathered here and applied once for the chunk below; the effect is completed then.
      const gather: ApplyStaleness = async (_trx, gameId, request) => {
        if (request.instant === null) return { kind: "staleness", note: request.note };
        const subscriptionId = typeof request.detail.subscriptionId === "string" ? request.detail.subscriptionId : null;
        const list = deferred.get(gameId) ?? [];
        for (const instant of request.instants) {
          list.push({
            index,
            change: { instant: new Date(instant), reason: request.reason, detail: request.detail, subscriptionId },
          });
        }
        deferred.set(gameId, list);
        return { kind: "staleness", instant: formatInstant(request.instant) };
      };
      const effect = await applyEffects(trx, row.gameId, parsed.event, gather);
      completions.push({ id: row.id, status: effect.kind === "unprocessable" ? "unprocessable" : "processed", effect });
    }

    const repull: Owed = new Map();
    for (const [gameId, list] of deferred) {
      const { windows } = await markChangesStale(
        trx,
        gameId,
        list.map((d) => d.change),
      );
      const autoRefresh = (await readGameAutomation(trx, gameId))?.autoRefresh ?? false;
      // An event may hold more than one change (eventInstants): its windows are those of all of them, each owed a
      // pull that reads past the event's own time (pullServesChange takes a window's end for a time after it), as
      // processing one event at a time does.
      const byEvent = new Map<number, { spans: TimeWindow[]; instantMs: number }>();
      list.forEach((d, i) => {
        const at = d.change.instant.getTime();
        const of = byEvent.get(d.index) ?? { spans: [], instantMs: at };
        for (const span of windows[i] ?? []) if (!of.spans.some((k) => sameWindow(k, span))) of.spans.push(span);
        of.instantMs = Math.max(of.instantMs, at);
        byEvent.set(d.index, of);
      });
      for (const [index, { spans, instantMs }] of byEvent) {
        const completion = completions[index] as WebhookEventCompletion;
        Object.assign(completion.effect as Effect, stalenessOutcome(spans, autoRefresh));
        if (!autoRefresh) continue;
        const byWindow = repull.get(gameId) ?? new Map<string, { id: string; instantMs: number }[]>();
        for (const span of spans) {
          const key = `${span.startMs}/${span.endMs}`;
          const owed = byWindow.get(key) ?? [];
          owed.push({ id: completion.id, instantMs });
          byWindow.set(key, owed);
        }
        repull.set(gameId, byWindow);
      }
    }
    await completeWebhookEvents(trx, completions);
    return { completions, repull };
  });
}

/** A pull asked for an event: the window's bounds (ISO instants) and the pull's id. */
type Repull = { start: string; end: string; pullId: string };

/**
 * Queues one pull per window a chunk made stale (auto-refresh on) and records on each event every pull it asked for,
 * at once: an event in two windows (a month and a quarter) keeps repullDue while either pull was not queued, or was
 * found already reading, or reads an open window only up to a moment before the change (either may miss it); the sweep
 * then asks again.
 */
async function queueRepulls(db: Db, link: SnapshotLink, repull: Owed): Promise<void> {
  const byEvent = new Map<string, { repulls: Repull[]; due: boolean }>();
  const of = (id: string) => {
    const known = byEvent.get(id) ?? { repulls: [], due: false };
    byEvent.set(id, known);
    return known;
  };
  for (const [gameId, byWindow] of repull) {
    for (const [key, owed] of byWindow) {
      const [startMs, endMs] = key.split("/").map(Number) as [number, number];
      const window = { startMs, endMs };
      try {
        const asked = await link.requestPull(db, { gameId, window, via: "webhook" });
        const nowMs = await databaseNowMs(db);
        for (const { id, instantMs } of owed) {
          const event = of(id);
          event.repulls.push({ ...windowToQuery(window), pullId: asked.pullId });
          event.due ||= !pullServesChange(asked, window, instantMs, nowMs);
        }
      } catch (error) {
        for (const { id } of owed) of(id).due = true;
        log.warn("webhook re-pull not queued", { game: gameId, events: owed.length, error });
      }
    }
  }
  // Events that asked for the same pulls with the same outcome are recorded in one statement.
  const groups = new Map<string, { ids: string[]; repulls: Repull[]; due: boolean }>();
  for (const [id, event] of byEvent) {
    const key = JSON.stringify([event.repulls, event.due]);
    const group = groups.get(key) ?? { ids: [], repulls: event.repulls, due: event.due };
    group.ids.push(id);
    groups.set(key, group);
  }
  for (const group of groups.values()) await recordRepullsForEvents(db, group.ids, group.repulls, group.due);
}

/** Drains pending events until none is left (or `maxMs` has passed: `more` then says another drain should follow). */
export async function drainWebhookEvents(
  db: Db,
  options: { chunkSize?: number; maxMs?: number; link?: SnapshotLink } = {},
): Promise<DrainResult> {
  const startedAt = Date.now();
  const link = options.link ?? snapshotLink;
  const failedIds: string[] = [];
  const result: DrainResult = { processed: 0, unprocessable: 0, failed: 0, chunks: 0, more: false };
  for (;;) {
    if (Date.now() - startedAt > (options.maxMs ?? DRAIN_MAX_MS)) {
      result.more = true;
      return result;
    }
    let chunk: Chunk;
    try {
      chunk = await drainChunk(db, options.chunkSize ?? DRAIN_CHUNK, failedIds);
    } catch (error) {
      log.warn("webhook chunk failed; its events are processed one by one", { error });
      const one = await processOneByOne(db, options.chunkSize ?? DRAIN_CHUNK, failedIds, link);
      result.processed += one.processed;
      result.failed += one.failed;
      result.chunks += 1;
      if (one.processed + one.failed === 0) return result;
      continue;
    }
    if (chunk === null) return result;
    result.chunks += 1;
    for (const c of chunk.completions) {
      if (c.status === "processed") result.processed += 1;
      else result.unprocessable += 1;
    }
    await queueRepulls(db, link, chunk.repull);
  }
}

/** After a chunk failed: the same events, each in its own transaction; those that fail are left for a later try. */
async function processOneByOne(
  db: Db,
  chunkSize: number,
  failedIds: string[],
  link: SnapshotLink,
): Promise<{ processed: number; failed: number }> {
  const ids = await db
    .transaction()
    .execute(async (trx) =>
      (await claimPendingWebhookEvents(trx, { limit: chunkSize, excludeIds: failedIds })).map((r) => r.id),
    );
  let processed = 0;
  let failed = 0;
  for (const id of ids) {
    try {
      // Held by another run past the wait ("busy"): left to it, or to the sweep, and not claimed again by this drain.
      if ((await processWebhookEventOnce(db, id, link)) === "busy") failedIds.push(id);
      else processed += 1;
    } catch {
      failedIds.push(id);
      failed += 1;
    }
  }
  return { processed, failed };
}
