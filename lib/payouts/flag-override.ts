import "server-only";
import type { Db } from "@/db";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { formatInstant } from "@/lib/time";
import { type Actor, loadBatchForUpdate, lockGame } from "./batches";
import { isPayoutFlag, isWindowFlag } from "./flag-info";
import { type ActiveFlag, flagsOfStatement, overrideOf, readBatchFlags } from "./flags";

/**
 * Overrides one flag instance (of the window, or of one recipient) with a written reason, which is kept with the
 * instance's cause and the time that cause was raised: a later cause (a new stale mark, a newer snapshot version, a
 * dispute lost) is a new flag that blocks again. `cause` names the instance the person read; a flag whose cause has
 * changed since is refused. Without it, the one open instance of that flag is taken.
 */
export async function overrideFlag(
  db: Db,
  params: {
    gameId: string;
    batchId: string;
    flag: string;
    recipientPlayerId: number | null;
    reason: string;
    cause?: string;
  },
  actor: Actor,
): Promise<void> {
  const reason = params.reason.trim();
  if (reason.length < 10)
    throw new AppError("INVALID_INPUT", "Write why this flag does not stop the payment (at least 10 characters).", {
      field: "reason",
    });
  if (reason.length > 1000)
    throw new AppError("INVALID_INPUT", "Keep the reason under 1,000 characters.", { field: "reason" });
  if (!isPayoutFlag(params.flag)) throw new AppError("INVALID_INPUT", "Unknown flag.", { field: "flag" });
  const windowLevel = isWindowFlag(params.flag);
  if (windowLevel !== (params.recipientPlayerId === null)) {
    throw new AppError(
      "INVALID_INPUT",
      windowLevel ? "That flag belongs to the whole window." : "That flag belongs to one recipient.",
      { field: "flag" },
    );
  }
  await db.transaction().execute(async (trx) => {
    await lockGame(trx, params.gameId);
    const batch = await loadBatchForUpdate(trx, params.gameId, params.batchId);
    if (batch.status !== "draft" && batch.status !== "approved")
      throw new AppError("CONFLICT", `The batch is ${batch.status}.`);
    const flags = await readBatchFlags(trx, {
      gameId: params.gameId,
      batchId: batch.id,
      snapshotId: batch.snapshot_id,
      recipientPlayerId: params.recipientPlayerId ?? undefined,
    });
    let instances: ActiveFlag[];
    if (params.recipientPlayerId === null) {
      instances = flags.window;
    } else {
      const statement = await trx
        .selectFrom("payout_statement")
        .select("recipient_flags")
        .where("batch_id", "=", batch.id)
        .where("recipient_player_id", "=", String(params.recipientPlayerId))
        .executeTakeFirst();
      if (!statement) throw new AppError("NOT_FOUND", "This recipient has no statement in the batch.");
      instances = flagsOfStatement(flags, params.recipientPlayerId, statement.recipient_flags).filter(
        (f) => f.recipientPlayerId === params.recipientPlayerId,
      );
    }
    instances = instances.filter((f) => f.flag === params.flag);
    const open = instances.filter((f) => !overrideOf(f, flags.overrides));
    let target: ActiveFlag | undefined;
    if (params.cause !== undefined) {
      target = instances.find((f) => f.cause === params.cause);
      if (!target)
        throw new AppError(
          "CONFLICT",
          "This flag has changed since you read it (it has a new cause): review it again before overriding.",
        );
      if (overrideOf(target, flags.overrides))
        throw new AppError("CONFLICT", "This flag is already overridden; the first reason is kept.");
    } else {
      if (open.length === 0) {
        throw new AppError(
          "CONFLICT",
          instances.length > 0
            ? "This flag is already overridden; the first reason is kept."
            : "This flag is not raised on this batch.",
        );
      }
      if (open.length > 1)
        throw new AppError("INVALID_INPUT", "This flag is raised more than once: choose which one to override.", {
          field: "cause",
        });
      target = open[0];
    }
    if (!target) throw new AppError("CONFLICT", "This flag is not raised on this batch.");
    await trx
      .insertInto("payout_flag_override")
      .values({
        batch_id: batch.id,
        game_id: params.gameId,
        recipient_player_id: params.recipientPlayerId,
        flag: params.flag,
        cause: target.cause,
        raised_at: target.raisedAt,
        reason,
        actor_id: actor.id,
        actor_email: actor.email,
      })
      .execute();
    await recordAudit(trx, {
      actor,
      action: "payouts.flag.override",
      gameId: params.gameId,
      target: batch.id,
      outcome: "succeeded",
      detail: {
        flag: params.flag,
        recipientPlayerId: params.recipientPlayerId,
        cause: target.cause,
        raisedAt: target.raisedAt ? formatInstant(target.raisedAt.getTime()) : null,
        detail: target.detail,
        reason,
      },
    });
  });
}
