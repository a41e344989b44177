import { z } from "zod";
import type { ActingAs } from "@/core/actor";
import type { Db } from "@/db";
import { findSnapshotGame } from "@/db/queries/payout-lookup";
import { getSnapshot } from "@/db/queries/snapshots";
import { readEmailRuns } from "@/db/queries/statement-deliveries";
import type { Role } from "@/lib/auth/roles";
import { emailSchema } from "@/lib/auth/users";
import { isAppError } from "@/lib/errors";
import {
  approvePayoutBatch,
  approveStatements,
  type BulkResult,
  holdStatements,
  preparePayoutBatch,
} from "@/lib/payouts/batches";
import { refuseApprovalUnderTwoPersonRule } from "@/lib/payouts/batch-approval";
import { approvedWithOpenFlags } from "@/lib/payouts/batch-flag-reads";
import { overrideFlag } from "@/lib/payouts/flag-override";
import { listOpenBatchFlags } from "@/lib/payouts/open-flags";
import { skippedInWords } from "@/lib/payouts/bulk-words";
import {
  batchIdSchema,
  batchRevisionSchema,
  flagCauseSchema,
  flagKindSchema,
  reasonSchema,
  overrideReasonSchema,
  playerIdSchema,
  snapshotIdSchema,
} from "@/lib/payouts/schemas";
import { getPayoutBatch, listPayoutStatements } from "@/lib/payouts/statements";
import { formatInstant } from "@/lib/time";
import { countOf } from "@/lib/format";
import { financeActor } from "../actor";
import { CliError, CliResult, type CommandSpec } from "../cli";
import { gameOfBatch } from "../lookup";
import { type Command, withDb } from "../with-db";

/**
 * The payout workflow of lib/payouts on the command line. Each change is the domain's own, made as the user named by
 * --actor (finance or admin, as on the pages) through "cli"; the domain writes the audit lines and applies the
 * two-person rule.
 */

const ACTOR_OPTION = {
  type: "string",
  description: "Email of the finance or admin user who acts (and gives their password)",
} as const;
const BATCH_OPTION = { type: "string", description: "The payout batch id" } as const;

async function actingAs(db: Db, email: string): Promise<ActingAs & { role: Role }> {
  const user = await financeActor(db, email, "changes payouts");
  return { actor: { id: user.id, email: user.email }, via: "cli", role: user.role };
}

/** The domain's refusals (two-person rule, open flags, wrong state) are one line for the person at the terminal. */
async function domain<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error)) throw new CliError(error.message);
    throw error;
  }
}

/** Skipped statements named on stderr, each with why; the rest counted. */
const SKIPPED_NAMED = 20;

function logBulk(command: string, verb: string, result: BulkResult): void {
  const skipped = result.skipped.length > 0 ? `, skipped ${result.skipped.length}` : "";
  process.stderr.write(`payouts ${command}: ${verb} ${countOf(result.changed, "statement")}${skipped}\n`);
  // Names come from the service: a control character (a line break, a terminal escape) is not written as such.
  for (const s of result.skipped.slice(0, SKIPPED_NAMED))
    process.stderr.write(`  ${skippedInWords(s).replace(/\p{Cc}/gu, "\uFFFD")}\n`);
  if (result.skipped.length > SKIPPED_NAMED)
    process.stderr.write(`  and ${countOf(result.skipped.length - SKIPPED_NAMED, "more statement")}\n`);
}

/** A command whose work runs against the database; its flags are the output of the spec's schema. */
function payoutCommand<S extends z.ZodType>(
  spec: CommandSpec<S>,
  work: (db: Db, flags: z.output<S>) => Promise<unknown>,
): Command {
  return { spec, run: (flags: z.output<S>) => withDb((db) => work(db, flags)) };
}

const prepareSchema = z.object({ snapshot: snapshotIdSchema, actor: emailSchema });
const batchSchema = z.object({ batch: batchIdSchema });
const overrideSchema = z.object({
  batch: batchIdSchema,
  flag: flagKindSchema,
  recipient: playerIdSchema.optional(),
  cause: flagCauseSchema,
  reason: overrideReasonSchema,
  actor: emailSchema,
});
const approveSchema = z
  .object({
    batch: batchIdSchema,
    revision: batchRevisionSchema,
    actor: emailSchema,
    unflagged: z.boolean().default(false),
    "hold-flagged": reasonSchema.optional(),
  })
  // Leave the flagged statements as drafts, or hold them: one or the other.
  .refine((flags) => !(flags.unflagged && flags["hold-flagged"] !== undefined), {
    path: ["hold-flagged"],
    message: "cannot be given with --unflagged (one or the other)",
  });

