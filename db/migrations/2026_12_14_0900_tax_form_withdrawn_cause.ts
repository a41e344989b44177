import { type Kysely, sql } from "kysely";

/**
 * `tax_form_missing` for a recipient whose form was recorded and then withdrawn names the withdrawing change in its
 * cause (`tax_form:none:<change id>`, lib/profiles/flags.ts), so that an override of "none on file" given before the
 * form was recorded no longer holds. An override given after the withdrawal, under the former cause, acknowledged that
 * withdrawal: it takes the new cause, so it still holds. One given before stays as it was, and the flag is open again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`update payout_flag_override o
       set cause = 'tax_form:none:' || w.change_id
      from (select distinct on (c.game_id, c.player_id) c.game_id, c.player_id, c.id::text as change_id, c.entered_at
              from payout_profile_change c
              join payout_profile p on p.game_id = c.game_id and p.player_id = c.player_id and p.tax_form = 'none'
             where c.kind = 'tax_form'
             order by c.game_id, c.player_id, c.entered_at desc, c.id desc) w
     where o.flag = 'tax_form_missing' and o.cause = 'tax_form:none'
       and o.game_id = w.game_id and o.recipient_player_id = w.player_id and o.at > w.entered_at`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`update payout_flag_override set cause = 'tax_form:none'
     where flag = 'tax_form_missing' and cause like 'tax_form:none:%'`.execute(db);
}
