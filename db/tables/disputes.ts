import type { Generated } from "kysely";

// --- Disputes (2026_11_23_1400) --------------------------------------------------------------------------------------

export type ServiceDisputeStatus = "open" | "won" | "lost";

export type ServiceDisputeTable = {
  id: Generated<string>;
  game_id: string;
  dispute_id: string;
  order_id: string;
  transaction_id: string | null;
  reason: string | null;
  usd_amount: string | null;
  status: ServiceDisputeStatus;
  opened_at: Date | null;
  closed_at: Date | null;
  currency_debited: string | null;
  opened_event_id: string | null;
  closed_event_id: string | null;
  updated_at: Generated<Date>;
};

export type DisputeTables = {
  service_dispute: ServiceDisputeTable;
};
