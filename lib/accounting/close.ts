import "server-only";
import type { Db, DbOrTrx } from "@/db";
import {
  findClosedWindowOverlapping,
  getWindowBatchForUpdate,
  getWindowClosing,
  saveWindowClosing,
  type WindowClosingRow,
} from "@/db/queries/accounting";
import type { ActingAs } from "@/core/actor";
import { recordAudit } from "@/lib/audit";
import { AppError } from "@/lib/errors";
import { countOf } from "@/lib/format";
import { countTallied } from "@/db/queries/batch-tally";
import { formatInstant, formatWindow, type TimeWindow } from "@/lib/time";

/**
 * Closing a window: once its batch is paid and nothing of it is held, finance closes it so that no new batch is
 * prepared for any part of it.
 * Refunds that arrive later keep arriving as reversals in later windows ("reversals belong to the window of the
 * refund"), so closing changes nothing that was posted. Closing and reopening each need a written reason, kept with
 * the window and in the audit log.
 */

export type WindowClosingState = {
  closed: boolean;
  /** The latest close or reopen, when there was one. */
  last: WindowClosingRow | null;
  /** Null when the window can be closed now; else why not. */
  closeBlockedBy: string | null;
};

function bounds(window: TimeWindow) {
  return { windowStart: new Date(window.startMs), windowEnd: new Date(window.endMs) };
}

/** Why a paid batch's window cannot be closed yet: held statements are still owed, so its books are not final. */
function heldRefusal(label: string, held: number): string {
  return (
    `The window ${label} cannot be closed: ${countOf(held, "statement")} of its batch ${held === 1 ? "is" : "are"} ` +
    "held, still owed. Release and pay, or carry forward, each held statement first."
  );
}

export async function readWindowClosing(
  db: DbOrTrx,
  params: { gameId: string; window: TimeWindow; batchStatus: string | null; held: number },
): Promise<WindowClosingState> {
  const last = await getWindowClosing(db, { gameId: params.gameId, ...bounds(params.window) });
  const closed = last?.closed ?? false;
  const closeBlockedBy = closed
    ? "The window is closed."
    : params.batchStatus !== "paid"
      ? "A window can be closed once its payout batch is paid."
      : params.held > 0
        ? heldRefusal(formatWindow(params.window), params.held)
        : null;
  return { closed, last, closeBlockedBy };
}

/** Why no new payout batch may be made for the window (a closed window overlaps it), or null. */
export async function closedWindowRefusal(
  db: DbOrTrx,
  params: { gameId: string; window: TimeWindow },
): Promise<string | null> {
  const closed = await findClosedWindowOverlapping(db, { gameId: params.gameId, ...bounds(params.window) });
  if (!closed) return null;
  return (
    `The window ${formatWindow({ startMs: closed.windowStart.getTime(), endMs: closed.windowEnd.getTime() })} ` +
    "is closed, its books final: no new payout batch covers any part of it."
  );
}

async function changeClosing(
  db: Db,
  params: { gameId: string; window: TimeWindow; reason: string; close: boolean },
  acting: ActingAs,
): Promise<{ closed: boolean; batchId: string }> {
  return db.transaction().execute(async (trx) => {
    const where = { gameId: params.gameId, ...bounds(params.window) };
    const batch = await getWindowBatchForUpdate(trx, where);
    const current = await getWindowClosing(trx, where);
    const label = formatWindow(params.window);
    if (params.close) {
      if (current?.closed) throw new AppError("CONFLICT", `The window ${label} is already closed.`);
      if (batch?.status !== "paid")
        throw new AppError(
          "CONFLICT",
          `The window ${label} cannot be closed: its payout batch is ${batch ? batch.status : "not prepared"}; ` +
            "close it once the batch is paid.",
        );
      const held = await countTallied(trx, { gameId: params.gameId, batchId: batch.id }, "held");
      if (held > 0) throw new AppError("CONFLICT", heldRefusal(label, held));
    } else if (!current?.closed) {
      throw new AppError("CONFLICT", `The window ${label} is not closed.`);
    }
    const batchId = batch?.id ?? (current?.batchId as string);
    await saveWindowClosing(trx, {
      ...where,
      batchId,
      closed: params.close,
      reason: params.reason,
      byEmail: acting.actor?.email ?? null,
    });
    await recordAudit(trx, {
      actor: acting.actor,
      via: acting.via,
      action: params.close ? "payouts.window_close" : "payouts.window_reopen",
      gameId: params.gameId,
      target: `${formatInstant(params.window.startMs)}/${formatInstant(params.window.endMs)}`,
      outcome: "succeeded",
      detail: { batch_id: batchId, reason: params.reason },
    });
    return { closed: params.close, batchId };
  });
}

export function closeWindow(
  db: Db,
  params: { gameId: string; window: TimeWindow; reason: string },
  acting: ActingAs,
): Promise<{ closed: boolean; batchId: string }> {
  return changeClosing(db, { ...params, close: true }, acting);
}

export function reopenWindow(
  db: Db,
  params: { gameId: string; window: TimeWindow; reason: string },
  acting: ActingAs,
): Promise<{ closed: boolean; batchId: string }> {
  return changeClosing(db, { ...params, close: false }, acting);
}
