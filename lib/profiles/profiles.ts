import "server-only";
import type { Db, Trx } from "@/db";
import { holdPayoutsOfGame } from "@/lib/payouts/game-lock";
import { databaseNowMs } from "@/db/queries/scalar";
import {
  closeProfileChange,
  getPendingChange,
  insertProfileChange,
  listProfileChanges,
  type ProfileChangeRow,
  setChangeSealed,
} from "@/db/queries/profile-changes";
import {
  getProfile,
  lockProfile,
  type ProfileRow,
  writeProfileDetails,
  writeProfileTaxForm,
} from "@/db/queries/profiles";
import type { Actor, Via } from "@/core/actor";
import type { Role } from "@/lib/auth/roles";
import { auditTwoPersonRefusals, recordAudit } from "@/lib/audit";
import { AppError, TwoPersonRefusal } from "@/lib/errors";
import { readPayoutSettings } from "@/lib/payouts/settings";
import { changedDetailFields } from "./details";
import { maskDetails } from "./mask";
import { canEditProfiles, reviewVerdict } from "./offered";
import { type PayoutDetailsInput, TAX_FORM_CHANGED_ELSEWHERE, type TaxFormInput } from "./schemas";
import { holdSealingKey, openDetails, sealDetails } from "./seal";

/** A person acting on profiles: who, with what role, and through what (web or cli). */
export type ProfileActing = { actor: Actor; role: Role; via: Via };

export type DetailsOutcome = {
  outcome: "applied" | "pending" | "unchanged";
  changeId: string | null;
  masked: string;
  /** A change that waited for review and is withdrawn (details in force entered again) or replaced by this one. */
  displaced: { masked: string | null; enteredByEmail: string | null } | null;
};

const recipientTarget = (playerId: number) => `player:${playerId}`;

function requireEditor(acting: ProfileActing): void {
  if (!canEditProfiles(acting.role)) throw new AppError("FORBIDDEN", "Only finance users change payout profiles.");
}

/**
 * Enters payout details (method, details, currency) for one recipient, inside the caller's transaction. The first
 * details apply at once; any later change waits as the recipient's one pending change (replacing one that waited)
 * for a second finance user's review. Repeating the details in force changes nothing (and withdraws a pending change).
 */
export async function changePayoutDetailsIn(
  trx: Trx,
  p: { gameId: string; playerId: number; input: PayoutDetailsInput },
  acting: ProfileActing,
): Promise<DetailsOutcome> {
  requireEditor(acting);
  const { currency, ...details } = p.input;
  await holdSealingKey(trx);
  // Details that apply now wait for a payment file being made, which read the flags from the details before them.
  await holdPayoutsOfGame(trx, p.gameId);
  const profile = await lockProfile(trx, p);
  const pending = await getPendingChange(trx, { ...p, lock: true });
  const masked = maskDetails(details);
  // On the database's clock, as batch approvals and payments are (lib/payouts/transition.ts): flags compare them.
  const now = new Date(await databaseNowMs(trx));
  const audit = (action: string, outcome: string, detail: Record<string, unknown>) =>
    recordAudit(trx, {
      actor: acting.actor,
      via: acting.via,
      action,
      gameId: p.gameId,
      target: recipientTarget(p.playerId),
      outcome,
      detail: { playerId: p.playerId, method: details.method, currency, masked, ...detail },
    });
  const displaced = pending ? { masked: pending.detailsMasked, enteredByEmail: pending.enteredByEmail } : null;
  const supersede = async () => {
    if (!pending) return;
    await closeProfileChange(trx, {
      changeId: pending.id,
      status: "superseded",
      reviewer: null,
      via: null,
      note: null,
      at: now,
    });
  };

  // The fields this changes, by name: told to the reviewer, since the masked form may read the same.
  const changedFields = profile.method === null ? null : await changedDetailFields(trx, { ...p, details });
  if (changedFields !== null && profile.currency !== currency) changedFields.push("currency");
  if (changedFields !== null && changedFields.length === 0) {
    await supersede();
    if (pending) await audit("profiles.details.withdraw", "succeeded", { withdrawnChangeId: pending.id });
    return { outcome: "unchanged", changeId: null, masked, displaced };
  }
  const first = profile.detailsVersion === 0;
  await supersede();
  const change = await insertProfileChange(trx, {
    ...p,
    kind: "details",
    status: first ? "applied" : "pending",
    method: details.method,
    currency,
    masked,
    previousMasked: profile.detailsMasked,
    changedFields: first ? null : changedFields,
    actor: acting.actor,
    via: acting.via,
    at: now,
  });
  if (first) {
    const sealed = await sealDetails(trx, details, profile.sealRef);
    await writeProfileDetails(trx, {
      ...p,
      method: details.method,
      currency,
      sealed,
      masked,
      changeId: change.id,
      at: now,
    });
    await audit("profiles.details.set", "applied", { changeId: change.id });
    return { outcome: "applied", changeId: change.id, masked, displaced };
  }
  await setChangeSealed(trx, { changeId: change.id, sealed: await sealDetails(trx, details, change.sealRef) });
  await audit("profiles.details.change", "pending", {
    changeId: change.id,
    previousMasked: profile.detailsMasked,
    supersededChangeId: pending?.id ?? null,
  });
  return { outcome: "pending", changeId: change.id, masked, displaced };
}

