import "server-only";
import { randomUUID } from "node:crypto";
import { type Insertable, sql, type Transaction } from "kysely";
import type { Db } from "@/db";
import { getLatestSnapshot, getSnapshot } from "@/db/queries/snapshots";
import type { Database, PayoutStatementState } from "@/db/types";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { formatUsd, money, sumMoney } from "@/lib/money";
import { formatInstant, formatWindow, type TimeWindow } from "@/lib/time";
import { computeStatementFigures } from "./compute";
import { type ActiveFlag, type BatchFlags, openFlagsOf, readBatchFlags } from "./flags";
import { type BatchContext, statementVerdict, type StatementAction } from "./offered-actions";
import { readPayoutSettings } from "./settings";

/**
 * The payout workflow of one window:
 *
 *   prepare (finance) -> statements in draft -> approve / hold each (bulk) -> approve the batch (a second finance user
 *   when the two-person rule is on) -> mark paid (date, method, external reference).
 *
 * Statements' figures are computed once, at preparation, from one snapshot version; approving the batch freezes them
 * (a database trigger refuses any change of a figure afterwards). Every change is written with its event, under a
 * per-game transaction lock, and recorded in the audit log.
 */

export type Actor = { id: string; email: string };

const TX_LOCK = (gameId: string) => sql`select pg_advisory_xact_lock(hashtext(${`payouts|${gameId}`}))`;

export type Trx = Transaction<Database>;

export async function lockGame(trx: Trx, gameId: string): Promise<void> {
  await TX_LOCK(gameId).execute(trx);
}

export async function loadBatchForUpdate(trx: Trx, gameId: string, batchId: string) {
  const batch = await trx
    .selectFrom("payout_batch")
    .selectAll()
    .where("game_id", "=", gameId)
    .where("id", "=", batchId)
    .forUpdate()
    .executeTakeFirst();
  if (!batch) throw new AppError("NOT_FOUND", "No such payout batch for this game.");
  return batch;
}

async function insertEvents(
  trx: Trx,
  rows: {
    statementId: string;
    batchId: string;
    gameId: string;
    recipient: string;
    kind: string;
    stateAfter: PayoutStatementState;
    detail?: Record<string, unknown>;
  }[],
  actor: Actor | null,
): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    if (chunk.length === 0) continue;
    await trx
      .insertInto("payout_statement_event")
      .values(
        chunk.map((r) => ({
          statement_id: r.statementId,
          batch_id: r.batchId,
          game_id: r.gameId,
          recipient_player_id: r.recipient,
          kind: r.kind,
          state_after: r.stateAfter,
          actor_id: actor?.id ?? null,
          actor_email: actor?.email ?? null,
          detail: JSON.stringify(r.detail ?? {}),
        })),
      )
      .execute();
  }
}

// --- Prepare ---------------------------------------------------------------------------------------------------------

export type PrepareResult = {
  batchId: string;
  statements: number;
  payableUsd: string;
  carriedIn: number;
  snapshotVersion: number;
};

/**
 * Prepares the batch of a window from its latest snapshot version (or the one given). Refused while another live
 * batch covers any part of the window: an overlap would pay the same renewals twice.
 *
 * Each statement takes in every balance carried out of a closed statement of the same recipient that no other
 * statement has taken yet (a negative net, or a payable under the minimum). Recipients with no activity in the
 * window get a statement only when what they carry reaches the minimum payout.
 */
