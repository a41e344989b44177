import "server-only";
import type { DbOrTrx } from "@/db";

/** Settings of the whole desk (not of one game): one JSON value per key, with who set it last. */

export async function readAppSetting(
  db: DbOrTrx,
  key: string,
): Promise<{ value: unknown; updatedAt: Date; updatedBy: string | null } | null> {
  const row = await db
    .selectFrom("app_setting")
    .select(["value", "updated_at", "updated_by"])
    .where("key", "=", key)
    .executeTakeFirst();
  return row ? { value: row.value, updatedAt: row.updated_at, updatedBy: row.updated_by } : null;
}

export async function writeAppSetting(
  db: DbOrTrx,
  params: { key: string; value: unknown; updatedBy: string | null },
): Promise<void> {
  const values = { value: JSON.stringify(params.value), updated_at: new Date(), updated_by: params.updatedBy };
  await db
    .insertInto("app_setting")
    .values({ key: params.key, ...values })
    .onConflict((oc) => oc.column("key").doUpdateSet(values))
    .execute();
}