export async function changePayoutDetails(
  db: Db,
  p: { gameId: string; playerId: number; input: PayoutDetailsInput },
  acting: ProfileActing,
): Promise<DetailsOutcome> {
  return db.transaction().execute((trx) => changePayoutDetailsIn(trx, p, acting));
}

/** The tax form on file as a form draws it (`taxFormDrawn`): what a save from that form is checked against. */
export function taxFormDrawn(current: {
  taxForm: string | null;
  taxFormReceivedOn: string | null;
  taxFormExpiresOn: string | null;
}): string {
  return [current.taxForm ?? "", current.taxFormReceivedOn ?? "", current.taxFormExpiresOn ?? ""].join("|");
}

/**
 * Records the tax form on file; it applies at once (it says nothing about where money goes) and is audited. `drawn`
 * (taxFormDrawn of the form the person saw): a form changed by a colleague since is refused, not overwritten.
 */
export async function setTaxFormIn(
  trx: Trx,
  p: { gameId: string; playerId: number; input: TaxFormInput; drawn?: string },
  acting: ProfileActing,
): Promise<{ outcome: "applied" | "unchanged" }> {
  requireEditor(acting);
  await holdSealingKey(trx);
  // A tax form recorded now waits for a payment file being made, which read the flags from the form before it.
  await holdPayoutsOfGame(trx, p.gameId);
  const profile = await lockProfile(trx, p);
  if (p.drawn !== undefined && p.drawn !== taxFormDrawn(profile))
    throw new AppError("CONFLICT", TAX_FORM_CHANGED_ELSEWHERE);
  const next = {
    taxForm: p.input.taxForm,
    receivedOn: p.input.taxFormReceivedOn ?? null,
    expiresOn: p.input.taxFormExpiresOn ?? null,
  };
  if (
    profile.taxForm === next.taxForm &&
    profile.taxFormReceivedOn === next.receivedOn &&
    profile.taxFormExpiresOn === next.expiresOn
  )
    return { outcome: "unchanged" };
  await writeProfileTaxForm(trx, { ...p, ...next });
  const change = await insertProfileChange(trx, {
    ...p,
    kind: "tax_form",
    status: "applied",
    taxForm: next.taxForm,
    taxFormReceivedOn: next.receivedOn,
    taxFormExpiresOn: next.expiresOn,
    actor: acting.actor,
    via: acting.via,
    at: new Date(),
  });
  await recordAudit(trx, {
    actor: acting.actor,
    via: acting.via,
    action: "profiles.tax_form.set",
    gameId: p.gameId,
    target: recipientTarget(p.playerId),
    outcome: "applied",
    detail: {
      playerId: p.playerId,
      changeId: change.id,
      from: { taxForm: profile.taxForm, receivedOn: profile.taxFormReceivedOn, expiresOn: profile.taxFormExpiresOn },
      to: next,
    },
  });
  return { outcome: "applied" };
}

