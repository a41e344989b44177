import "server-only";
import { characterCount } from "@/core/characters";
import type { ActingAs } from "@/core/actor";
import type { Db, DbOrTrx, Trx } from "@/db";
import { getStatementRecipientFlags, insertFlagOverride } from "@/db/queries/flags";
import { getChangeEnteredBy } from "@/db/queries/profile-changes";
import { detailsChangeOf } from "@/lib/profiles/flags";
import type { LockedBatch } from "@/db/queries/payout-batches";
import { AppError, TwoPersonRefusal } from "@/lib/errors";
import { formatInstant } from "@/lib/time";
import { isPaymentBar } from "@/lib/payments/items";
import { isPayoutFlag, isWindowFlag } from "./flag-info";
import { type ActiveFlag, flagsOfStatement, overrideOf, readBatchFlags } from "./flags";
import { twoPersonRuleBinds } from "./offered-actions";
import { readPayoutSettings } from "./settings";
import { transition } from "./transition";

type OverrideParams = {
  gameId: string;
  batchId: string;
  flag: string;
  recipientPlayerId: number | null;
  reason: string;
  cause?: string;
};

/**
 * Overrides one flag instance (of the window, or of one recipient) with a written reason, which is kept with the
 * instance's cause and the time that cause was raised: a later cause (a new stale mark, a newer snapshot version, a
 * dispute lost) is a new flag that blocks again. `cause` names the instance the person read; a flag whose cause has
 * changed since is refused. Without it, the one open instance of that flag is taken.
 */
export async function overrideFlag(db: Db, params: OverrideParams, as: ActingAs): Promise<void> {
  const reason = params.reason.trim();
  const characters = characterCount(reason);
  if (characters < 10)
    throw new AppError("INVALID_INPUT", "Write why this flag does not stop the payment (at least 10 characters).", {
      field: "reason",
    });
  if (characters > 1000)
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
  let target: ActiveFlag | undefined;
  await transition(
    db,
    "override_flag",
    {
      gameId: params.gameId,
      batchId: params.batchId,
      apply: async ({ trx, batch }) => {
        target = await overrideOn(trx, batch, params, reason, as);
      },
      audit: () => ({
        detail: {
          flag: params.flag,
          recipientPlayerId: params.recipientPlayerId,
          cause: target?.cause,
          raisedAt: target?.raisedAt ? formatInstant(target.raisedAt.getTime()) : null,
          detail: target?.detail,
          reason,
        },
      }),
    },
    as,
  );
}

async function overrideOn(
  trx: Trx,
  batch: LockedBatch,
  params: OverrideParams,
  reason: string,
  as: ActingAs,
): Promise<ActiveFlag> {
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
    const recipientFlags = await getStatementRecipientFlags(trx, {
      batchId: batch.id,
      recipientPlayerId: params.recipientPlayerId,
    });
    if (recipientFlags === null) throw new AppError("NOT_FOUND", "This recipient has no statement in the batch.");
    instances = flagsOfStatement(flags, params.recipientPlayerId, recipientFlags).filter(
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
  // Bound to the person, not the batch: the rule in force now (a team that has grown is bound by it at once).
  if ((await readPayoutSettings(trx)).twoPersonRule) await refuseOwnDetails(trx, params.gameId, target, as);
  // As a hold's release: under the rule the batch was approved with.
  const batchFacts = { status: batch.status, preparedById: batch.prepared_by_id };
  if (preparerMayNotOverride(batchFacts, target.flag, as.actor?.id, batch.two_person_rule))
    throw new TwoPersonRefusal(PREPARER_OVERRIDES_AFTER_APPROVAL);
  await insertFlagOverride(trx, {
    batchId: batch.id,
    gameId: params.gameId,
    recipientPlayerId: params.recipientPlayerId,
    flag: params.flag,
    cause: target.cause,
    raisedAt: target.raisedAt,
    reason,
    actor: as.actor,
  });
  return target;
}

/**
 * Whether `actorId` entered the payout details a `payout_details_changed` flag asks to confirm. Details no payment has
 * gone to yet are confirmed with the recipient by someone else: otherwise one finance user could type their own
 * account as a recipient's first details after approval, clear the flag and pay it.
 */
export async function enteredTheDetails(
  db: DbOrTrx,
  gameId: string,
  flag: Pick<ActiveFlag, "flag" | "cause">,
  actorId: string,
): Promise<boolean> {
  const changeId = flag.flag === "payout_details_changed" ? detailsChangeOf(flag.cause) : null;
  return changeId !== null && (await getChangeEnteredBy(db, { gameId, changeId })) === actorId;
}

async function refuseOwnDetails(trx: Trx, gameId: string, flag: ActiveFlag, as: ActingAs): Promise<void> {
  if (as.actor && (await enteredTheDetails(trx, gameId, flag, as.actor.id))) throw new TwoPersonRefusal(OWN_DETAILS);
}

export const PREPARER_OVERRIDES_AFTER_APPROVAL =
  "Two-person rule: you prepared this batch, so once it is approved someone else overrides a flag that stops a " +
  "payment (as someone else releases a hold).";

/**
 * Whether the two-person rule (the one the batch was approved with, as for releasing a hold) keeps this person from
 * overriding `flag`: once a batch is approved, a flag raised since that stops the money (a chargeback, a return, a tax
 * form) is overridden by someone other than the person who prepared it, as a hold is released: otherwise one person
 * could clear it and make the payment file. New payout details have their own rule (whoever did not enter them
 * confirms them: enteredTheDetails), which the preparer may be the one to follow.
 */
export function preparerMayNotOverride(
  batch: { status: string; preparedById: string },
  flag: string,
  actorId: string | undefined,
  twoPersonRule: boolean,
): boolean {
  return (
    batch.status !== "draft" &&
    isPaymentBar(flag) &&
    flag !== "payout_details_changed" &&
    twoPersonRuleBinds(twoPersonRule, batch.preparedById, actorId)
  );
}

export const OWN_DETAILS =
  "Two-person rule: you entered these payout details, so another finance user confirms them with the recipient and " +
  "overrides this flag.";
