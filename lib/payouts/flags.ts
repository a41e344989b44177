import "server-only";
import type { DbOrTrx } from "@/db";
import type { SnapshotDisputeRow } from "@/db/queries/disputes";
import {
  findLatestChangeSince,
  getLatestStaleMark,
  listFlagOverrideRows,
  type FlagOverrideRow,
} from "@/db/queries/flags";
import { getSnapshot, listSnapshotVersions, type SnapshotHeader } from "@/db/queries/snapshots";
import { formatUsd } from "@/lib/money";
import { FLAG_INFO, type PayoutFlag } from "./flag-info";
import { countOf, formatUsdText } from "@/lib/format";
import { recipientFlagsNow } from "./balance-flags";
import type { ProfileRules } from "@/lib/profiles/flags";
import { listDisputesOfBatch } from "./snapshot-disputes";
import { windowLabel } from "./window-key";

/**
 * One raised flag: what it is, whom it concerns (null for the whole window) and its cause, the fact that raised it (a
 * stale mark, a snapshot version, a drift, a dispute in a given state), with when that fact was raised. An override
 * covers one instance, by its cause; a new cause is a new flag that blocks again.
 */
export type ActiveFlag = {
  flag: PayoutFlag;
  label: string;
  detail: string;
  recipientPlayerId: number | null;
  cause: string;
  raisedAt: Date | null;
  /** The dispute behind a `disputed_renewal` flag. */
  dispute?: SnapshotDisputeRow;
};

export type FlagOverride = FlagOverrideRow;

function windowFlag(flag: PayoutFlag, detail: string, cause: string, raisedAt: Date | null): ActiveFlag {
  return { flag, label: FLAG_INFO[flag].label, detail, recipientPlayerId: null, cause, raisedAt };
}

/**
 * The flags of a whole window for one snapshot version, evaluated now: staleness and newer versions appear after a
 * batch is prepared, so these are never stored. Pass a transaction to read them under its locks, and a header read
 * just before (getSnapshot): its staleness counts decide which causes are read.
 */
export async function windowFlagsOf(db: DbOrTrx, snapshot: SnapshotHeader): Promise<ActiveFlag[]> {
  const flags: ActiveFlag[] = [];
  const notFound = snapshot.totals.unattributedReasons.spend_order_not_found ?? 0;
  const snapshotCause = `snapshot:${snapshot.id}`;
  if (notFound > 0) {
    flags.push(
      windowFlag(
        "spend_order_not_found",
        `${countOf(notFound, "renewal")} with spend_order_not_found`,
        snapshotCause,
        snapshot.publishedAt,
      ),
    );
  }
  if (snapshot.drift.status === "drift") {
    flags.push(
      windowFlag(
        "snapshot_drift",
        `${countOf(snapshot.drift.count, "difference")} from the previous version`,
        `drift:${snapshot.id}`,
        snapshot.publishedAt,
      ),
    );
  }
  // A refund or renewal received since, not processed yet (a backlog, or failed), has no mark until it is: its change
  // is as real, and the flag says so until it is processed (then its mark, if any, stands) or overridden. The
  // snapshot's header counted both in one statement (SnapshotHeader.stale), so whichever side of a drain's commit (an
  // event's mark and its processed status together) it fell, it saw the change (how many wait, as counted there); the
  // causes are read only then, the marks also when only waiting events were counted (processed since).
  const stale = snapshot.stale;
  const bounds = {
    gameId: snapshot.gameId,
    windowStart: new Date(snapshot.window.startMs),
    windowEnd: new Date(snapshot.window.endMs),
    after: snapshot.fetchStartedAt,
  };
  const waiting = stale?.waiting ?? 0;
  const latestChange = waiting > 0 ? await findLatestChangeSince(db, bounds) : null;
  const mark = stale ? await getLatestStaleMark(db, bounds) : null;
  if (mark) {
    // The mark's reason says how many changes it stands for ("… and 249 more"): marks are written per burst, so
    // counting them would not count changes.
    flags.push(windowFlag("snapshot_stale", mark.reason, `stale_mark:${mark.id}`, mark.markedAt));
  }
  if (latestChange) {
    flags.push(
      windowFlag(
        "snapshot_stale",
        `${countOf(waiting, "refund or renewal event")} received since this version was read, not ` +
          "processed yet (see Webhooks)",
        `unprocessed_event:${latestChange.id}`,
        latestChange.receivedAt,
      ),
    );
  }
  if (!snapshot.windowClosed)
    flags.push(windowFlag("window_open", "read before the window's end", snapshotCause, snapshot.publishedAt));
  // Each version is compared with the one before it: a drift anywhere after this version means the figures may have
  // moved from the ones paid, even when the latest version reproduced the one before it. The versions are read only
  // when the header found a newer one.
  const versions = snapshot.latest
    ? []
    : await listSnapshotVersions(db, { gameId: snapshot.gameId, window: snapshot.window });
  const latest = versions[0];
  if (latest && latest.id !== snapshot.id && latest.version > snapshot.version) {
    const drifted = versions.filter((v) => v.version > snapshot.version && v.drift.status === "drift");
    const differences = drifted.reduce((sum, v) => sum + v.drift.count, 0);
    const drift =
      drifted.length === 0
        ? ""
        : drifted.length === 1 && drifted[0] === latest
          ? `, with ${countOf(differences, "difference")} from its previous version`
          : `; ${drifted.map((v) => `version ${v.version}`).join(", ")} drifted from the version before ` +
            `(${countOf(differences, "difference")}): the figures may differ from version ${snapshot.version}'s`;
    flags.push(
      windowFlag(
        "newer_snapshot",
        `version ${latest.version} is newer than version ${snapshot.version}${drift}`,
        `snapshot_version:${latest.version}`,
        latest.publishedAt,
      ),
    );
  }
  return flags;
}

