/**
 * Why a page offers no statement email (lib/statements/settings.ts refuses the send for the same reason, in its own
 * words): for the batch panel (a client component) and a statement's delivery log alike.
 */
export const ISSUER_MISSING_NOTE =
  "Statements can be emailed once the studio's name is set in Settings → Statements (an admin can set it).";
