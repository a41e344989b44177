import "server-only";
import type { SealedColumnRef } from "@/db/queries/keys";

export const gameSecretContext = (gameId: string) => `game-secret:${gameId}`;
export const webhookSecretContext = (gameId: string) => `webhook-secret:${gameId}`;
/** Payout details, bound to the row's `seal_ref`: "game:player" on a profile, "game:player:change" on a change. */
export const payoutDetailsContext = (sealRef: string) => `payout-details:${sealRef}`;
/** A payment file as written (it holds bank details), bound to the file's id. */
export const paymentFileContext = (fileId: string) => `payment-file:${fileId}`;

/** A column of sealed values and the associated data each value was sealed with (lib/crypto.ts). */
export type SealedColumn = SealedColumnRef & { context(id: string): string };

/**
 * Every column that holds values sealed with PAYOUT_DESK_KEY. A key rotation re-seals exactly these, and the key
 * check at start opens one of them; a new sealed column (bank details, say) is added here and nowhere else.
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: "game", idColumn: "id", column: "secret_sealed", context: gameSecretContext },
  { table: "game", idColumn: "id", column: "webhook_secret_sealed", context: webhookSecretContext },
  { table: "game", idColumn: "id", column: "webhook_previous_secret_sealed", context: webhookSecretContext },
  { table: "payout_profile", idColumn: "seal_ref", column: "details_sealed", context: payoutDetailsContext },
  { table: "payout_profile_change", idColumn: "seal_ref", column: "details_sealed", context: payoutDetailsContext },
  { table: "payment_file", idColumn: "id", column: "content_sealed", context: paymentFileContext },
];

export const columnName = (column: SealedColumnRef) => `${column.table}.${column.column}`;