export async function preparePayoutBatch(
  db: Db,
  params: { gameId: string; window: TimeWindow; snapshotId?: string },
  actor: Actor,
): Promise<PrepareResult> {
  const snapshot = params.snapshotId
    ? await getSnapshot(db, { gameId: params.gameId, snapshotId: params.snapshotId })
    : await getLatestSnapshot(db, { gameId: params.gameId, window: params.window });
  if (!snapshot) throw new AppError("NOT_FOUND", `No snapshot of ${formatWindow(params.window)} yet: take one first.`);
  if (snapshot.window.startMs !== params.window.startMs || snapshot.window.endMs !== params.window.endMs) {
    throw new AppError("INVALID_INPUT", "That snapshot is of another window.", { field: "snapshotId" });
  }
  const settings = await readPayoutSettings(db);
  const batchId = randomUUID();

  const result = await db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    await (await import("@/lib/accounting/close")).assertWindowOpen(trx, params);
    const overlapping = await trx
      .selectFrom("payout_batch")
      .select(["id", "window_start", "window_end", "status"])
      .where("game_id", "=", params.gameId)
      .where("status", "<>", "discarded")
      .where("window_start", "<", new Date(params.window.endMs))
      .where("window_end", ">", new Date(params.window.startMs))
      .executeTakeFirst();
    if (overlapping) {
      const same =
        overlapping.window_start.getTime() === params.window.startMs &&
        overlapping.window_end.getTime() === params.window.endMs;
      throw new AppError(
        "CONFLICT",
        same
          ? `This window already has a ${overlapping.status} payout batch; discard the draft to prepare it again.`
          : `A ${overlapping.status} payout batch already covers part of this window (${formatWindow({ startMs: overlapping.window_start.getTime(), endMs: overlapping.window_end.getTime() })}); paying both would pay the same renewals twice.`,
      );
    }

    await trx
      .insertInto("payout_batch")
      .values({
        id: batchId,
        game_id: params.gameId,
        window_start: new Date(params.window.startMs),
        window_end: new Date(params.window.endMs),
        snapshot_id: snapshot.id,
        snapshot_version: snapshot.version,
        status: "draft",
        min_payout_usd: settings.minPayoutUsd,
        two_person_rule: settings.twoPersonRule,
        prepared_by_id: actor.id,
        prepared_by_email: actor.email,
      })
      .execute();

    // Balances carried out of closed statements and not yet taken by any statement (the primary key of payout_carry
    // makes a second taker fail).
    const carries = await trx
      .selectFrom("payout_statement as st")
      .innerJoin("payout_batch as b", "b.id", "st.batch_id")
      .select([
        "st.id",
        "st.recipient_player_id",
        "st.carry_out_usd",
        "st.player_email",
        "st.player_name",
        "st.resolved",
      ])
      .where("st.game_id", "=", params.gameId)
      .where("b.status", "<>", "discarded")
      .where("st.state", "in", ["paid", "carried"])
      .where("st.carry_out_usd", "<>", "0")
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("payout_carry as c").select("c.from_statement_id").whereRef("c.from_statement_id", "=", "st.id"),
          ),
        ),
      )
      .execute();
    const carriesByRecipient = new Map<string, typeof carries>();
    for (const c of carries)
      carriesByRecipient.set(c.recipient_player_id, [...(carriesByRecipient.get(c.recipient_player_id) ?? []), c]);

    const recipients = await trx
      .selectFrom("snapshot_recipient as r")
      .select([
        "r.recipient_player_id",
        "r.resolved",
        "r.player_email",
        "r.player_name",
        "r.renewal_count",
        "r.subscription_count",
        "r.reversal_count",
        "r.gross_attributed_usd",
        "r.reversed_attributed_usd",
        "r.net_attributed_usd",
      ])
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom("snapshot_line as l")
              .select("l.period_id")
              .whereRef("l.snapshot_id", "=", "r.snapshot_id")
              .whereRef("l.recipient_player_id", "=", "r.recipient_player_id")
              .where("l.attribution_unavailable_reason", "is not", null),
          )
          .as("has_unavailable"),
      )
      .where("r.snapshot_id", "=", snapshot.id)
      .orderBy("r.recipient_player_id")
      .execute();

    const statements: (Insertable<Database["payout_statement"]> & { id: string; recipient_player_id: string })[] = [];
    const links: { from_statement_id: string; to_statement_id: string; amount_usd: string }[] = [];
    let payable = money("0");
    const seen = new Set<string>();

    const addStatement = (input: {
      recipient: string;
      inSnapshot: boolean;
      resolved: boolean;
      email: string | null;
      name: string | null;
      renewals: number;
      subscriptions: number;
      reversals: number;
      gross: string;
      reversed: string;
      flags: string[];
    }) => {
      const from = carriesByRecipient.get(input.recipient) ?? [];
      const carriedIn = formatUsd(sumMoney(from.map((c) => c.carry_out_usd)));
      const figures = computeStatementFigures({
        grossAttributedUsd: input.gross,
        reversedAttributedUsd: input.reversed,
        carriedInUsd: carriedIn,
        minPayoutUsd: settings.minPayoutUsd,
      });
      const id = randomUUID();
      statements.push({
        id,
        batch_id: batchId,
        game_id: params.gameId,
        recipient_player_id: input.recipient,
        in_snapshot: input.inSnapshot,
        resolved: input.resolved,
        player_email: input.email,
        player_name: input.name,
        renewal_count: input.renewals,
        subscription_count: input.subscriptions,
        reversal_count: input.reversals,
        gross_attributed_usd: formatUsd(input.gross),
        reversed_attributed_usd: formatUsd(input.reversed),
        net_attributed_usd: figures.netAttributedUsd,
        carried_in_usd: figures.carriedInUsd,
        available_usd: figures.availableUsd,
        payable_usd: figures.payableUsd,
        carry_out_usd: figures.carryOutUsd,
        recipient_flags: JSON.stringify(input.flags),
        state: "draft",
        state_changed_by_email: actor.email,
      });
      for (const c of from) links.push({ from_statement_id: c.id, to_statement_id: id, amount_usd: c.carry_out_usd });
      payable = payable.plus(figures.payableUsd);
      seen.add(input.recipient);
    };

    for (const r of recipients) {
      const flags: string[] = [];
      if (!r.resolved) flags.push("unresolved_recipient");
      if (r.has_unavailable) flags.push("attribution_unavailable");
      addStatement({
        recipient: r.recipient_player_id,
        inSnapshot: true,
        resolved: r.resolved,
        email: r.player_email,
        name: r.player_name,
        renewals: r.renewal_count,
        subscriptions: r.subscription_count,
        reversals: r.reversal_count,
        gross: r.gross_attributed_usd,
        reversed: r.reversed_attributed_usd,
        flags,
      });
    }
    for (const [recipient, from] of carriesByRecipient) {
      if (seen.has(recipient)) continue;
      const carried = sumMoney(from.map((c) => c.carry_out_usd));
      if (!carried.gt(0) || carried.lt(money(settings.minPayoutUsd))) continue;
      const latest = from[from.length - 1];
      addStatement({
        recipient,
        inSnapshot: false,
        resolved: latest?.resolved ?? false,
        email: latest?.player_email ?? null,
        name: latest?.player_name ?? null,
        renewals: 0,
        subscriptions: 0,
        reversals: 0,
        gross: "0.00",
        reversed: "0.00",
        flags: latest?.resolved === false ? ["unresolved_recipient"] : [],
      });
    }

    for (let i = 0; i < statements.length; i += 1000) {
      await trx
        .insertInto("payout_statement")
        .values(statements.slice(i, i + 1000))
        .execute();
    }
    for (let i = 0; i < links.length; i += 1000) {
      await trx
        .insertInto("payout_carry")
        .values(links.slice(i, i + 1000))
        .execute();
    }
    await insertEvents(
      trx,
      statements.map((s) => ({
        statementId: s.id,
        batchId,
        gameId: params.gameId,
        recipient: s.recipient_player_id,
        kind: "prepared",
        stateAfter: "draft",
      })),
      actor,
    );
    await recordAudit(trx, {
      actor,
      action: "payouts.batch.prepare",
      gameId: params.gameId,
      target: batchId,
      outcome: "succeeded",
      detail: {
        window: { start: formatInstant(params.window.startMs), end: formatInstant(params.window.endMs) },
        snapshotId: snapshot.id,
        snapshotVersion: snapshot.version,
        statements: statements.length,
        payableUsd: formatUsd(payable),
        carriesTaken: links.length,
        minPayoutUsd: settings.minPayoutUsd,
        twoPersonRule: settings.twoPersonRule,
      },
    });
    return {
      batchId,
      statements: statements.length,
      payableUsd: formatUsd(payable),
      carriedIn: links.length,
      snapshotVersion: snapshot.version,
    };
  });
  return result;
}