const prepare = payoutCommand(
  {
    usage: "npm run desk -- payouts prepare --snapshot ID --actor EMAIL",
    description:
      "Prepares the payout batch of a snapshot's window from that snapshot version: one draft statement per " +
      "recipient. Refused while another live batch covers the window.",
    options: { snapshot: { type: "string", description: "The snapshot id to pay from" }, actor: ACTOR_OPTION },
    schema: prepareSchema,
  },
  async (db, flags) => {
    const gameId = await findSnapshotGame(db, flags.snapshot);
    const snapshot = gameId ? await getSnapshot(db, { gameId, snapshotId: flags.snapshot }) : null;
    if (!gameId || !snapshot) throw new CliError(`--snapshot: no published snapshot ${flags.snapshot}`);
    const as = await actingAs(db, flags.actor);
    const result = await domain(() =>
      preparePayoutBatch(db, { gameId, window: snapshot.window, snapshotId: snapshot.id }, as),
    );
    return {
      ...result,
      gameId,
      window: { start: formatInstant(snapshot.window.startMs), end: formatInstant(snapshot.window.endMs) },
    };
  },
);

const flags = payoutCommand(
  {
    usage: "npm run desk -- payouts flags --batch ID",
    description:
      "Lists the open flags of a payout batch, evaluated now: kind, recipient (null for the whole window), " +
      "cause (what an override covers), detail and label; in a draft batch, also those raised on approved " +
      "statements since their approval; in an approved or paid batch, those keeping a statement still to be paid " +
      "out of a payment file.",
    options: { batch: BATCH_OPTION },
    schema: batchSchema,
  },
  async (db, input) => {
    const gameId = await gameOfBatch(db, input.batch);
    const open = await domain(() => listOpenBatchFlags(db, { gameId, batchId: input.batch }));
    return { batchId: input.batch, flags: open };
  },
);

const override = payoutCommand(
  {
    usage:
      "npm run desk -- payouts override --batch ID --flag KIND [--recipient PLAYER_ID] --cause CAUSE --reason TEXT " +
      "--actor EMAIL",
    description:
      "Overrides one open flag of a batch with a written reason (kept with the flag's cause; a new cause blocks " +
      "again). A window flag takes no --recipient; a recipient's flag needs one. --cause names the instance " +
      "checked, as payouts flags lists it: a cause that changed since (details changed again) is refused.",
    options: {
      batch: BATCH_OPTION,
      flag: { type: "string", description: "The flag kind, as payouts flags lists it" },
      recipient: { type: "string", description: "The recipient's player id (recipient flags only)" },
      cause: { type: "string", description: "The instance of the flag checked, as payouts flags lists its cause" },
      reason: { type: "string", description: "Why the flag does not stop the payment (at least 10 characters)" },
      actor: ACTOR_OPTION,
    },
    schema: overrideSchema,
  },
  async (db, input) => {
    const gameId = await gameOfBatch(db, input.batch);
    const as = await actingAs(db, input.actor);
    const recipientPlayerId = input.recipient ?? null;
    const params = { gameId, batchId: input.batch, flag: input.flag, recipientPlayerId, reason: input.reason };
    try {
      await domain(() => overrideFlag(db, { ...params, cause: input.cause }, as));
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      const hint = await overrideHint(db, { ...params, cause: input.cause }).catch(() => "");
      throw hint ? new CliError(`${error.message} ${hint}`, error.exitCode) : error;
    }
    return {
      batchId: input.batch,
      overridden: { flag: input.flag, recipientPlayerId, cause: input.cause },
      reason: input.reason,
    };
  },
);

/**
 * What an override the domain refused got wrong, when the open flags tell (the domain's words take the cause for one
 * read off a page, where here it was typed): the recipient left out of a recipient's flag, or another cause than the
 * one open now. Empty when they do not tell.
 */
async function overrideHint(
  db: Db,
  params: { gameId: string; batchId: string; recipientPlayerId: number | null; flag: string; cause: string },
): Promise<string> {
  const { flag, recipientPlayerId: recipient, cause } = params;
  const open = await listOpenBatchFlags(db, { gameId: params.gameId, batchId: params.batchId });
  const same = open.filter((f) => f.flag === flag);
  const listAgain = `list the open flags with payouts flags --batch ${params.batchId}`;
  if (recipient === null && same.length > 0 && same.every((f) => f.recipientPlayerId !== null))
    return `Name its recipient with --recipient (${listAgain}).`;
  const mine = same.find((f) => f.recipientPlayerId === recipient);
  const whose = recipient === null ? "" : ` of recipient ${recipient}`;
  if (mine && mine.cause !== cause)
    return `The open ${flag} flag${whose} has another cause than --cause (${listAgain}).`;
  return "";
}

