import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";
import { MAILBOX_PATTERN } from "@/core/mailbox";
import type { StatementDeliveryStatus } from "@/db/types";
import { camelRow } from "./camel-row";
import type { RowOf } from "./row-of";
import { anyOf } from "./chunks";

/** The delivery log of statement emails and the recipients whose delivery was finally refused. */

export type SendTarget = { statementId: string; recipientPlayerId: number; email: string | null };

/** The statements of a batch to email (one recipient, or all), by recipient id. */
export async function listSendTargets(
  db: DbOrTrx,
  params: {
    gameId: string;
    batchId: string;
    recipientPlayerId?: number;
    statementIds?: string[];
    /** Only paid statements not emailed since their latest payment (what recording a payment sends). */
    paidUnsent?: boolean;
    /** Only statements never emailed yet or whose email failed to send (what the batch's send offers first). */
    unemailed?: boolean;
    /** Only returned statements not emailed since their payment came back (what recording a return sends). */
    returnedUnsent?: boolean;
  },
): Promise<SendTarget[]> {
  let query = db
    .selectFrom("payout_statement")
    .select(["id", "recipient_player_id", "player_email"])
    .where("game_id", "=", params.gameId)
    .where("batch_id", "=", params.batchId);
  if (params.paidUnsent)
    query = query.where("state", "=", "paid").where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("statement_delivery as d")
            .select("d.id")
            .whereRef("d.statement_id", "=", "payout_statement.id")
            // A send queued since: one queued before whose outcome came after rendered the statement before it.
            .where("d.status", "=", "queued")
            .where(
              "d.at",
              ">=",
              sql<Date>`(select coalesce(max(e.at), '-infinity') from payout_statement_event e
                where e.statement_id = payout_statement.id and e.state_after = 'paid')`,
            ),
        ),
      ),
    );
  if (params.unemailed)
    query = query.where(({ or, not, exists, selectFrom }) =>
      or([
        not(
          exists(
            selectFrom("statement_delivery as d").select("d.id").whereRef("d.statement_id", "=", "payout_statement.id"),
          ),
        ),
        exists(
          sql`(select 1 from statement_send_failure f where f.statement_id = payout_statement.id and ${failedToSend})`,
        ),
        // Written by a release before statement_send_failure, while both run (a rolling release).
        exists(sql`(select 1 from statement_delivery_failure f
          where f.statement_id = payout_statement.id and not f.refused and ${failedToSend})`),
      ]),
    );
  if (params.returnedUnsent)
    query = query.where("state", "=", "returned").where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("statement_delivery as d")
            .select("d.id")
            .whereRef("d.statement_id", "=", "payout_statement.id")
            .where("d.status", "=", "queued")
            .where((eb) =>
              eb(
                "d.at",
                ">=",
                eb
                  .selectFrom("payment_return as r")
                  .select(({ fn }) => fn.max("r.at").as("at"))
                  .whereRef("r.statement_id", "=", "payout_statement.id"),
              ),
            ),
        ),
      ),
    );
  if (params.recipientPlayerId !== undefined)
    query = query.where("recipient_player_id", "=", String(params.recipientPlayerId));
  if (params.statementIds) {
    if (params.statementIds.length === 0) return [];
    query = query.where("id", "=", anyOf(params.statementIds, "uuid"));
  }
  const rows = await query.orderBy("recipient_player_id").execute();
  return rows.map((r) => ({
    statementId: r.id,
    recipientPlayerId: Number(r.recipient_player_id),
    email: r.player_email,
  }));
}

/**
 * Counts a run of a batch's statement emails, and those of its statements never emailed before into the batch's
 * emailed count: called, under the batch's send lock, just before their emails are queued (one row, one write).
 */
export async function countEmailRun(db: DbOrTrx, params: { batchId: string; statementIds: string[] }): Promise<void> {
  if (params.statementIds.length === 0) return;
  const row = await sql<{ n: string }>`select count(*) as n from unnest(${params.statementIds}::uuid[]) as u(id)
    where not exists (select 1 from statement_delivery d where d.statement_id = u.id)`
    .execute(db)
    .then((r) => r.rows[0]);
  const fresh = Number(row?.n ?? 0);
  await db
    .insertInto("payout_batch_emailed")
    .values({ batch_id: params.batchId, statements: fresh, runs: 1 })
    .onConflict((oc) =>
      oc.column("batch_id").doUpdateSet({
        statements: sql`payout_batch_emailed.statements + ${fresh}`,
        runs: sql`payout_batch_emailed.runs + 1`,
      }),
    )
    .execute();
}

/** How many times a batch's statement emails were queued. */
export async function readEmailRuns(db: DbOrTrx, batchId: string): Promise<number> {
  const row = await db
    .selectFrom("payout_batch_emailed")
    .select("runs")
    .where("batch_id", "=", batchId)
    .executeTakeFirst();
  return row?.runs ?? 0;
}