// --- Statement state changes -------------------------------------------------------------------------------------------

type StatementSelection = { ids?: string[]; all?: "draft_unflagged" };

/** The statements given (by id, or every one in a state), locked for the change. */
async function selectStatements(trx: Trx, batchId: string, which: string[] | { state: PayoutStatementState }) {
  const query = trx
    .selectFrom("payout_statement")
    .select(["id", "recipient_player_id", "state", "recipient_flags", "payable_usd", "available_usd", "hold_reason"])
    .where("batch_id", "=", batchId);
  if (!Array.isArray(which))
    return query.where("state", "=", which.state).orderBy("recipient_player_id").forUpdate().execute();
  const out = [];
  // Chunks keep each statement under PostgreSQL's limit on bound parameters.
  for (let i = 0; i < which.length; i += 5000) {
    out.push(
      ...(await query
        .where("id", "in", which.slice(i, i + 5000))
        .orderBy("recipient_player_id")
        .forUpdate()
        .execute()),
    );
  }
  return out;
}

function describeFlags(flags: readonly ActiveFlag[]): string {
  return [...new Set(flags.map((f) => f.label))].join(", ");
}

export type BulkResult = { changed: number; skipped: { id: string; recipientPlayerId: number; reason: string }[] };

type BatchRow = Awaited<ReturnType<typeof loadBatchForUpdate>>;

/**
 * The context lib/payouts/offered-actions.ts decides from. Server actions and the CLI have checked the finance role
 * before calling in here.
 */
function verdictContext(batch: BatchRow, actor: Actor): BatchContext {
  return {
    role: "finance",
    actorId: actor.id,
    status: batch.status,
    twoPersonRule: batch.two_person_rule,
    preparedById: batch.prepared_by_id,
    approvedById: batch.approved_by_id,
  };
}