/** `disputed_renewal` flags of one snapshot: a dispute still open, or closed lost; a dispute won raises nothing. */
export function disputeFlagsOf(disputes: readonly SnapshotDisputeRow[]): ActiveFlag[] {
  const flags: ActiveFlag[] = [];
  for (const d of disputes) {
    if (d.status === "won") continue;
    const amount = d.usdAmount === null ? "amount not reported yet" : `${formatUsdText(formatUsd(d.usdAmount))}`;
    const carried = d.carriedFrom ? `, its earnings carried in from ${windowLabel(d.carriedFrom)}` : "";
    const detail =
      d.status === "open"
        ? `dispute ${d.disputeId} open on period ${d.periodId} (${amount})${carried}`
        : `dispute ${d.disputeId} lost on period ${d.periodId}: ${amount} charged back${carried}`;
    flags.push({
      flag: "disputed_renewal",
      label: FLAG_INFO.disputed_renewal.label,
      detail,
      recipientPlayerId: d.recipientPlayerId,
      // Losing is a new fact: an override written while the dispute was open does not cover the loss.
      cause: `dispute:${d.disputeId}:${d.status}`,
      raisedAt: (d.status === "lost" ? d.closedAt : d.openedAt) ?? null,
      dispute: d,
    });
  }
  return flags;
}

/**
 * The recipients of a batch a flag stands on beyond those stored on their statements at preparation: raised by their
 * disputes (given), their payout profiles and their negative balances elsewhere now, over the whole batch (what
 * "Show: Flagged" lists).
 */
export async function recipientsFlaggedNow(
  db: DbOrTrx,
  params: { gameId: string; batchId: string; disputeFlags: readonly ActiveFlag[] },
): Promise<number[]> {
  const raised = await recipientFlagsNow(db, { gameId: params.gameId, batchId: params.batchId });
  return recipientsFlaggedBy(params.disputeFlags, raised);
}

/** The recipients named by these disputes' flags and these flags raised now (recipientsFlaggedNow, read already). */
export function recipientsFlaggedBy(
  disputeFlags: readonly ActiveFlag[],
  raised: readonly { recipientPlayerId: number }[],
): number[] {
  return [
    ...new Set([
      ...disputeFlags.flatMap((f) => (f.recipientPlayerId === null ? [] : [f.recipientPlayerId])),
      ...raised.map((f) => f.recipientPlayerId),
    ]),
  ];
}