/**
 * The condition, on a failure `f` (its statement_id and failed_at, from statement_send_failure, or from the recipient's
 * statement_delivery_failure row an earlier release wrote), that no send of its statement was queued since: the
 * statement's last email failed for want of a mail server (every attempt failed, none refused the address for good),
 * and the batch's send offers it again, as if never emailed. Kept per statement, so a later statement of the same
 * recipient, sent or failed, does not hide it. A statement whose address was refused for good is not offered (its
 * address is the one the batch keeps; the recipient's page says what the server answered).
 */
const failedToSend = sql`not exists (select 1 from statement_delivery q
    where q.statement_id = f.statement_id and q.status = 'queued' and q.at > f.failed_at)`;

/**
 * A statement no email can be sent to (`payout_statement`): no address, or one that is not a single mailbox (the rule
 * `mailboxOf` applies). The partial index `payout_statement_unmailable_idx` has this predicate.
 */
export const UNMAILABLE = sql<boolean>`(player_email is null or player_email !~ ${sql.lit(MAILBOX_PATTERN.source)})`;

/**
 * How many of a batch's statements were ever emailed, how many have no email address to send to (none, or one that is
 * not a single mailbox: never emailed either), and how many of those emailed failed to send (`failedToSend`, offered
 * again): the rest were never sent one. Index lookups and the game's failed deliveries, whatever the batch's size.
 */
export async function countBatchEmails(
  db: DbOrTrx,
  batchId: string,
): Promise<{ emailed: number; noAddress: number; failed: number; runs: number }> {
  const row = await sql<{ emailed: string | null; runs: number | null; no_address: string; failed: string }>`select
      e.statements as emailed,
      e.runs as runs,
      (select count(*) from payout_statement where batch_id = ${batchId} and ${UNMAILABLE}) as no_address,
      (select count(distinct f.statement_id) from (
          select statement_id, failed_at from statement_send_failure where batch_id = ${batchId}
          union all
          select d.statement_id, d.failed_at from statement_delivery_failure d
            join payout_statement s on s.id = d.statement_id where s.batch_id = ${batchId} and not d.refused
        ) as f where ${failedToSend}) as failed
    from (select 1) as one left join payout_batch_emailed e on e.batch_id = ${batchId}`
    .execute(db)
    .then((r) => r.rows[0]);
  return {
    emailed: Number(row?.emailed ?? 0),
    noAddress: Number(row?.no_address ?? 0),
    failed: Number(row?.failed ?? 0),
    runs: Number(row?.runs ?? 0),
  };
}

export async function insertDeliveries(
  db: DbOrTrx,
  rows: {
    statementId: string;
    gameId: string;
    recipientPlayerId: number;
    sendId: string;
    status: StatementDeliveryStatus;
    toAddress: string | null;
    attempt?: number;
    final?: boolean;
    serverAnswer?: string | null;
  }[],
): Promise<void> {
  for (let from = 0; from < rows.length; from += 5_000) {
    await db
      .insertInto("statement_delivery")
      .values(
        rows.slice(from, from + 5_000).map((r) => ({
          statement_id: r.statementId,
          game_id: r.gameId,
          recipient_player_id: r.recipientPlayerId,
          send_id: r.sendId,
          status: r.status,
          to_address: r.toAddress,
          attempt: r.attempt ?? 0,
          final: r.final ?? false,
          server_answer: r.serverAnswer ?? null,
        })),
      )
      .execute();
  }
}

