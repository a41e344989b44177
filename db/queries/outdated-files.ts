import "server-only";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db";

/** A live file at outdated details: how many of its payments, and the first recipients. */
export type OutdatedFile = {
  fileId: string;
  outdated: number;
  recipients: { recipientPlayerId: number; name: string | null }[];
};

/**
 * The batch's live files holding open payments to payout details applied since the file was written (another
 * account, method or currency, or one masked alike: a change approved after the file): the provider would pay what the
 * file holds. Per file, how many and the first `named` recipients. A change applied after the file began is one after
 * it was written (both take the game's payout lock), but for one approved while the file waited for that lock, which
 * is named too. Read from the profiles whose details were applied since the oldest live file began.
 */
export async function listOutdatedLiveFiles(
  db: DbOrTrx,
  params: { gameId: string; batchId: string; named: number },
): Promise<OutdatedFile[]> {
  const { rows } = await sql<{
    file_id: string;
    outdated: string;
    recipient_player_id: string;
    player_name: string | null;
  }>`
    with live as (
      select id, created_at from payment_file
      where game_id = ${params.gameId} and batch_id = ${params.batchId} and status = 'live'
    ), outdated as (
      select f.id as file_id, f.created_at, s.recipient_player_id, s.player_name,
        count(*) over (partition by f.id) as outdated,
        row_number() over (partition by f.id order by s.recipient_player_id) as n
      from payout_profile p
      join payout_statement s on s.batch_id = ${params.batchId} and s.recipient_player_id = p.player_id
      join payment_file_item i on i.statement_id = s.id and i.file_status = 'live' and not i.settled
      join live f on f.id = i.file_id
      where p.game_id = ${params.gameId}
        and p.details_applied_at >= (select min(created_at) from live)
        and (p.details_applied_at > f.created_at or p.details_masked is distinct from i.account_masked
          or p.currency is distinct from i.currency)
    )
    select file_id, outdated::text, recipient_player_id, player_name from outdated
    where n <= ${params.named}
    order by created_at, file_id, recipient_player_id`.execute(db);
  const files = new Map<string, OutdatedFile>();
  for (const r of rows) {
    const file = files.get(r.file_id) ?? { fileId: r.file_id, outdated: Number(r.outdated), recipients: [] };
    file.recipients.push({ recipientPlayerId: Number(r.recipient_player_id), name: r.player_name });
    files.set(r.file_id, file);
  }
  return [...files.values()];
}
