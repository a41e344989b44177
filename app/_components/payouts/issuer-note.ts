/**
 * Why a page offers no statement email (lib/statements/settings.ts refuses the send for the same reason, in its own
 * words): for the batch panel (a client component) and a statement's delivery log alike.
 */
export const ISSUER_MISSING_NOTE =
  "Emailing statements needs the studio's name: an admin sets it in Settings → Statements.";