/**
 * The statements an action applies to and the others, skipped with the reason the pages show. A rule that binds the
 * person rather than the statement (the two-person rule) refuses the whole action.
 */
function splitByVerdict<R extends { id: string; recipient_player_id: string; state: PayoutStatementState }>(
  rows: R[],
  action: StatementAction,
  context: BatchContext,
  openFlags: (row: R) => ActiveFlag[] = () => [],
): { change: R[]; skipped: BulkResult["skipped"] } {
  const change: R[] = [];
  const skipped: BulkResult["skipped"] = [];
  for (const r of rows) {
    const open = r.state === "held" || r.state === "draft" ? openFlags(r) : [];
    const verdict = statementVerdict(action, context, { state: r.state, openFlags: open.length });
    if (verdict.kind === "allowed") change.push(r);
    else if (verdict.kind === "blocked" && verdict.code === "two_person_rule")
      throw new AppError("FORBIDDEN", verdict.reason);
    else if (verdict.kind === "blocked" && verdict.code === "open_flags")
      skipped.push({
        id: r.id,
        recipientPlayerId: Number(r.recipient_player_id),
        reason: `open flags: ${describeFlags(open)}`,
      });
    else skipped.push({ id: r.id, recipientPlayerId: Number(r.recipient_player_id), reason: verdict.reason });
  }
  return { change, skipped };
}

/**
 * Approves draft statements of a draft batch: the ones given, or every draft statement without an open flag.
 * A statement with an open flag is skipped with the reason (never approved quietly).
 */
export async function approveStatements(
  db: Db,
  params: { gameId: string; batchId: string } & StatementSelection,
  actor: Actor,
): Promise<BulkResult> {
  return db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    const batch = await loadBatchForUpdate(trx, params.gameId, params.batchId);
    if (batch.status !== "draft")
      throw new AppError(
        "CONFLICT",
        "Statements are approved while the batch is a draft; this batch is " + batch.status + ".",
      );
    const flags = await batchFlags(trx, params.gameId, batch);
    const rows = await selectStatements(
      trx,
      batch.id,
      params.all === "draft_unflagged" ? { state: "draft" } : (params.ids ?? []),
    );
    const skipped: BulkResult["skipped"] = [];
    const approve: typeof rows = [];
    for (const row of rows) {
      const recipient = Number(row.recipient_player_id);
      if (row.state !== "draft") {
        if (params.all === undefined)
          skipped.push({ id: row.id, recipientPlayerId: recipient, reason: `is ${row.state}` });
        continue;
      }
      const open = openFlagsOf(flags, recipient, row.recipient_flags);
      if (open.length > 0) {
        skipped.push({ id: row.id, recipientPlayerId: recipient, reason: `open flags: ${describeFlags(open)}` });
        continue;
      }
      approve.push(row);
    }
    await setState(
      trx,
      approve.map((r) => r.id),
      "approved",
      actor,
    );
    await insertEvents(
      trx,
      approve.map((r) => ({
        statementId: r.id,
        batchId: batch.id,
        gameId: params.gameId,
        recipient: r.recipient_player_id,
        kind: "approved",
        stateAfter: "approved",
      })),
      actor,
    );
    await recordAudit(trx, {
      actor,
      action: "payouts.statement.approve",
      gameId: params.gameId,
      target: batch.id,
      outcome: approve.length > 0 ? "succeeded" : "nothing_changed",
      detail: {
        approved: approve.length,
        recipients: approve.slice(0, 200).map((r) => Number(r.recipient_player_id)),
        skipped: skipped.slice(0, 200),
      },
    });
    return { changed: approve.length, skipped };
  });
}

async function setState(
  trx: Trx,
  ids: string[],
  state: PayoutStatementState,
  actor: Actor,
  extra: Record<string, unknown> = {},
): Promise<void> {
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000);
    if (chunk.length === 0) continue;
    await trx
      .updateTable("payout_statement")
      .set({ state, state_changed_at: new Date(), state_changed_by_email: actor.email, ...extra })
      .where("id", "in", chunk)
      .execute();
  }
}