/**
 * Approves the draft statements, holds the flagged ones when asked, then approves the batch. Without --unflagged
 * every draft statement is to be approved, so a flagged one neither overridden nor held refuses the command before
 * anything changes; with it the flagged ones stay in draft and the batch waits for them.
 */
async function approveAll(db: Db, input: z.output<typeof approveSchema>) {
  const gameId = await gameOfBatch(db, input.batch);
  const target = { gameId, batchId: input.batch };
  const batch = await getPayoutBatch(db, target);
  if (!batch) throw new CliError(`--batch: no payout batch ${input.batch}`);
  // What is approved is what the person looked at (payouts show): a batch changed since is refused before anything
  // changes, and each step below goes on only from the revision the step before it left.
  if (batch.revision !== input.revision)
    throw new CliError(
      `--revision: the batch changed since revision ${input.revision} (it is at ${batch.revision}): ` +
        "look at it again (payouts show, payouts flags); nothing was changed",
    );
  // The batch and its revision checked first: a mistyped one costs no password.
  const as = await actingAs(db, input.actor);
  // The person who may not approve the batch is refused, and audited, before any statement changes.
  await domain(() => refuseApprovalUnderTwoPersonRule(db, target, as));
  const open = await domain(() => listOpenBatchFlags(db, target));
  const statementsNow = await listPayoutStatements(db, target);
  const drafts = statementsNow.filter((s) => s.state === "draft");
  // A flag on the whole window blocks every statement and the batch: holding cannot clear it, so nothing changes.
  const windowFlags = open.filter((f) => f.recipientPlayerId === null);
  if (windowFlags.length > 0)
    throw new CliError(
      `a flag on this window blocks the approval (${windowFlags.map((f) => f.label).join(", ")}): ` +
        "override it (payouts flags, payouts override) or take a new snapshot; nothing was changed",
    );
  const flaggedRecipients = new Set(open.map((f) => f.recipientPlayerId));
  const flagged = drafts.filter((s) => flaggedRecipients.has(s.recipientPlayerId)).length;
  if (!input.unflagged && !input["hold-flagged"] && flagged > 0) {
    throw new CliError(
      `${countOf(flagged, "draft statement")} ${flagged === 1 ? "has" : "have"} open flags: list them (payouts ` +
        "flags) and override them (payouts override), or pass --hold-flagged REASON or --unflagged; nothing was " +
        "changed",
    );
  }
  // An approved statement with a flag raised since (a chargeback, changed details) refuses the batch's approval:
  // said before anything changes, or held with the flagged drafts.
  const flaggedSince = new Set(await approvedWithOpenFlags(db, { ...target, snapshotId: batch.snapshotId }));
  if (!input.unflagged && !input["hold-flagged"] && flaggedSince.size > 0) {
    const named = [...flaggedSince].slice(0, 3).join(", ") + (flaggedSince.size > 3 ? " …" : "");
    const one = flaggedSince.size === 1;
    throw new CliError(
      `${countOf(flaggedSince.size, "approved statement")} ${one ? "has" : "have"} an open flag raised since ` +
        `${one ? "its" : "their"} approval (recipient ${named}): list them (payouts flags) and override them ` +
        "(payouts override), or pass --hold-flagged REASON; nothing was changed",
    );
  }
  // When the batch would be approved, whoever entered first details of a recipient it would pay (no payment gone to
  // them yet) is refused too, before anything changes: the drafts approved, the flagged ones held.
  const hold = Boolean(input["hold-flagged"]);
  if (hold || (flagged === 0 && flaggedSince.size === 0)) {
    const pays = (s: (typeof statementsNow)[number]) => {
      if (s.state === "draft") return !flaggedRecipients.has(s.recipientPlayerId);
      return s.state === "approved" && !(hold && flaggedSince.has(s.recipientPlayerId));
    };
    const paying = statementsNow.filter(pays).map((s) => s.recipientPlayerId);
    await domain(() => refuseApprovalUnderTwoPersonRule(db, target, as, paying));
  }
  const approved = await domain(() =>
    approveStatements(db, { ...target, all: "draft_unflagged", drawnAtRevision: input.revision }, as),
  );
  logBulk("approve", "approved", approved);
  let held: BulkResult = { changed: 0, skipped: [], revision: approved.revision };
  const holdReason = input["hold-flagged"];
  const toHold = [
    ...approved.skipped.filter((s) => s.flagged).map((s) => s.id),
    ...statementsNow.filter((s) => s.state === "approved" && flaggedSince.has(s.recipientPlayerId)).map((s) => s.id),
  ];
  if (holdReason && toHold.length > 0) {
    held = await domain(() =>
      holdStatements(db, { ...target, ids: toHold, reason: holdReason, drawnAtRevision: approved.revision }, as),
    );
    logBulk("approve", "held", held);
  }
  const notHeld = new Set(held.skipped.map((s) => s.id));
  const heldIds = new Set(holdReason ? toHold.filter((id) => !notHeld.has(id)) : []);
  const statements = {
    approved: approved.changed,
    held: held.changed,
    // Drafts left as they were: neither approved nor held.
    skipped: approved.skipped.filter((s) => !heldIds.has(s.id)).length,
  };
  const after = await listPayoutStatements(db, target);
  const stillDraft = after.filter((s) => s.state === "draft").length;
  // Approved with a flag raised since and not held (one owing a balance cannot be): approving the batch is refused.
  const stillFlagged = after.filter((s) => s.state === "approved" && flaggedSince.has(s.recipientPlayerId)).length;
  // Every statement held (each flagged, and held by --hold-flagged): the holds stand, and the batch's approval would
  // be refused as approving nothing, so the summary says what was done.
  const allHeld = after.length > 0 && after.every((s) => s.state === "held");
  if (stillDraft > 0 || stillFlagged > 0 || allHeld) {
    const why = [
      stillDraft > 0 ? `${countOf(stillDraft, "statement")} still in draft` : "",
      stillFlagged > 0 ? `${countOf(stillFlagged, "approved statement")} with a flag raised since (override them)` : "",
      allHeld ? "every statement is held, so approving the batch would approve nothing" : "",
    ].filter(Boolean);
    process.stderr.write(`payouts approve: ${why.join("; ")}; the batch stays a draft\n`);
    const result = { batchId: input.batch, batchApproved: false, statements, stillDraft, stillFlagged };
    // Only --unflagged means to leave some as they are; otherwise every statement was to be settled.
    return input.unflagged ? result : new CliResult(result, 1);
  }
  const approval = await domain(() => approvePayoutBatch(db, { ...target, drawnAtRevision: held.revision }, as));
  return { batchId: input.batch, batchApproved: true, statements, batch: approval };
}