export async function setTaxForm(
  db: Db,
  p: { gameId: string; playerId: number; input: TaxFormInput; drawn?: string },
  acting: ProfileActing,
): Promise<{ outcome: "applied" | "unchanged" }> {
  return db.transaction().execute((trx) => setTaxFormIn(trx, p, acting));
}

/**
 * A second finance user approves (the details apply now) or rejects (they are dropped) a recipient's pending change.
 * `changeId` names the change the person read: one replaced since is refused.
 */
export async function reviewPayoutChange(
  db: Db,
  p: { gameId: string; playerId: number; changeId: string; decision: "approve" | "reject"; note?: string },
  acting: ProfileActing,
): Promise<{ outcome: "approved" | "rejected"; masked: string }> {
  const refused = {
    actor: acting.actor,
    via: acting.via,
    action: `profiles.details.${p.decision}`,
    gameId: p.gameId,
    target: recipientTarget(p.playerId),
    detail: { playerId: p.playerId, changeId: p.changeId },
  };
  return auditTwoPersonRefusals(db, refused, () => reviewIn(db, p, acting));
}

async function reviewIn(
  db: Db,
  p: Parameters<typeof reviewPayoutChange>[1],
  acting: ProfileActing,
): Promise<{ outcome: "approved" | "rejected"; masked: string }> {
  return db.transaction().execute(async (trx) => {
    await holdSealingKey(trx);
    // As for any change of details: never between a payment file's flags and its details.
    await holdPayoutsOfGame(trx, p.gameId);
    const profile = await lockProfile(trx, p);
    const pending = await getPendingChange(trx, { ...p, lock: true });
    if (!pending || pending.id !== p.changeId)
      throw new AppError("CONFLICT", "This change is no longer waiting for review (it was reviewed or replaced).");
    const { twoPersonRule } = await readPayoutSettings(trx);
    const verdict = reviewVerdict({ id: acting.actor.id, role: acting.role }, pending, twoPersonRule);
    if (!verdict.allowed)
      throw verdict.twoPerson ? new TwoPersonRefusal(verdict.reason) : new AppError("FORBIDDEN", verdict.reason);
    const now = new Date(await databaseNowMs(trx));
    const masked = pending.detailsMasked ?? "";
    if (p.decision === "approve") {
      if (!pending.sealed || !pending.method || !pending.currency) throw new Error("a pending change without details");
      const details = openDetails(pending.sealed, pending.sealRef);
      const sealed = await sealDetails(trx, details, profile.sealRef);
      await writeProfileDetails(trx, {
        ...p,
        method: pending.method,
        currency: pending.currency,
        sealed,
        masked,
        changeId: pending.id,
        at: now,
      });
    }
    const status = p.decision === "approve" ? "approved" : "rejected";
    await closeProfileChange(trx, {
      changeId: pending.id,
      status,
      reviewer: acting.actor,
      via: acting.via,
      note: p.note ?? null,
      at: now,
    });
    await recordAudit(trx, {
      actor: acting.actor,
      via: acting.via,
      action: `profiles.details.${p.decision}`,
      gameId: p.gameId,
      target: recipientTarget(p.playerId),
      outcome: status,
      detail: {
        playerId: p.playerId,
        changeId: pending.id,
        enteredBy: pending.enteredByEmail,
        method: pending.method,
        currency: pending.currency,
        masked,
        previousMasked: profile.detailsMasked,
        note: p.note ?? null,
      },
    });
    return { outcome: status, masked };
  });
}

export type ProfileView = {
  profile: ProfileRow | null;
  pending: ProfileChangeRow | null;
  history: ProfileChangeRow[];
};

/** A recipient's profile as pages show it: masked, with the change waiting for review and the history. */
export async function loadProfileView(db: Db, p: { gameId: string; playerId: number }): Promise<ProfileView> {
  const [profile, pending, history] = await Promise.all([
    getProfile(db, p),
    listProfileChanges(db, { ...p, status: "pending", limit: 1 }),
    listProfileChanges(db, p),
  ]);
  return { profile, pending: pending[0] ?? null, history };
}