/** Puts approved statements of a draft batch back to draft. */
export async function unapproveStatements(
  db: Db,
  params: { gameId: string; batchId: string; ids: string[] },
  actor: Actor,
): Promise<BulkResult> {
  return db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    const batch = await loadBatchForUpdate(trx, params.gameId, params.batchId);
    if (batch.status !== "draft")
      throw new AppError("CONFLICT", `The batch is ${batch.status}; its statements can no longer go back to draft.`);
    const rows = await selectStatements(trx, batch.id, params.ids);
    const { change, skipped } = splitByVerdict(rows, "unapprove", verdictContext(batch, actor));
    await setState(
      trx,
      change.map((r) => r.id),
      "draft",
      actor,
    );
    await insertEvents(
      trx,
      change.map((r) => ({
        statementId: r.id,
        batchId: batch.id,
        gameId: params.gameId,
        recipient: r.recipient_player_id,
        kind: "unapproved",
        stateAfter: "draft",
      })),
      actor,
    );
    await recordAudit(trx, {
      actor,
      action: "payouts.statement.unapprove",
      gameId: params.gameId,
      target: batch.id,
      outcome: change.length > 0 ? "succeeded" : "nothing_changed",
      detail: { changed: change.length, recipients: change.slice(0, 200).map((r) => Number(r.recipient_player_id)) },
    });
    return { changed: change.length, skipped };
  });
}

/**
 * Holds statements with a reason: in a draft batch (draft or approved ones), or in an approved batch (approved ones,
 * to stop a payment before it is made). Held statements are not paid and stay owed.
 */
export async function holdStatements(
  db: Db,
  params: { gameId: string; batchId: string; ids: string[]; reason: string },
  actor: Actor,
): Promise<BulkResult> {
  const reason = params.reason.trim();
  if (reason.length < 5)
    throw new AppError("INVALID_INPUT", "Say why the payout is held (at least 5 characters).", { field: "reason" });
  return db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    const batch = await loadBatchForUpdate(trx, params.gameId, params.batchId);
    if (batch.status === "discarded") throw new AppError("CONFLICT", "This batch was discarded.");
    const rows = await selectStatements(trx, batch.id, params.ids);
    const { change, skipped } = splitByVerdict(rows, "hold", verdictContext(batch, actor));
    await setState(
      trx,
      change.map((r) => r.id),
      "held",
      actor,
      { hold_reason: reason },
    );
    await insertEvents(
      trx,
      change.map((r) => ({
        statementId: r.id,
        batchId: batch.id,
        gameId: params.gameId,
        recipient: r.recipient_player_id,
        kind: "held",
        stateAfter: "held",
        detail: { reason },
      })),
      actor,
    );
    if (batch.status !== "draft") await settleBatchStatus(trx, batch.id);
    await recordAudit(trx, {
      actor,
      action: "payouts.statement.hold",
      gameId: params.gameId,
      target: batch.id,
      outcome: change.length > 0 ? "succeeded" : "nothing_changed",
      detail: {
        held: change.length,
        reason,
        recipients: change.slice(0, 200).map((r) => Number(r.recipient_player_id)),
        skipped: skipped.slice(0, 200),
      },
    });
    return { changed: change.length, skipped };
  });
}

/**
 * Releases held statements: back to draft in a draft batch; in an approved or paid batch back to approved (to be
 * paid; a paid batch is open again until it is), or straight to carried when there is nothing to pay. A hold with
 * open flags stays held (carry it forward instead); under the two-person rule the preparer cannot release a hold
 * once the batch is approved. The reason is kept.
 */
export async function releaseStatements(
  db: Db,
  params: { gameId: string; batchId: string; ids: string[]; reason: string },
  actor: Actor,
): Promise<BulkResult> {
  const reason = params.reason.trim();
  if (reason.length < 5)
    throw new AppError("INVALID_INPUT", "Say why the hold is released (at least 5 characters).", { field: "reason" });
  return db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    const batch = await loadBatchForUpdate(trx, params.gameId, params.batchId);
    if (batch.status === "discarded") throw new AppError("CONFLICT", "This batch was discarded.");
    const flags = await batchFlags(trx, params.gameId, batch);
    const rows = await selectStatements(trx, batch.id, params.ids);
    const { change: release, skipped } = splitByVerdict(rows, "release", verdictContext(batch, actor), (r) =>
      openFlagsOf(flags, Number(r.recipient_player_id), r.recipient_flags),
    );
    const events: Parameters<typeof insertEvents>[1] = [];
    const now = new Date();
    if (batch.status === "draft") {
      await setState(
        trx,
        release.map((r) => r.id),
        "draft",
        actor,
        { hold_reason: null },
      );
      for (const r of release)
        events.push({
          statementId: r.id,
          batchId: batch.id,
          gameId: params.gameId,
          recipient: r.recipient_player_id,
          kind: "released",
          stateAfter: "draft",
          detail: { reason },
        });
    } else {
      const toCarry = release.filter((r) => money(r.payable_usd).isZero());
      const toApprove = release.filter((r) => !money(r.payable_usd).isZero());
      await setState(
        trx,
        toApprove.map((r) => r.id),
        "approved",
        actor,
        { hold_reason: null },
      );
      await setState(
        trx,
        toCarry.map((r) => r.id),
        "carried",
        actor,
        { hold_reason: null, closed_at: now },
      );
      for (const r of toApprove)
        events.push({
          statementId: r.id,
          batchId: batch.id,
          gameId: params.gameId,
          recipient: r.recipient_player_id,
          kind: "released",
          stateAfter: "approved",
          detail: { reason },
        });
      for (const r of toCarry)
        events.push({
          statementId: r.id,
          batchId: batch.id,
          gameId: params.gameId,
          recipient: r.recipient_player_id,
          kind: "released",
          stateAfter: "carried",
          detail: { reason },
        });
      if (toApprove.length > 0 && batch.status === "paid") {
        // Something is owed again: the batch is approved-unpaid until it is paid (settleBatchStatus).
        await trx
          .updateTable("payout_batch")
          .set({ status: "approved", paid_at: null, updated_at: now })
          .where("id", "=", batch.id)
          .execute();
      }
      await settleBatchStatus(trx, batch.id);
    }
    await insertEvents(trx, events, actor);
    await recordAudit(trx, {
      actor,
      action: "payouts.statement.release",
      gameId: params.gameId,
      target: batch.id,
      outcome: events.length > 0 ? "succeeded" : "nothing_changed",
      detail: {
        released: events.length,
        reason,
        recipients: events.slice(0, 200).map((e) => Number(e.recipient)),
        skipped: skipped.slice(0, 200),
      },
    });
    return { changed: events.length, skipped };
  });
}