const approve = payoutCommand(
  {
    usage:
      "npm run desk -- payouts approve --batch ID --revision N --actor EMAIL [--unflagged | --hold-flagged REASON]",
    description:
      "Approves a draft batch's statements (all of them, or only the unflagged with --unflagged), holds the " +
      "flagged ones with --hold-flagged, then approves the batch when nothing blocks it. --revision is the " +
      "batch's revision payouts show gave: a batch changed since is refused. Under the two-person rule the batch " +
      "is approved by someone other than its preparer.",
    options: {
      batch: BATCH_OPTION,
      revision: { type: "string", description: "The batch's revision as payouts show gave it (what was looked at)" },
      actor: ACTOR_OPTION,
      unflagged: { type: "boolean", description: "Approve only statements without open flags; leave the rest" },
      "hold-flagged": {
        type: "string",
        description: "Hold statements with open flags, with this reason (the recipients read it on their statements)",
      },
    },
    schema: approveSchema,
  },
  approveAll,
);

const show = payoutCommand(
  {
    usage: "npm run desk -- payouts show --batch ID",
    description: "Shows a payout batch and every statement with its state (money as decimal strings, USD).",
    options: { batch: BATCH_OPTION },
    schema: batchSchema,
  },
  async (db, input) => {
    const gameId = await gameOfBatch(db, input.batch);
    const batch = await getPayoutBatch(db, { gameId, batchId: input.batch });
    if (!batch) throw new CliError(`--batch: no payout batch ${input.batch}`);
    const statements = (await listPayoutStatements(db, { gameId, batchId: input.batch })).map((s) => ({
      id: s.id,
      recipientPlayerId: s.recipientPlayerId,
      state: s.state,
      holdReason: s.holdReason,
      netAttributedUsd: s.netAttributedUsd,
      carriedInUsd: s.carriedInUsd,
      availableUsd: s.availableUsd,
      payableUsd: s.payableUsd,
      carryOutUsd: s.carryOutUsd,
      paidAmountUsd: s.paidAmountUsd,
      recipientFlags: s.recipientFlags,
    }));
    // How many times the batch's statement emails were queued: what `statements send --again --runs-seen` is given.
    return { batch, emailRuns: await readEmailRuns(db, input.batch), statements };
  },
);

export const payoutCommands: Record<string, Command> = {
  "payouts prepare": prepare,
  "payouts flags": flags,
  "payouts override": override,
  "payouts approve": approve,
  "payouts show": show,
};
