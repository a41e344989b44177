import { type Kysely, sql } from "kysely";

/**
 * The shared pacer's buckets count calls in hundredths of their window instead of twentieths: a slice is how long a
 * call may be counted beyond its window, so a limit that binds now loses at most a hundredth of its throughput (a
 * paced month's snapshot spent most of its wait above the limit's own floor there).
 *
 * The function is the one of 2026_11_23_1800_service_pace with the slice changed. Buckets in use keep their calls:
 * a call of twentieth n is counted in the last hundredth of it (5n + 4), so it leaves the window exactly when it left
 * it before and no caller is admitted early during the change.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await resliceTo(db, { from: 20, to: 100 });
  await sql`update service_pace set slots = (select coalesce(array_agg(s * 5 + 4 order by s), '{}')
    from unnest(slots) as s)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await resliceTo(db, { from: 100, to: 20 });
  await sql`update service_pace as p set (slots, counts) = (
      select coalesce(array_agg(s order by s), '{}'), coalesce(array_agg(n order by s), '{}')
      from (select floor(u.s / 5)::bigint as s, sum(u.n)::integer as n
            from unnest(p.slots, p.counts) as u(s, n) group by 1) as regrouped)`.execute(db);
}

/** Rewrites pace_acquire from its stored definition with each window cut into `to` slices instead of `from`. */
async function resliceTo(db: Kysely<any>, p: { from: number; to: number }): Promise<void> {
  const signature = "pace_acquire(text[], integer[], double precision[], boolean)";
  const found = await sql<{ def: string }>`select pg_get_functiondef(${signature}::regprocedure) as def`.execute(db);
  const def = found.rows[0]?.def ?? "";
  const slice = `b.win / ${p.from};`;
  if (def.split(slice).length !== 3) throw new Error(`pace_acquire does not cut windows into ${p.from} slices twice`);
  await sql.raw(def.replaceAll(slice, `b.win / ${p.to};`)).execute(db);
}