/** The overrides kept with a batch, read on the connection given (a transaction's own, inside one). */
export async function listFlagOverrides(
  db: DbOrTrx,
  params: { gameId: string; batchId: string },
): Promise<FlagOverride[]> {
  return listFlagOverrideRows(db, params);
}

/** Every flag of a batch, read on the connection given (the approving transaction, after its lock). */
export type BatchFlags = {
  snapshotId: string;
  window: ActiveFlag[];
  disputes: ActiveFlag[];
  disputeRows: SnapshotDisputeRow[];
  overrides: FlagOverride[];
  /** Raised now rather than stored: by the payout profiles and by negative balances elsewhere (balance-flags.ts). */
  profiles?: ActiveFlag[];
  /** What the profile flags are evaluated under, when read already (lib/profiles/flags.ts readProfileRules). */
  rules?: ProfileRules;
};

type BatchFlagsParams = {
  gameId: string;
  batchId: string;
  snapshotId: string;
  recipientPlayerId?: number;
  /** Only these recipients' profile flags (the disputes are all read: a snapshot has few). */
  recipientPlayerIds?: readonly number[];
};

export async function readBatchFlags(db: DbOrTrx, params: BatchFlagsParams): Promise<BatchFlags> {
  const snapshot = await getSnapshot(db, { gameId: params.gameId, snapshotId: params.snapshotId });
  const window = snapshot ? await windowFlagsOf(db, snapshot) : [];
  return { ...(await readRecipientFlags(db, params)), window };
}

/**
 * The flags of a batch that stand on recipients (stored, disputes, profiles) with the overrides, without the window's:
 * enough for what only recipient flags decide (a payment bar is never a window flag).
 */
export async function readRecipientFlags(db: DbOrTrx, params: BatchFlagsParams): Promise<BatchFlags> {
  const disputeRows = await listDisputesOfBatch(db, {
    gameId: params.gameId,
    snapshotId: params.snapshotId,
    batchId: params.batchId,
    recipientPlayerId: params.recipientPlayerId,
  });
  const overrides = await listFlagOverrideRows(db, { gameId: params.gameId, batchId: params.batchId });
  const profiles = await recipientFlagsNow(db, params);
  return {
    snapshotId: params.snapshotId,
    window: [],
    disputes: disputeFlagsOf(disputeRows),
    disputeRows,
    overrides,
    profiles,
  };
}

/** Every flag instance of one statement: the window's, those stored on it at preparation, and its disputes. */
export function flagsOfStatement(
  flags: BatchFlags,
  recipientPlayerId: number,
  recipientFlags: readonly string[],
): ActiveFlag[] {
  const own: ActiveFlag[] = recipientFlags.flatMap((f) => {
    const flag = f as PayoutFlag;
    const info = FLAG_INFO[flag];
    if (!info) return [];
    // Stored at preparation from the batch's snapshot: that snapshot is their cause.
    return [
      {
        flag,
        label: info.label,
        detail: info.meaning,
        recipientPlayerId,
        cause: `snapshot:${flags.snapshotId}`,
        raisedAt: null,
      },
    ];
  });
  return [
    ...flags.window,
    ...own,
    ...flags.disputes.filter((d) => d.recipientPlayerId === recipientPlayerId),
    ...(flags.profiles ?? []).filter((f) => f.recipientPlayerId === recipientPlayerId),
  ];
}

/** The override covering this flag instance, if any: same flag, same recipient (or window), same cause. */
export function overrideOf(flag: ActiveFlag, overrides: readonly FlagOverride[]): FlagOverride | undefined {
  return overrides.find(
    (o) => o.flag === flag.flag && o.recipientPlayerId === flag.recipientPlayerId && o.cause === flag.cause,
  );
}

/** The flag instances still blocking one statement: all of them minus those overridden. */
export function openFlagsOf(
  flags: BatchFlags,
  recipientPlayerId: number,
  recipientFlags: readonly string[],
): ActiveFlag[] {
  return flagsOfStatement(flags, recipientPlayerId, recipientFlags).filter((f) => !overrideOf(f, flags.overrides));
}