/**
 * Carries held statements of an approved or paid batch forward whole: each closes with nothing paid and its whole
 * available balance carried out, which the recipient's next prepared statement takes in (and pays, once its own
 * flags are cleared). The way out of a hold that can no longer be released, e.g. a paid batch whose flags cannot be
 * overridden any more. The ledger shows a rollover of the balance, so the carry-forward invariant holds.
 */
export async function carryStatementsForward(
  db: Db,
  params: { gameId: string; batchId: string; ids: string[]; reason: string },
  actor: Actor,
): Promise<BulkResult> {
  const reason = params.reason.trim();
  if (reason.length < 5)
    throw new AppError("INVALID_INPUT", "Say why the balance is carried forward (at least 5 characters).", {
      field: "reason",
    });
  return db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    const batch = await loadBatchForUpdate(trx, params.gameId, params.batchId);
    if (batch.status === "discarded") throw new AppError("CONFLICT", "This batch was discarded.");
    const rows = await selectStatements(trx, batch.id, params.ids);
    const { change, skipped } = splitByVerdict(rows, "carry_forward", verdictContext(batch, actor));
    const now = new Date();
    for (let i = 0; i < change.length; i += 1000) {
      const chunk = change.slice(i, i + 1000).map((r) => r.id);
      await trx
        .updateTable("payout_statement")
        .set({
          state: "carried",
          payable_usd: "0",
          carry_out_usd: sql<string>`available_usd`,
          hold_reason: null,
          closed_at: now,
          state_changed_at: now,
          state_changed_by_email: actor.email,
        })
        .where("id", "in", chunk)
        .where("state", "=", "held")
        .execute();
    }
    await insertEvents(
      trx,
      change.map((r) => ({
        statementId: r.id,
        batchId: batch.id,
        gameId: params.gameId,
        recipient: r.recipient_player_id,
        kind: "carried_forward",
        stateAfter: "carried" as const,
        detail: {
          reason,
          holdReason: r.hold_reason,
          payableBeforeUsd: formatUsd(r.payable_usd),
          carriedUsd: formatUsd(r.available_usd),
        },
      })),
      actor,
    );
    await settleBatchStatus(trx, batch.id);
    const amount = formatUsd(sumMoney(change.map((r) => r.available_usd)));
    await recordAudit(trx, {
      actor,
      action: "payouts.statement.carry_forward",
      gameId: params.gameId,
      target: batch.id,
      outcome: change.length > 0 ? "succeeded" : "nothing_changed",
      detail: {
        carried: change.length,
        amountUsd: amount,
        reason,
        recipients: change.slice(0, 200).map((r) => Number(r.recipient_player_id)),
        skipped: skipped.slice(0, 200),
      },
    });
    return { changed: change.length, skipped };
  });
}

// --- Flags ---------------------------------------------------------------------------------------------------------------

/** The flags of a batch, read on its transaction after the batch lock. */
async function batchFlags(trx: Trx, gameId: string, batch: { id: string; snapshot_id: string }): Promise<BatchFlags> {
  return readBatchFlags(trx, { gameId, batchId: batch.id, snapshotId: batch.snapshot_id });
}

// --- Batch approval and payment -------------------------------------------------------------------------------------------

