import "server-only";
import type { DbOrTrx } from "@/db";

/** The app_setting row holding one setting (a JSON value), if saved. */
export async function getAppSetting(db: DbOrTrx, key: string) {
  return db
    .selectFrom("app_setting")
    .select(["value", "updated_at", "updated_by"])
    .where("key", "=", key)
    .executeTakeFirst();
}

export async function upsertAppSetting(
  db: DbOrTrx,
  params: { key: string; value: string; updatedBy: string },
): Promise<void> {
  const at = new Date();
  await db
    .insertInto("app_setting")
    .values({ key: params.key, value: params.value, updated_at: at, updated_by: params.updatedBy })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({ value: params.value, updated_at: at, updated_by: params.updatedBy }),
    )
    .execute();
}
