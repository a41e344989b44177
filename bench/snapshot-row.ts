// The columns of a snapshot row the benches write directly (a snapshot built from generated lines, not pulled).
import { sql } from "kysely";

export const SNAPSHOT_COLUMNS = sql.raw(`id, game_id, window_start, window_end, version, pull_id, fetch_started_at,
  fetch_finished_at, service_generated_at, window_closed, built_from, page_count, request_count, rate_limited,
  retries, duration_ms, sub_window_count, line_count, reversal_count, refund_event_count, renewals_settled,
  settled_gross_usd, invo_fee_usd, partner_revenue_settled_usd, partner_revenue_reversed_usd, partner_revenue_usd,
  renewals_with_attribution, renewals_without_attribution, unattributed_reasons, gross_attributed_usd,
  reversed_attributed_usd, net_attributed_usd, renewals_settled_then_fully_reversed, refund_events_in_window,
  reversals_without_receipts, recipient_count, report, attribution_notice, checks, build_notes, drift_status`);