/** A batch with nothing left approved-unpaid is paid (held statements stay owed and are shown as such). */
async function settleBatchStatus(trx: Trx, batchId: string): Promise<void> {
  const open = await trx
    .selectFrom("payout_statement")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("batch_id", "=", batchId)
    .where("state", "=", "approved")
    .executeTakeFirstOrThrow();
  if (Number(open.n) === 0) {
    await trx
      .updateTable("payout_batch")
      .set({ status: "paid", paid_at: new Date(), updated_at: new Date() })
      .where("id", "=", batchId)
      .where("status", "=", "approved")
      .execute();
  }
}

/**
 * Approves a draft batch: every statement approved or held, no approved statement with an open flag, and (two-person
 * rule) the approver is not the preparer. The figures are frozen to the snapshot version the batch was built on;
 * approved statements with nothing to pay are closed as carried at once.
 */
export async function approvePayoutBatch(
  db: Db,
  params: { gameId: string; batchId: string },
  actor: Actor,
): Promise<{ approved: number; carried: number; held: number; payableUsd: string }> {
  return db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    const batch = await loadBatchForUpdate(trx, params.gameId, params.batchId);
    if (batch.status !== "draft") throw new AppError("CONFLICT", `This batch is already ${batch.status}.`);
    const settings = await readPayoutSettings(trx);
    // The rule in force at approval time applies (an admin may have switched it since the batch was prepared).
    if (settings.twoPersonRule && batch.prepared_by_id === actor.id) {
      throw new AppError(
        "FORBIDDEN",
        "Two-person rule: you prepared this batch, so another finance user must approve it.",
      );
    }
    const rows = await trx
      .selectFrom("payout_statement")
      .select(["id", "recipient_player_id", "state", "recipient_flags", "payable_usd"])
      .where("batch_id", "=", batch.id)
      .forUpdate()
      .execute();
    const drafts = rows.filter((r) => r.state === "draft");
    if (drafts.length > 0)
      throw new AppError(
        "CONFLICT",
        `${drafts.length} statement${drafts.length === 1 ? " is" : "s are"} still in draft: approve or hold every statement first.`,
      );
    // Read under the batch lock, on this transaction: a flag raised while approval waited for the lock counts.
    const flags = await batchFlags(trx, params.gameId, batch);
    const approved = rows.filter((r) => r.state === "approved");
    for (const r of approved) {
      const open = openFlagsOf(flags, Number(r.recipient_player_id), r.recipient_flags);
      if (open.length > 0) {
        throw new AppError(
          "CONFLICT",
          `Recipient ${r.recipient_player_id} has open flags (${describeFlags(open)}): override them with a reason or hold the payout.`,
        );
      }
    }
    if (approved.length === 0 && rows.length > 0 && rows.every((r) => r.state === "held")) {
      throw new AppError("CONFLICT", "Every statement is held: nothing would be approved.");
    }
    const now = new Date();
    await trx
      .updateTable("payout_batch")
      .set({
        status: "approved",
        approved_by_id: actor.id,
        approved_by_email: actor.email,
        approved_at: now,
        two_person_rule: settings.twoPersonRule,
        updated_at: now,
      })
      .where("id", "=", batch.id)
      .execute();
    const carried = approved.filter((r) => money(r.payable_usd).isZero());
    await setState(
      trx,
      carried.map((r) => r.id),
      "carried",
      actor,
      { closed_at: now },
    );
    await insertEvents(
      trx,
      [
        ...approved.map((r) => ({
          statementId: r.id,
          batchId: batch.id,
          gameId: params.gameId,
          recipient: r.recipient_player_id,
          kind: "batch_approved",
          stateAfter: "approved" as const,
        })),
        ...carried.map((r) => ({
          statementId: r.id,
          batchId: batch.id,
          gameId: params.gameId,
          recipient: r.recipient_player_id,
          kind: "carried",
          stateAfter: "carried" as const,
        })),
      ],
      actor,
    );
    await settleBatchStatus(trx, batch.id);
    const payable = formatUsd(sumMoney(approved.map((r) => r.payable_usd)));
    await recordAudit(trx, {
      actor,
      action: "payouts.batch.approve",
      gameId: params.gameId,
      target: batch.id,
      outcome: "succeeded",
      detail: {
        preparedBy: batch.prepared_by_email,
        snapshotId: batch.snapshot_id,
        snapshotVersion: batch.snapshot_version,
        approved: approved.length - carried.length,
        carried: carried.length,
        held: rows.filter((r) => r.state === "held").length,
        payableUsd: payable,
        twoPersonRule: settings.twoPersonRule,
      },
    });
    return {
      approved: approved.length - carried.length,
      carried: carried.length,
      held: rows.filter((r) => r.state === "held").length,
      payableUsd: payable,
    };
  });
}

