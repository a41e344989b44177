import "server-only";
import type { Db } from "@/db";
import { gameUsesProfiles, listProfileFlagFacts, type ProfileFlagFacts } from "@/db/queries/profiles";
import { formatUtcDateTime } from "@/lib/format";
import { formatInstant } from "@/lib/time";
import { PROFILE_FLAG_INFO, type ProfileFlag } from "./flag-info";
import { PAYOUT_METHOD_LABELS } from "./schemas";
import { readProfileSettings } from "./settings";

/** An instant as every page shows one: "2026-11-25 20:39 UTC". */
function at(instant: Date): string {
  const iso = formatInstant(instant);
  return formatUtcDateTime(iso) ?? iso;
}

/** A flag raised by a recipient's payout profile, shaped like every payout flag (lib/payouts/flags.ts ActiveFlag). */
export type ProfileActiveFlag = {
  flag: ProfileFlag;
  label: string;
  detail: string;
  recipientPlayerId: number;
  cause: string;
  raisedAt: Date | null;
};

function raise(
  flag: ProfileFlag,
  facts: ProfileFlagFacts,
  detail: string,
  cause: string,
  raisedAt: Date | null,
): ProfileActiveFlag {
  return { flag, label: PROFILE_FLAG_INFO[flag].label, detail, recipientPlayerId: facts.playerId, cause, raisedAt };
}

const DETAILS_CAUSE = "payout_details:";

/** The cause of `payout_details_changed`: the change of details that set those in force. */
export const detailsChangeCause = (changeId: string | null): string => `${DETAILS_CAUSE}${changeId}`;

/** The change of details a `payout_details_changed` cause names, or null for any other cause. */
export function detailsChangeOf(cause: string): string | null {
  return cause.startsWith(DETAILS_CAUSE) ? cause.slice(DETAILS_CAUSE.length) : null;
}

/**
 * What a game's profile flags are evaluated under: whether a tax form is required (and the day a form expires
 * against), and whether the game has taken up payout profiles at all. Read once for all that a view asks.
 */
export type ProfileRules = { requireTaxForm: boolean; today: string; profilesInUse: boolean };

export async function readProfileRules(db: Db, params: { gameId: string }): Promise<ProfileRules> {
  const [settings, profilesInUse] = await Promise.all([readProfileSettings(db), gameUsesProfiles(db, params)]);
  return { requireTaxForm: settings.requireTaxForm, today: formatInstant(Date.now()).slice(0, 10), profilesInUse };
}

/** Whether no payment has gone to the details in force yet: applied after the last payment, or none was made. */
export function detailsNotPaidYet(facts: Pick<ProfileFlagFacts, "detailsAppliedAt" | "lastPaidAt">): boolean {
  const applied = facts.detailsAppliedAt;
  return applied !== null && (facts.lastPaidAt === null || applied > facts.lastPaidAt);
}

/**
 * The profile flags of one recipient's payable statement, from its facts. Pure. The cause of
 * `payout_details_changed` is the change that set the details in force, so an override acknowledges that change and
 * no later one; once the recipient is paid after it, the flag is gone.
 */
export function profileFlagsOfFacts(facts: ProfileFlagFacts, rules: ProfileRules): ProfileActiveFlag[] {
  const flags: ProfileActiveFlag[] = [];
  // A game whose recipients have no payout details at all has not taken up payout profiles: its batches are not
  // blocked recipient by recipient until the first details are entered.
  if (!facts.method && rules.profilesInUse) {
    flags.push(
      raise("no_payout_method", facts, "no payout method on the recipient's profile", "payout_profile:none", null),
    );
  }
  // Details that no payment has gone to yet: changed since the last payment (by file, or by hand in a batch approved
  // after the change: listProfileFlagFacts), or the first details when entered after the batch's approval (approval saw
  // the recipient without them; nobody else has seen them since).
  const applied = facts.detailsAppliedAt;
  const unpaid = detailsNotPaidYet(facts);
  const firstAfterApproval =
    facts.detailsVersion === 1 && applied !== null && facts.batchApprovedAt !== null && applied > facts.batchApprovedAt;
  const changed = facts.method !== null && unpaid && (facts.detailsVersion > 1 || firstAfterApproval);
  if (changed && facts.method && applied) {
    const since = facts.lastPaidAt ? ` since the last payment on ${at(facts.lastPaidAt)}` : "";
    const what =
      facts.detailsVersion === 1
        ? `${PAYOUT_METHOD_LABELS[facts.method]} details first entered on ${at(applied)}, after approval`
        : `${PAYOUT_METHOD_LABELS[facts.method]} details changed on ${at(applied)}`;
    flags.push(
      raise(
        "payout_details_changed",
        facts,
        `${what}${since}`,
        detailsChangeCause(facts.detailsChangeId),
        facts.detailsAppliedAt,
      ),
    );
  }
  // A payment that came back holds the recipient until their details are updated after it (or the flag overridden).
  const back = facts.lastReturn;
  if (back && (facts.detailsAppliedAt === null || facts.detailsAppliedAt < back.at)) {
    flags.push(
      raise(
        "payment_returned",
        facts,
        `a payment was rejected or returned on ${at(back.at)}`,
        `payment_return:${back.id}`,
        back.at,
      ),
    );
  }
  // A statement email refused for good: the recipient cannot be reached at the address on record. It goes once the
  // address on their statement is another one, or a later email is delivered (which clears the failure).
  const refused = facts.refusedDelivery;
  if (refused && facts.email && refused.toAddress.toLowerCase() === facts.email.toLowerCase()) {
    flags.push(
      raise(
        "statement_undeliverable",
        facts,
        `statement email to ${refused.toAddress} refused on ${at(refused.failedAt)}: ${refused.serverAnswer}`,
        `statement_delivery:${refused.statementId}:${refused.failedAt.toISOString()}`,
        refused.failedAt,
      ),
    );
  }
  if (rules.requireTaxForm) {
    const form = facts.taxForm ?? "none";
    if (form === "none") {
      // A form recorded and withdrawn since is a new cause: an override of "none on file" before it does not hold.
      const withdrawn = facts.taxFormWithdrawnBy;
      const cause = withdrawn ? `tax_form:none:${withdrawn}` : "tax_form:none";
      flags.push(raise("tax_form_missing", facts, "no tax form on file", cause, null));
    } else if (facts.taxFormExpiresOn && facts.taxFormExpiresOn < rules.today) {
      flags.push(
        raise(
          "tax_form_missing",
          facts,
          `${form} expired on ${facts.taxFormExpiresOn}`,
          `tax_form:expired:${facts.taxFormExpiresOn}`,
          null,
        ),
      );
    }
  }
  return flags;
}

/** The profile flags of a batch's payable statements (or of one recipient's), evaluated now, under `rules` if read. */
export async function profileFlagsOf(
  db: Db,
  params: {
    gameId: string;
    batchId: string;
    recipientPlayerId?: number;
    recipientPlayerIds?: readonly number[];
    rules?: ProfileRules;
  },
): Promise<ProfileActiveFlag[]> {
  // No recipient asked about (the flags a batch shares, read apart from any page of its statements): none to read.
  if (params.recipientPlayerIds?.length === 0) return [];
  const [facts, rules] = await Promise.all([
    listProfileFlagFacts(db, params),
    params.rules ?? readProfileRules(db, params),
  ]);
  return facts.flatMap((f) => profileFlagsOfFacts(f, rules));
}
