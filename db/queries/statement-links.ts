import "server-only";
import type { DbOrTrx } from "@/db";
import { firstValue } from "./scalar";

/** Signed links of a batch issued at or before `revoked_at` are refused. */
export async function revokeBatchLinks(db: DbOrTrx, params: { batchId: string; at: Date; by: string | null }) {
  await db
    .insertInto("statement_link_revocation")
    .values({ batch_id: params.batchId, revoked_at: params.at, revoked_by_email: params.by })
    .onConflict((oc) => oc.column("batch_id").doUpdateSet({ revoked_at: params.at, revoked_by_email: params.by }))
    .execute();
}

export async function getBatchLinkRevocation(db: DbOrTrx, batchId: string): Promise<Date | null> {
  const revocation = db.selectFrom("statement_link_revocation").select("revoked_at").where("batch_id", "=", batchId);
  return firstValue(revocation, "revoked_at");
}