export const PAYMENT_METHODS = ["bank_transfer", "paypal", "wise", "payoneer", "check", "other"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const PAYMENT_METHOD_LABELS: Record<PaymentMethod, string> = {
  bank_transfer: "Bank transfer",
  paypal: "PayPal",
  wise: "Wise",
  payoneer: "Payoneer",
  check: "Check",
  other: "Other",
};

/**
 * Records payment of approved statements of an approved batch (the ones given, or all of them): the date paid, the
 * method and the external reference. The amount paid is the statement's payable, never typed.
 */
export async function markStatementsPaid(
  db: Db,
  params: { gameId: string; batchId: string; ids?: string[]; paidOn: string; method: PaymentMethod; reference: string },
  actor: Actor,
): Promise<{ paid: number; amountUsd: string }> {
  const reference = params.reference.trim();
  if (reference.length === 0)
    throw new AppError("INVALID_INPUT", "Give the external reference of the payment.", { field: "reference" });
  return db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    const batch = await loadBatchForUpdate(trx, params.gameId, params.batchId);
    if (batch.status !== "approved" && batch.status !== "paid") {
      throw new AppError(
        "CONFLICT",
        batch.status === "draft" ? "The batch must be approved before it is paid." : `The batch is ${batch.status}.`,
      );
    }
    let query = trx
      .selectFrom("payout_statement")
      .select(["id", "recipient_player_id", "payable_usd"])
      .where("batch_id", "=", batch.id)
      .where("state", "=", "approved");
    if (params.ids)
      query = query.where("id", "in", params.ids.length > 0 ? params.ids : ["00000000-0000-0000-0000-000000000000"]);
    const rows = await query.forUpdate().execute();
    if (rows.length === 0) throw new AppError("CONFLICT", "No approved statement left to mark paid.");
    const now = new Date();
    for (let i = 0; i < rows.length; i += 1000) {
      const chunk = rows.slice(i, i + 1000);
      await trx
        .updateTable("payout_statement")
        .set({
          state: "paid",
          paid_amount_usd: sql<string>`payable_usd`,
          paid_on: params.paidOn,
          payment_method: params.method,
          payment_reference: reference,
          closed_at: now,
          state_changed_at: now,
          state_changed_by_email: actor.email,
        })
        .where(
          "id",
          "in",
          chunk.map((r) => r.id),
        )
        .execute();
    }
    await insertEvents(
      trx,
      rows.map((r) => ({
        statementId: r.id,
        batchId: batch.id,
        gameId: params.gameId,
        recipient: r.recipient_player_id,
        kind: "paid",
        stateAfter: "paid" as const,
        detail: { paidOn: params.paidOn, method: params.method, reference, amountUsd: formatUsd(r.payable_usd) },
      })),
      actor,
    );
    await settleBatchStatus(trx, batch.id);
    const amount = formatUsd(sumMoney(rows.map((r) => r.payable_usd)));
    await recordAudit(trx, {
      actor,
      action: "payouts.statement.paid",
      gameId: params.gameId,
      target: batch.id,
      idempotencyKey: reference,
      outcome: "succeeded",
      detail: { paid: rows.length, amountUsd: amount, paidOn: params.paidOn, method: params.method, reference },
    });
    return { paid: rows.length, amountUsd: amount };
  });
}

/** Discards a draft batch (to prepare it again, e.g. from a newer snapshot): the balances it took are freed. */
export async function discardPayoutBatch(
  db: Db,
  params: { gameId: string; batchId: string; reason: string },
  actor: Actor,
): Promise<void> {
  const reason = params.reason.trim();
  if (reason.length < 5)
    throw new AppError("INVALID_INPUT", "Say why the draft is discarded (at least 5 characters).", { field: "reason" });
  await db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    const batch = await loadBatchForUpdate(trx, params.gameId, params.batchId);
    if (batch.status !== "draft")
      throw new AppError("CONFLICT", `Only a draft batch can be discarded; this one is ${batch.status}.`);
    const freed = await trx
      .deleteFrom("payout_carry")
      .where("to_statement_id", "in", (eb) =>
        eb.selectFrom("payout_statement").select("id").where("batch_id", "=", batch.id),
      )
      .executeTakeFirst();
    const now = new Date();
    await trx
      .updateTable("payout_batch")
      .set({
        status: "discarded",
        discarded_at: now,
        discarded_by_email: actor.email,
        discard_reason: reason,
        updated_at: now,
      })
      .where("id", "=", batch.id)
      .execute();
    await recordAudit(trx, {
      actor,
      action: "payouts.batch.discard",
      gameId: params.gameId,
      target: batch.id,
      outcome: "succeeded",
      detail: { reason, carriesFreed: Number(freed.numDeletedRows) },
    });
  });
}