/** Whether a send already went out (a job that runs twice sends once). */
export async function wasSendDelivered(db: DbOrTrx, sendId: string): Promise<boolean> {
  const row = await db
    .selectFrom("statement_delivery")
    .select("id")
    .where("send_id", "=", sendId)
    .where("status", "=", "sent")
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a send has its outcome recorded: sent, or failed for good. */
export async function isSendSettled(db: DbOrTrx, sendId: string): Promise<boolean> {
  const row = await db
    .selectFrom("statement_delivery")
    .select("id")
    .where("send_id", "=", sendId)
    .where((eb) => eb.or([eb("status", "=", "sent"), eb.and([eb("status", "=", "failed"), eb("final", "=", true)])]))
    .executeTakeFirst();
  return row !== undefined;
}

/** The statement, game and recipient a send was queued for, if it was. */
export async function findQueuedSend(db: DbOrTrx, sendId: string) {
  const row = await db
    .selectFrom("statement_delivery")
    .select(["statement_id", "game_id", "recipient_player_id"])
    .where("send_id", "=", sendId)
    .where("status", "=", "queued")
    .executeTakeFirst();
  return row
    ? { statementId: row.statement_id, gameId: row.game_id, recipientPlayerId: Number(row.recipient_player_id) }
    : null;
}

export async function listStatementDeliveries(db: DbOrTrx, params: { gameId: string; statementId: string }) {
  const rows = await db
    .selectFrom("statement_delivery")
    .select(["id", "send_id", "status", "to_address", "attempt", "final", "server_answer", "at"])
    .where("game_id", "=", params.gameId)
    .where("statement_id", "=", params.statementId)
    .orderBy("at", "desc")
    .orderBy("id")
    .limit(200)
    .execute();
  return rows.map(camelRow);
}

export type DeliveryRow = RowOf<typeof listStatementDeliveries>;

/** How many emails of a statement were ever queued (each send, whatever became of it). */
export async function countStatementSends(db: DbOrTrx, statementId: string): Promise<number> {
  const row = await db
    .selectFrom("statement_delivery")
    .select((eb) => eb.fn.count<string>("send_id").distinct().as("n"))
    .where("statement_id", "=", statementId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function markDeliveryFailed(
  db: DbOrTrx,
  params: {
    gameId: string;
    recipientPlayerId: number;
    statementId: string;
    serverAnswer: string;
    toAddress: string;
    refused: boolean;
  },
): Promise<void> {
  const values = {
    game_id: params.gameId,
    recipient_player_id: params.recipientPlayerId,
    statement_id: params.statementId,
    server_answer: params.serverAnswer,
    // The database's clock when it is written, as the delivery log's: a send queued after it is newer (failedToSend).
    failed_at: sql<Date>`clock_timestamp()`,
    to_address: params.toAddress,
    refused: params.refused,
  };
  const written = await db
    .insertInto("statement_delivery_failure")
    .values(values)
    .onConflict((oc) =>
      oc
        .columns(["game_id", "recipient_player_id"])
        .doUpdateSet({
          statement_id: values.statement_id,
          server_answer: values.server_answer,
          failed_at: values.failed_at,
          to_address: values.to_address,
          refused: values.refused,
        })
        // A failure that says nothing of the address (the mail server unreachable, no result) leaves a refusal of the
        // same address standing: the address is still refused (`statement_undeliverable`) until it changes or a
        // later email is delivered.
        .where(
          sql<boolean>`not (statement_delivery_failure.refused and not excluded.refused
            and lower(statement_delivery_failure.to_address) = lower(excluded.to_address))`,
        ),
    )
    .returning("statement_id")
    .executeTakeFirst();
  // The statement itself: offered again by the batch's send unless its address was refused for good (now, or earlier
  // and still standing, when the row was left as it was and returned nothing: sent there again, it would be refused
  // again).
  if (params.refused || written === undefined) {
    await db.deleteFrom("statement_send_failure").where("statement_id", "=", params.statementId).execute();
    return;
  }
  await markSendsFailed(db, [params.statementId]);
}

/**
 * Marks statements as failed to send (statement_send_failure, stamped when written): the batch's send offers them
 * again until a send of each is queued. For a final delivery failure, and for emails that could not be queued at all.
 */
export async function markSendsFailed(db: DbOrTrx, statementIds: readonly string[]): Promise<void> {
  if (statementIds.length === 0) return;
  await sql`insert into statement_send_failure (statement_id, batch_id, failed_at)
      select id, batch_id, clock_timestamp() from payout_statement where id = ${anyOf(statementIds, "uuid")}
    on conflict (statement_id) do update set failed_at = excluded.failed_at`.execute(db);
}

/**
 * Marks the statements a payment or a return just changed, and that were emailed before, as owed their email: in the
 * change's own transaction, so that the send that follows it (a later transaction, whose queued lines supersede the
 * mark: `failedToSend`) leaves nothing behind, and a process that ends between the two leaves them offered by the
 * batch's send as failed to send, instead of counted as emailed with their recipient never told.
 */
export async function markChangeEmailsOwed(db: DbOrTrx, statementIds: readonly string[]): Promise<void> {
  if (statementIds.length === 0) return;
  await sql`insert into statement_send_failure (statement_id, batch_id, failed_at)
      select s.id, s.batch_id, clock_timestamp() from payout_statement s
      where s.id = ${anyOf(statementIds, "uuid")} and not ${UNMAILABLE}
        and exists (select 1 from statement_delivery d where d.statement_id = s.id)
    on conflict (statement_id) do update set failed_at = excluded.failed_at`.execute(db);
}

export async function clearDeliveryFailure(db: DbOrTrx, params: { gameId: string; recipientPlayerId: number }) {
  await db
    .deleteFrom("statement_delivery_failure")
    .where("game_id", "=", params.gameId)
    .where("recipient_player_id", "=", String(params.recipientPlayerId))
    .execute();
}

export async function getDeliveryFailure(db: DbOrTrx, params: { gameId: string; recipientPlayerId: number }) {
  const row = await db
    .selectFrom("statement_delivery_failure")
    .select(["statement_id as statementId", "server_answer as serverAnswer", "failed_at as failedAt", "refused"])
    .where("game_id", "=", params.gameId)
    .where("recipient_player_id", "=", String(params.recipientPlayerId))
    .executeTakeFirst();
  return row ?? null;
}
